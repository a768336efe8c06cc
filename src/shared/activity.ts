// The activity record (what every agent did, and every decision about what agents may do): the
// event shapes, the query of GET /api/v1/activity (zod, shared by the control API, IPC and CLI)
// and the relative-time parser behind `since=10m`. Pure: no Node, no DOM.
import { z } from 'zod'
import type { Variant } from './call-variant'
import type { LockStatus } from './statuses'

export const ACTIVITY_KINDS = ['search', 'call', 'decision', 'start', 'stop', 'read'] as const
export type ActivityKind = (typeof ACTIVITY_KINDS)[number]

/** `declined`: the call waited for the user's OK and did not get it (denied, timed out, over the limit). */
export const CALL_OUTCOMES = ['ok', 'error', 'blocked', 'timeout', 'cancelled', 'declined'] as const
export type CallOutcome = (typeof CALL_OUTCOMES)[number]

/** Why a call was blocked: the tool's lock status, or the agent's scope / permissions. */
export type BlockReason = LockStatus | 'out_of_scope' | 'wrong_variant'

/** `accept`, `decline` and `cancel` answer a server's question (elicitation; `cancel` also when nobody answered in time); `grant` and `deny` answer an agent's access request, `allow` and `deny` a call waiting for the user's OK; `expire` is the end of a time-boxed grant; `classify` gives a tool its call variant. */
export const DECISION_ACTIONS = [
  'approve',
  'reject',
  'enable',
  'disable',
  'quarantine',
  'grant',
  'allow',
  'deny',
  'expire',
  'add',
  'remove',
  'restart',
  'inspect',
  'classify',
  'accept',
  'decline',
  'cancel',
] as const
export type DecisionAction = (typeof DECISION_ACTIONS)[number]

/**
 * Who decided: the user (window, tray, CLI, API), the operator (by editing mcp_config.json), an
 * agent (upstream_servers), or Toolgate itself when a grant the user gave for a time ends.
 */
export type DecisionBy = 'user' | 'operator' | 'agent' | 'toolgate'
/** From where: the web UI, the Electron window, the tray, the CLI, the bare control API, an agent's MCP session, the config file, the grant timer, the person at the agent's own client (ask_in_client). */
export type DecisionVia = 'ui' | 'window' | 'tray' | 'cli' | 'api' | 'mcp' | 'config' | 'timer' | 'client'

export interface DecisionOrigin {
  by: DecisionBy
  via: DecisionVia
}

interface EventBase {
  /** increasing per data dir; the cursor of the next page */
  id: string
  /** ISO time */
  ts: string
  /** the configured agent, or null for a local client with the admin key (then `client` names it) */
  agent: string | null
  /** clientInfo.name from the agent's MCP initialize (null when unknown) */
  client: string | null
}

export interface SearchEvent extends EventBase {
  kind: 'search'
  query: string
  include_disabled: boolean
  /** callable tools returned */
  hits: number
  /** nothing callable matched, but locked tools did */
  locked_only: boolean
  /** ids of the locked tools that matched (at most 10) */
  locked: string[]
}

export interface CallEvent extends EventBase {
  kind: 'call'
  /** "server:tool" as the agent named it */
  tool: string
  server: string | null
  /** the call variant the agent used (call_tool_<variant>) */
  variant: Variant
  outcome: CallOutcome
  /** why it was blocked (outcome "blocked") */
  status?: BlockReason
  duration_ms: number
  /** bytes of the upstream's result (JSON) */
  result_bytes?: number
  /** redacted, size-capped JSON of the arguments (absent with activity.record_args: false) */
  args_preview?: string
  /** HMAC-SHA256 (hex) of the arguments' canonical JSON (keys sorted), keyed by <data-dir>/args.key: equal arguments match, guesses cannot be tested without the key */
  args_hmac: string
  /** the error text the agent got (redacted, capped) */
  error?: string
}

