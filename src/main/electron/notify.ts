// Desktop notifications when something starts waiting for the user: a new server to review, or
// tools that became pending/changed. The first snapshot is the baseline (no notification at start;
// the tray icon already shows it).
import type { ServersSummary as Summary } from '../../shared/summary'

export interface Note {
  title: string
  body: string
}

/** What started waiting between two summaries, as at most one notification. */
export function whatStartedWaiting(prev: Summary, next: Summary): Note | null {
  const lines: string[] = []
  const newServers = next.reviewServers.filter((name) => !prev.reviewServers.includes(name))
  for (const name of newServers) lines.push(`Server "${name}" is new and waits for your review.`)
  let tools = 0
  for (const [name, n] of Object.entries(next.pendingTools)) {
    const delta = n - (prev.pendingTools[name] ?? 0)
    if (delta > 0) {
      tools += delta
      lines.push(`${delta} tool${delta === 1 ? '' : 's'} of "${name}" ${delta === 1 ? 'is' : 'are'} new or changed.`)
    }
  }
  if (lines.length === 0) return null
  const title =
    tools > 0 && newServers.length > 0
      ? 'Toolgate: servers and tools wait for approval'
      : tools > 0
        ? `Toolgate: ${tools} tool${tools === 1 ? ' waits' : 's wait'} for approval`
        : `Toolgate: ${newServers.length === 1 ? 'a server waits' : `${newServers.length} servers wait`} for review`
  return { title, body: `${lines.join(' ')} Open Toolgate to review.` }
}

export class WaitingNotifier {
  private last: Summary | null = null

  constructor(private readonly show: (note: Note) => void) {}

  update(summary: Summary): Note | null {
    const prev = this.last
    this.last = summary
    if (!prev) return null
    const note = whatStartedWaiting(prev, summary)
    if (note) this.show(note)
    return note
  }
}
