// Desktop notifications when something starts waiting for the user: a new server to review,
// tools, prompts or resource templates that became pending/changed, an agent's access request, a server that needs sign-in, or a
// call that waits for the user's OK. The first snapshot is the baseline (no notification at start;
// the tray icon already shows it).
import type { ServersSummary as Summary } from '../../shared/summary'
import type { AccessRequest } from '../../shared/requests'
import { ARGS_NOTE_CHARS, type Confirmation } from '../../shared/confirmations'
import type { Question } from '../../shared/questions'

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
  let prompts = 0
  for (const [name, n] of Object.entries(next.pendingPrompts)) {
    const delta = n - (prev.pendingPrompts[name] ?? 0)
    if (delta > 0) {
      prompts += delta
      lines.push(`${delta} prompt${delta === 1 ? '' : 's'} of "${name}" ${delta === 1 ? 'is' : 'are'} new or changed.`)
    }
  }
  let templates = 0
  for (const [name, n] of Object.entries(next.pendingTemplates)) {
    const delta = n - (prev.pendingTemplates[name] ?? 0)
    if (delta > 0) {
      templates += delta
      lines.push(`${delta} resource template${delta === 1 ? '' : 's'} of "${name}" ${delta === 1 ? 'is' : 'are'} new or changed.`)
    }
  }
  const signIn = next.needsSignIn.filter((name) => !prev.needsSignIn.includes(name))
  for (const name of signIn) lines.push(`Server "${name}" needs you to sign in.`)
  if (lines.length === 0) return null
  if (tools === 0 && prompts === 0 && templates === 0 && newServers.length === 0) {
    return {
      title: `Toolgate: ${signIn.length === 1 ? 'a server needs' : `${signIn.length} servers need`} sign-in`,
      body: `${lines.join(' ')} Open Toolgate to sign in.`,
    }
  }
  if (templates > 0 && prompts === 0 && tools === 0 && newServers.length === 0)
    return {
      title: `Toolgate: ${templates} resource template${templates === 1 ? ' waits' : 's wait'} for approval`,
      body: `${lines.join(' ')} Open Toolgate to review.`,
    }
  if (prompts > 0 && tools === 0 && newServers.length === 0)
    return { title: `Toolgate: ${prompts} prompt${prompts === 1 ? ' waits' : 's wait'} for approval`, body: `${lines.join(' ')} Open Toolgate to review.` }
  const title =
    (tools > 0 || prompts > 0 || templates > 0) && newServers.length > 0
      ? 'Toolgate: servers and tools wait for approval'
      : tools > 0
        ? `Toolgate: ${tools} tool${tools === 1 ? ' waits' : 's wait'} for approval`
        : `Toolgate: ${newServers.length === 1 ? 'a server waits' : `${newServers.length} servers wait`} for review`
  return { title, body: `${lines.join(' ')} Open Toolgate to review.` }
}

/**
 * A server announced as having new or changed tools or prompts, or as needing sign-in, is not
 * announced again for this long unless more of it waits than was announced. What a server lists
 * is its own to change: one that flips a definition back and forth (changed, reverted, changed …)
 * or answers 401 every other time raised a notification every few seconds, for as long as it liked,
 * and taught the user to ignore Toolgate's notifications. The tray and the window keep counting.
 */
export const REPEAT_AFTER_MS = 10 * 60_000

interface Announced {
  tools: number
  prompts: number
  templates: number
  signIn: boolean
  at: number
}

export class WaitingNotifier {
  private last: Summary | null = null
  /** what was last announced of each server, and when */
  private readonly announced = new Map<string, Announced>()

  constructor(
    private readonly show: (note: Note) => void,
    private readonly now: () => number = Date.now,
  ) {}

  update(summary: Summary): Note | null {
    const prev = this.last
    this.last = summary
    if (!prev) return null
    const now = this.now()
    const recent = [...this.announced].filter(([, a]) => now - a.at < REPEAT_AFTER_MS)
    // what was announced lately counts as already seen
    const seen: Summary = {
      ...prev,
      pendingTools: { ...prev.pendingTools },
      pendingPrompts: { ...prev.pendingPrompts },
      pendingTemplates: { ...prev.pendingTemplates },
      needsSignIn: [...prev.needsSignIn],
    }
    for (const [name, a] of recent) {
      seen.pendingTools[name] = Math.max(seen.pendingTools[name] ?? 0, a.tools)
      seen.pendingPrompts[name] = Math.max(seen.pendingPrompts[name] ?? 0, a.prompts)
      seen.pendingTemplates[name] = Math.max(seen.pendingTemplates[name] ?? 0, a.templates)
      if (a.signIn && !seen.needsSignIn.includes(name)) seen.needsSignIn.push(name)
    }
    const note = whatStartedWaiting(seen, summary)
    if (!note) return null
    const names = new Set([
      ...Object.keys(summary.pendingTools),
      ...Object.keys(summary.pendingPrompts),
      ...Object.keys(summary.pendingTemplates),
      ...summary.needsSignIn,
    ])
    for (const name of names) {
      const tools = summary.pendingTools[name] ?? 0
      const prompts = summary.pendingPrompts[name] ?? 0
      const templates = summary.pendingTemplates[name] ?? 0
      const signIn = summary.needsSignIn.includes(name)
      const rose =
        tools > (seen.pendingTools[name] ?? 0) ||
        prompts > (seen.pendingPrompts[name] ?? 0) ||
        templates > (seen.pendingTemplates[name] ?? 0) ||
        (signIn && !seen.needsSignIn.includes(name))
      if (!rose) continue
      const before = recent.find(([n]) => n === name)?.[1]
      this.announced.set(name, {
        tools: Math.max(tools, before?.tools ?? 0),
        prompts: Math.max(prompts, before?.prompts ?? 0),
        templates: Math.max(templates, before?.templates ?? 0),
        signIn: signIn || (before?.signIn ?? false),
        at: now,
      })
    }
    this.show(note)
    return note
  }
}