export interface DecisionEvent extends EventBase {
  kind: 'decision'
  action: DecisionAction
  server: string
  /** the tool's name on its server, for tool decisions */
  tool?: string
  by: DecisionBy
  via: DecisionVia
  /** what happened, in words */
  message: string
  /** the answer to a waiting call: the arguments' keyed digest, as on the call's record (Toolgate's own hex, never masked) */
  args_hmac?: string
  /** the answer to a server's question (actions accept, decline, cancel): never the values of the answer */
  question?: QuestionRecord
}

/** What the record keeps of a server's question and its answer: which question, where it was asked, the names of the fields the answer filled. */
export interface QuestionRecord {
  /** the question's id in Toolgate (GET /api/v1/questions); absent for one asked in the agent's client */
  id?: string
  mode: 'form' | 'url'
  /** `toolgate`: the window, tray, CLI or API; `client`: the agent's own client */
  asked_in: 'toolgate' | 'client'
  /** accept of a form: the names of the fields the answer filled (the values are never recorded) */
  fields?: string[]
  /** a URL question: the host of the page (never the whole URL, which may carry a token) */
  url_host?: string
}

/**
 * Why a server started: an agent's `call`, `prompt` or `resource` read (the agent is
 * named), the user's `inspect` or `restart`, `list` (its tools were never listed), `always`
 * (lifecycle always), `config` (it ran when its launch changed or it went back to review).
 */
export const START_REASONS = ['call', 'prompt', 'resource', 'inspect', 'restart', 'list', 'always', 'config'] as const
/** Why a server stopped: `idle` (unused for idle_stop_s), `config` (switched off, quarantined, removed or changed), `shutdown` (Toolgate stopped). */
export const STOP_REASONS = ['idle', 'config', 'shutdown'] as const

/** A server started or stopped: the process of a stdio server, the connection of an HTTP one. */
export interface StartEvent extends EventBase {
  kind: 'start'
  server: string
  reason: (typeof START_REASONS)[number]
  /** what happened, in words */
  message: string
}

export interface StopEvent extends EventBase {
  kind: 'stop'
  server: string
  reason: (typeof STOP_REASONS)[number]
  /** what happened, in words */
  message: string
}

export type LifecycleEvent = StartEvent | StopEvent

/** `refused`: the gate said no (unknown, out of scope, locked); `error`: the server or Toolgate failed after the gate let it through. */
export const READ_OUTCOMES = ['ok', 'refused', 'error'] as const
export type ReadOutcome = (typeof READ_OUTCOMES)[number]

/** An agent's prompts/get or resources/read (allowed or refused): the read side of what a call is. */
export interface ReadEvent extends EventBase {
  kind: 'read'
  /** a prompt (prompts/get) or a resource (resources/read) */
  what: 'prompt' | 'resource'
  /** the configured server it was for; null when the name or URI names none the agent may see */
  server: string | null
  /** the prompt's name or the resource's URI as the agent sent it (masked, capped) */
  name: string
  outcome: ReadOutcome
  /** the JSON-RPC error code the agent got (outcomes refused and error) */
  code?: number
  /** the error text the agent got (masked, capped) */
  error?: string
  duration_ms: number
}

export type ActivityEvent = SearchEvent | CallEvent | DecisionEvent | StartEvent | StopEvent | ReadEvent
/** A record before the store gives it its id. */
export type NewActivityEvent =
  Omit<SearchEvent, 'id'> | Omit<CallEvent, 'id'> | Omit<DecisionEvent, 'id'> | Omit<StartEvent, 'id'> | Omit<StopEvent, 'id'> | Omit<ReadEvent, 'id'>

export interface ActivityPage {
  events: ActivityEvent[]
  /** pass as `cursor` for the next (older) page; null at the end */
  next_cursor: string | null
}

export const ACTIVITY_PAGE_MAX = 500
export const ACTIVITY_PAGE_DEFAULT = 50

const UNITS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }

/** `10m`, `2h`, `7d`, `30s`, `1w` → milliseconds; null when not a relative time. */
export function parseRelative(text: string): number | null {
  const m = /^(\d{1,9})\s*([smhdw])$/.exec(text.trim())
  return m ? Number(m[1]) * UNITS[m[2]] : null
}

