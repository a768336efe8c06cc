// Desktop notifications when something starts waiting for the user: a new server to review,
// tools that became pending/changed, or an agent's access request. The first snapshot is the baseline (no notification at start;
// the tray icon already shows it).
import type { ServersSummary as Summary } from '../../shared/summary'
import type { AccessRequest } from '../../shared/requests'

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

/** Markup some notification servers interpret (<b>, <a href>) shown as look-alikes: the reason is the agent's text. */
const inert = (t: string): string => t.replace(/</g, '‹').replace(/>/g, '›').replace(/&/g, '＆')

/** The notification of a new access request: who asks, for what, and why (the core made the text safe; markup is neutralized here). */
export function requestNote(req: AccessRequest): Note {
  const who = req.agent ?? req.client ?? 'An agent'
  const title = inert(`Toolgate: ${who} asks for ${req.name}`).slice(0, 200)
  return { title, body: inert(`“${req.reason}” Open Toolgate to allow or deny.`).slice(0, 600) }
}

/** One notification per new access request (a folded repeat is not new). */
export class RequestNotifier {
  private readonly seen = new Set<string>()

  constructor(private readonly show: (note: Note) => void) {}

  update(pending: readonly AccessRequest[]): Note[] {
    const notes: Note[] = []
    for (const r of pending) {
      if (this.seen.has(r.id)) continue
      this.seen.add(r.id)
      const n = requestNote(r)
      notes.push(n)
      this.show(n)
    }
    return notes
  }
}
