// Access requests (docs/requests.md): an agent asks for a locked tool with `request_access`, the user
// answers in the window, the tray, the CLI or the control API. The shapes every surface shares,
// the status filter of GET /api/v1/requests, and how untrusted text (the agent's reason, the tool
// name it asked for, its client name) is made safe to show. Pure: no Node, no DOM.
import { z } from 'zod'
import type { LockStatus } from './statuses'

export const REQUEST_STATUSES = ['pending', 'granted', 'denied', 'expired'] as const
export type RequestStatus = (typeof REQUEST_STATUSES)[number]

/** What request_access answers: `not_requestable` for locks only the operator can lift. */
export type RequestAnswer = 'pending' | 'granted' | 'denied' | 'not_requestable'

/** The locks a user can lift by granting (config locks and operator holds are the operator's). */
export const REQUESTABLE_STATUSES = [
  'server_disabled',
  'server_quarantined',
  'disabled_by_user',
  'pending_approval',
  'disabled_unknown',
] as const satisfies readonly LockStatus[]
export type RequestableStatus = (typeof REQUESTABLE_STATUSES)[number]

/** "Allow once" lets one call through the gate; a server that is off or in quarantine is not running, so it needs a time or always. */
export const ONCE_STATUSES: ReadonlySet<LockStatus> = new Set<LockStatus>(['disabled_by_user', 'pending_approval', 'disabled_unknown'])

export function isRequestable(s: string): s is RequestableStatus {
  return (REQUESTABLE_STATUSES as readonly string[]).includes(s)
}

export interface AccessRequest {
  id: string
  /** the configured agent that asked; null for a session without an agent (the admin key, `toolgate stdio` without --agent) */
  agent: string | null
  /** clientInfo.name of the asking session (untrusted, made safe) */
  client: string | null
  /** "server:tool" as asked (the tool part made safe; it may be a tool nobody has seen yet on a quarantined server) */
  name: string
  server: string
  tool: string
  /** the agent's reason (untrusted: control, bidi and invisible characters escaped, capped) */
  reason: string
  status: RequestStatus
  /** the lock the tool had when the request was last asked or answered */
  lock: RequestableStatus
  created_at: string
  updated_at: string
  /** how many times the agent asked (repeated requests fold into one) */
  asked: number
  /** set once granted: "once", "always" or a duration */
  granted_for?: string
  /** when a time-boxed grant ends, or until when an "Allow once" pass may be used */
  until?: string
  /** set once answered */
  answered_at?: string
  /** `client`: the person at the agent's own client answered (ask_in_client); absent: the window, tray, CLI or API */
  answered_via?: 'client'
  /**
   * Set while pending when granting would approve a server in quarantine: the `launch_hash` of the
   * server's launch now (as on GET /api/v1/servers/:name). Send the one you reviewed back as `hash`
   * with the grant; a launch changed since is refused (409 launch_changed).
   */
  launch_hash?: string
  /**
   * Set while pending when granting acts on the tool of a running server (re-enables or approves
   * it): the definition hash of the tool now (as `approval.hash` on GET /api/v1/servers/:name/tools).
   * Send the one you reviewed back as `hash` with the grant; a tool changed since is refused
   * (409 definition_changed), never approved unseen.
   */
  definition_hash?: string
}

/** `?status=` of GET /api/v1/requests: one status, or all when absent. */
export const RequestFilterSchema = z
  .object({ status: z.enum(REQUEST_STATUSES, { error: `status must be one of ${REQUEST_STATUSES.join(', ')}` }).optional() })
  .strict()
export type RequestFilter = z.infer<typeof RequestFilterSchema>

/** request_access arguments: only these keys (a request is always for the agent that asks). */
// built on first use (an agent asks for access): docs/performance.md, memory
export const RequestAccessArgsSchema = z.lazy(() =>
  z
    .object(
      {
        name: z.string({ error: 'name is required: the "server:tool" id of the locked tool (from retrieve_tools with include_disabled:true)' }),
        reason: z.string({ error: 'reason is required: one sentence the user reads, saying why you need the tool' }).min(1, 'reason must not be empty'),
        wait_s: z
          .number({ error: 'wait_s must be a number of seconds from 0 to 120' })
          .int('wait_s must be a whole number of seconds')
          .min(0, 'wait_s must be from 0 to 120')
          .max(120, 'wait_s must be from 0 to 120')
          .optional(),
      },
      {
        error: (iss) =>
          iss.code === 'unrecognized_keys'
            ? `request_access takes only name, reason and wait_s (not ${(iss.keys ?? []).join(', ')}); a request is always made for the agent that asks`
            : 'arguments must be an object like {"name": "server:tool", "reason": "why", "wait_s": 60}',
      },
    )
    .strict(),
)

export const REASON_MAX = 500
export const ASKED_NAME_MAX = 200
export const CLIENT_NAME_MAX = 100

/** Control, bidi, zero-width and other invisible characters: shown as \u{…} instead of acting on the display. */
const UNSAFE =
  /[\u0000-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb]|[\u{e0000}-\u{e007f}]|[\u{e0100}-\u{e01ef}]/u

/**
 * Untrusted text made safe to show on every surface (window, tray notification, terminal, JSON):
 * newlines and tabs become spaces, every control/bidi/invisible character is written as \u{…},
 * lone surrogates are dropped, and the result is capped at `max` characters (with "…").
 */
export function safeText(text: string, max: number): string {
  const flat = text.replace(/[\r\n\t]+/g, ' ').trim()
  let out = ''
  let n = 0
  for (const ch of flat) {
    const cp = ch.codePointAt(0) as number
    if (cp >= 0xd800 && cp <= 0xdfff) continue
    const piece = UNSAFE.test(ch) ? `\\u{${cp.toString(16)}}` : ch
    if (n + piece.length > max) return `${out}…`
    out += piece
    n += piece.length
  }
  return out
}
