// Questions of MCP servers that Toolgate asks the user itself (elicitation, docs/passthrough.md):
// when the client of the agent whose call asks cannot show one, the window, the tray, the CLI and
// the API show it, labelled with the server (its configured name, never text the server chose).
// The shape of a question on every surface and of an answer. Pure: no Node, no DOM.
import { z } from 'zod'
import type { FormField } from './elicit-form'
import type { ConfirmVia } from './confirmations'

export const QUESTION_STATUSES = ['pending', 'accepted', 'declined', 'cancelled', 'timeout', 'withdrawn'] as const
export type QuestionStatus = (typeof QUESTION_STATUSES)[number]

export const QUESTION_ACTIONS = ['accept', 'decline', 'cancel'] as const
export type QuestionAction = (typeof QUESTION_ACTIONS)[number]

export interface Question {
  id: string
  /** the configured name of the server that asks (from the config: the server cannot choose it) */
  server: string
  /** the configured agent whose call asks; null for a session without one (then `client` names it) */
  agent: string | null
  /** clientInfo.name of the calling session (untrusted, made safe) */
  client: string | null
  /** "server:tool": the call the question belongs to */
  tool: string
  mode: 'form' | 'url'
  /** the server's text: its secrets masked, control/bidi/invisible characters escaped */
  message: string
  /** form mode: the fields of the requested schema (their text made safe like the message) */
  fields?: FormField[]
  /** URL mode: the URL (secrets masked) and its host, shown before it opens */
  url?: string
  url_host?: string
  status: QuestionStatus
  created_at: string
  /** when it is cancelled (nobody answers for the user) */
  expires_at: string
  answered_at?: string
  answered_via?: ConfirmVia
}

/** `?status=` of GET /api/v1/questions: one status, or pending when absent, or "all". */
export const QuestionFilterSchema = z
  .object({
    status: z.enum([...QUESTION_STATUSES, 'all'], { error: `status must be one of ${[...QUESTION_STATUSES, 'all'].join(', ')}` }).optional(),
  })
  .strict()
export type QuestionFilter = z.infer<typeof QuestionFilterSchema>

export const QuestionActionSchema = z.enum(QUESTION_ACTIONS, { error: `action must be one of ${QUESTION_ACTIONS.join(', ')}` })

/** content of an accepted form answer: an object (checked against the question's schema by the core) */
export const QuestionContentSchema = z.record(z.string(), z.unknown(), { error: 'content must be an object of the form\'s fields, e.g. {"name": "value"}' })

export interface QuestionActionResult {
  ok: true
  question: Question
  message: string
}

/** The sentence every surface shows above a question: who asks, and that it is not Toolgate. */
export function askedBy(q: Pick<Question, 'server'>): string {
  return `The MCP server "${q.server}" asks (this is the server's question, not Toolgate's)`
}

/** The longest URL a question may carry (the server's and the normalized form): a longer one is refused, the user could not read where it leads. */
export const MAX_URL_CHARS = 4096

/**
 * The URL of a URL-mode question as the user should see and open it, or why it is refused: an
 * http(s) URL of at most MAX_URL_CHARS (as sent and as normalized) without a user name or password
 * (`https://bank.example@evil.example/` reads as the bank's and leads to evil.example). `href` is
 * the URL parser's form (control, bidi and invisible characters percent-encoded, host in punycode),
 * `host` the host as the user should read it. One check for the questions Toolgate shows and for
 * the ones it relays to the agent's client.
 */
export function checkQuestionUrl(url: string): { href: string; host: string } | { error: string } {
  if (url.length > MAX_URL_CHARS) return { error: `the URL of this elicitation is ${url.length} characters long (at most ${MAX_URL_CHARS})` }
  let u: URL
  try {
    u = new URL(url)
  } catch {
    return { error: 'the URL of this elicitation is not a URL' }
  }
  if (u.protocol !== 'https:' && u.protocol !== 'http:')
    return { error: 'the URL of this elicitation is not an http(s) URL; only web pages are shown to the user' }
  if (u.username !== '' || u.password !== '')
    return { error: 'the URL of this elicitation carries a user name or password before its host, which hides where it leads' }
  if (u.href.length > MAX_URL_CHARS)
    return { error: `the URL of this elicitation is ${u.href.length} characters long once normalized (at most ${MAX_URL_CHARS})` }
  return { href: u.href, host: u.host }
}

/** The host of a URL as the user should read it (lower case, punycode as the URL parser gives it), or null when it is not an http(s) URL. */
export function urlHost(url: string): string | null {
  try {
    const u = new URL(url)
    if (u.protocol !== 'https:' && u.protocol !== 'http:') return null
    return u.host
  } catch {
    return null
  }
}