/** `since` as epoch ms: an ISO time, or a relative time counted back from `now`. */
export function parseSince(text: string, now: number): number | null {
  const rel = parseRelative(text)
  if (rel !== null) return now - rel
  if (!/^\d{4}-\d{2}-\d{2}/.test(text)) return null
  const t = Date.parse(text)
  return Number.isNaN(t) ? null : t
}

const SINCE_HELP = 'since must be an ISO time (2026-11-26T10:00:00Z) or a relative time like 30s, 10m, 2h, 7d'

/** The query of GET /api/v1/activity, as strings (URL) or typed values (IPC); unknown keys refused. */
// built on first use (the activity is asked for): docs/performance.md, memory
export const ActivityQuerySchema = z.lazy(() =>
  z
    .object({
      agent: z.string().min(1, 'agent must not be empty').max(200).optional(),
      server: z.string().min(1, 'server must not be empty').max(200).optional(),
      tool: z.string().min(1, 'tool must not be empty').max(400).optional(),
      kind: z.enum(ACTIVITY_KINDS, { error: `kind must be one of ${ACTIVITY_KINDS.join(', ')}` }).optional(),
      outcome: z.enum(CALL_OUTCOMES, { error: `outcome must be one of ${CALL_OUTCOMES.join(', ')}` }).optional(),
      since: z
        .string({ error: SINCE_HELP })
        .refine((s) => parseSince(s, 0) !== null, SINCE_HELP)
        .optional(),
      limit: z.coerce
        .number({ error: `limit must be an integer from 1 to ${ACTIVITY_PAGE_MAX}` })
        .int(`limit must be an integer from 1 to ${ACTIVITY_PAGE_MAX}`)
        .min(1, `limit must be an integer from 1 to ${ACTIVITY_PAGE_MAX}`)
        .max(ACTIVITY_PAGE_MAX, `limit must be an integer from 1 to ${ACTIVITY_PAGE_MAX}`)
        .optional(),
      cursor: z
        .string()
        .regex(/^\d{1,15}$/, 'cursor must be the next_cursor of a previous page')
        .optional(),
    })
    .strict(),
)
export type ActivityQuery = z.input<typeof ActivityQuerySchema>

/** The first problem of a query, as one sentence naming the parameter. */
export function activityQueryError(issues: z.core.$ZodIssue[]): string {
  const i = issues[0]
  if (i.code === 'unrecognized_keys') {
    return `unknown parameter(s) ${i.keys.join(', ')}; use agent, server, tool, kind, outcome, since, limit, cursor`
  }
  return i.message
}

/** The name an event is grouped under: the agent, else the client name of a local session. */
export function actorOf(e: { agent: string | null; client: string | null }): string {
  return e.agent ?? e.client ?? 'local'
}

/** Whether one event passes a (validated) query's filters: the same rules as the store's index, for live events. */
export function matchesActivity(e: ActivityEvent, q: Omit<ActivityQuery, 'limit' | 'cursor'>, now: number): boolean {
  if (q.kind !== undefined && e.kind !== q.kind) return false
  if (q.agent !== undefined && e.agent !== q.agent && !(e.agent === null && e.client === q.agent)) return false
  if (q.outcome !== undefined && (e.kind !== 'call' || e.outcome !== q.outcome)) return false
  if (q.server !== undefined && (e.kind === 'search' || e.server !== q.server)) return false
  if (q.tool !== undefined) {
    if (e.kind !== 'call' && e.kind !== 'decision') return false
    const id = e.kind === 'call' ? e.tool : e.tool !== undefined ? `${e.server}:${e.tool}` : ''
    const name = e.kind === 'call' ? id.slice(id.indexOf(':') + 1) : (e.tool ?? '')
    if ((q.tool.includes(':') ? id : name) !== q.tool) return false
  }
  if (q.since !== undefined) {
    const since = parseSince(q.since, now)
    if (since !== null && Date.parse(e.ts) < since) return false
  }
  return true
}