/** Markup some notification servers interpret (<b>, <a href>) shown as look-alikes: the reason is the agent's text. */
const inert = (t: string): string => t.replace(/</g, '‹').replace(/>/g, '›').replace(/&/g, '＆')

/** Who asks, as the window says it: the agent, or the client name a session without an agent gave (untrusted, made safe by the core). */
function asker(req: AccessRequest): string {
  if (req.agent) return req.agent
  return req.client ? `${req.client} (no agent)` : 'A session without an agent'
}

/** The notification of a new access request: who asks, for what, and why (the core made the text safe; markup is neutralized here). */
export function requestNote(req: AccessRequest): Note {
  const title = [...inert(`Toolgate: ${asker(req)} asks for ${req.name}`)].slice(0, 200).join('')
  return { title, body: [...inert(`“${req.reason}” Open Toolgate to allow or deny.`)].slice(0, 600).join('') }
}

/**
 * At most this many waiting requests of one agent are announced; more (a flood) show only in the
 * tray's count and the Requests view until the user answers some.
 */
export const NOTIFY_PER_AGENT = 3

/** One notification per new access request (a folded repeat is not new), at most NOTIFY_PER_AGENT waiting per agent. */
export class RequestNotifier {
  private seen = new Set<string>()

  constructor(private readonly show: (note: Note) => void) {}

  update(pending: readonly AccessRequest[]): Note[] {
    const notes: Note[] = []
    const waiting = new Map<string | null, number>()
    for (const r of pending) if (this.seen.has(r.id)) waiting.set(r.agent, (waiting.get(r.agent) ?? 0) + 1)
    for (const r of pending) {
      if (this.seen.has(r.id)) continue
      const known = waiting.get(r.agent) ?? 0
      waiting.set(r.agent, known + 1)
      if (known >= NOTIFY_PER_AGENT) continue
      const n = requestNote(r)
      notes.push(n)
      this.show(n)
    }
    // answered and expired requests never come back (ids are not reused): remember only the waiting ones
    this.seen = new Set(pending.map((r) => r.id))
    return notes
  }
}

/** Text for a notification: some Linux notification servers read <b>, <a href> … in the body, so those characters are escaped too. */
function noteText(text: string, max: number): string {
  const clipped = text.length > max ? `${text.slice(0, max - 1)}…` : text
  return clipped.replace(/[<>&]/g, (ch) => `\\u{${ch.charCodeAt(0).toString(16)}}`)
}

/** A server's question waits for the user: the server's configured name (never its own words as the title), what it asks in short. */
export function questionNote(q: Question, now = Date.now()): Note {
  const left = Math.max(0, Math.round((Date.parse(q.expires_at) - now) / 1000))
  const what = q.mode === 'url' ? `It asks you to open a page on ${q.url_host ?? '?'}.` : `It asks: ${q.message}`
  return {
    title: noteText(`Toolgate: the MCP server "${q.server}" has a question`, 120),
    body: `${noteText(what, ARGS_NOTE_CHARS)} Open Toolgate to answer (${left} s left).`,
  }
}

/** A call waits for the user's OK: who, which tool, a preview of the arguments (masked and escaped by the core; the window shows them all). */
export function confirmationNote(c: Confirmation, now = Date.now()): Note {
  const who = c.agent ?? (c.client ? `a local client (${c.client})` : 'a local client')
  const left = Math.max(0, Math.round((Date.parse(c.expires_at) - now) / 1000))
  const warn = c.name_warning ? ' WARNING: the tool name hides characters.' : ''
  if (c.kind === 'sampling') {
    return {
      title: noteText(`Toolgate: the MCP server "${c.server}" asks to use your model`, 120),
      body: `${noteText(`First message: ${c.args_preview}`, ARGS_NOTE_CHARS)} Open Toolgate to allow or deny (${left} s left).`,
    }
  }
  return {
    title: noteText(`Toolgate: ${who} wants to run ${c.tool}`, 120),
    body: `${noteText(`Arguments: ${c.args_preview}`, ARGS_NOTE_CHARS)}${warn} Open Toolgate to allow or deny (${left} s left).`,
  }
}
