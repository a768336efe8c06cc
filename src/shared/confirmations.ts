// Confirmation of risky calls (docs/confirmations.md): which calls need a human OK (the operator's `confirm`
// and `confirm_tools` in mcp_config.json, the user's "Ask me before each call" switches), the
// shape of a waiting confirmation on every surface, the answers the agent gets, and how the
// untrusted arguments are made safe to show. Pure: no Node, no DOM.
import { z } from 'zod'
import type { CallWith, Variant } from './call-variant'
import { safeText } from './requests'
import type { SamplingView } from './sampling-view'

/** `confirm` of a server entry: "destructive" = calls of tools that need call_tool_destructive; "write" = write and destructive. */
export const CONFIRM_LEVELS = ['never', 'destructive', 'write'] as const
export type ConfirmLevel = (typeof CONFIRM_LEVELS)[number]

export const CONFIRM_TIMEOUT_DEFAULT_S = 120
export const CONFIRM_TIMEOUT_MAX_S = 3600

/** What of a server's config and the user's switches decides confirmation. */
export interface ConfirmPolicy {
  /** the server's `confirm` (absent = never) */
  confirm?: ConfirmLevel
  /** the server's `confirm_tools`: exact tool names confirmed on every call, whatever their variant */
  confirm_tools?: readonly string[]
}

export interface UserConfirm {
  /** "Ask me before each call" on the whole server */
  server: boolean
  /** "Ask me before each call" on this tool */
  tool: boolean
}

/** Why a call needs confirmation; `config` cannot be switched off in Toolgate. */
export interface ConfirmRequirement {
  required: boolean
  /** the operator requires it (mcp_config.json): locked in the UI */
  config: boolean
  /** the user asked for it (state.json): their own switch, on the server or the tool */
  user: boolean
  /** the operator's rule in words, when `config` */
  config_rule?: string
}

/** Does the operator's config require confirmation for this tool (by name and by the variant it needs)? */
export function configRule(policy: ConfirmPolicy, tool: string, variant: Variant): string | null {
  if (policy.confirm_tools?.includes(tool)) return `"confirm_tools" lists ${JSON.stringify(tool)}`
  if (policy.confirm === 'write' && (variant === 'write' || variant === 'destructive')) return `"confirm": "write" (write and destructive calls)`
  if (policy.confirm === 'destructive' && variant === 'destructive') return `"confirm": "destructive" (destructive calls)`
  return null
}

/** The one place that decides: the user's switches only add to what the config requires. */
export function confirmRequirement(policy: ConfirmPolicy, user: UserConfirm, tool: string, variant: Variant): ConfirmRequirement {
  const rule = configRule(policy, tool, variant)
  const byUser = user.server || user.tool
  return { required: rule !== null || byUser, config: rule !== null, user: byUser, ...(rule ? { config_rule: rule } : {}) }
}

/** The sentence the UI shows beside a locked switch: it is the operator's, not a switch in Toolgate. */
export function operatorConfirmSentence(rule: string): string {
  return `The operator requires confirmation here (${rule} in mcp_config.json). This is not a switch in Toolgate; only whoever manages the config can change it.`
}

export const CONFIRMATION_STATUSES = ['pending', 'allowed', 'denied', 'timeout', 'cancelled'] as const
export type ConfirmationStatus = (typeof CONFIRMATION_STATUSES)[number]

/** Where an answer came from (the activity record says who allowed). `client`: the person at the agent's own client (ask_in_client). */
export const CONFIRM_VIA = ['window', 'ui', 'tray', 'cli', 'api', 'client'] as const
export type ConfirmVia = (typeof CONFIRM_VIA)[number]

/** What waits: a call of a tool (absent on older records), or a server's sampling request (`sampling: "ask"`). */
export type ConfirmationKind = 'call' | 'sampling'

export interface Confirmation {
  id: string
  /** `sampling`: a server's request to use the user's model, made during the call of `tool`; Allow relays it to the agent's client */
  kind?: ConfirmationKind
  /** kind sampling: what the server asks the model (messages, system prompt, model preferences, maxTokens) */
  sampling?: SamplingView
  /** the configured agent that called; null for a session without one (then `client` names it) */
  agent: string | null
  /** clientInfo.name of the calling session (untrusted, made safe) */
  client: string | null
  /** "server:tool" (the tool part made safe: escaped when its name is deceptive) */
  tool: string
  server: string
  /** set when the tool's name does not read as what it is (src/shared/tool-name.ts) */
  name_warning?: string
  /** the variant the tool needs, and the one the agent called with */
  call_with: CallWith
  variant: Variant
  /** HMAC-SHA256 (hex) of the canonical JSON of the arguments, keyed by <data-dir>/args.key (the activity record's args_hmac): Allow runs a call with exactly these */
  args_hmac: string
  /** the arguments as JSON as the agent sent them (nothing masked: what the user allows is what they see), control/bidi/invisible characters escaped, capped at ARGS_TEXT_MAX */
  args_text: string
  /** a short preview for notifications: secrets masked (***), escaped, capped at ARGS_NOTE_CHARS */
  args_preview: string
  /** the size of the arguments' JSON in bytes, and whether args_text was cut */
  args_bytes: number
  args_truncated: boolean
  /** why it waits: the operator's rule and/or the user's switch */
  required_by: Array<'config' | 'user'>
  config_rule?: string
  status: ConfirmationStatus
  created_at: string
  /** when it answers CALL_DECLINED (timeout) if nobody answered */
  expires_at: string
  answered_at?: string
  /** where the answer came from */
  answered_via?: ConfirmVia
}

export const ARGS_TEXT_MAX = 16 * 1024
/** The window folds the arguments past this many characters behind "Show all". */
export const ARGS_FOLD_CHARS = 600
/** A notification shows at most this much of them. */
export const ARGS_NOTE_CHARS = 160

/** Untrusted argument JSON made safe to show: one line, every control/bidi/invisible character escaped, capped at `max`. */
export function safeArgsText(json: string, max = ARGS_TEXT_MAX): { text: string; truncated: boolean } {
  // escaping only makes text longer, so twice the cap of input is all that can be shown: bounded work on huge arguments
  const head = json.length > max * 2 ? json.slice(0, max * 2) : json
  const full = safeText(head, Number.MAX_SAFE_INTEGER)
  const truncated = head.length < json.length || full.length > max
  return { text: truncated ? safeText(head, max) : full, truncated }
}

/** `?status=` of GET /api/v1/confirmations: one status, or pending when absent, or "all". */
export const ConfirmationFilterSchema = z
  .object({
    status: z.enum([...CONFIRMATION_STATUSES, 'all'], { error: `status must be one of ${[...CONFIRMATION_STATUSES, 'all'].join(', ')}` }).optional(),
  })
  .strict()
export type ConfirmationFilter = z.infer<typeof ConfirmationFilterSchema>

/** The answer an agent gets when the user denies (docs/contract.md §7). */
export function declinedText(tool: string): string {
  return `CALL_DECLINED: the user declined this call of ${tool}; it was not run. Do not repeat it unless the user asks you to; continue without it or tell the user what you could not do.`
}

/** The answer an agent gets when nobody answered in time (docs/contract.md §7). */
export function timeoutText(tool: string, seconds: number): string {
  return `CALL_DECLINED (timeout): nobody confirmed this call of ${tool} within ${seconds} s; it was not run. Ask the user to watch for the confirmation in the Toolgate window or tray, then call again.`
}

/** The answer a server gets when the user denies its sampling request, or nobody answered in time. */
export function samplingRefusal(server: string, why: 'denied' | 'timeout' | 'cancelled', seconds: number): string {
  if (why === 'denied') return `the user denied this sampling request of server "${server}" in Toolgate; the user's model was not used.`
  if (why === 'timeout') return `nobody allowed this sampling request of server "${server}" within ${seconds} s in Toolgate; the user's model was not used.`
  return `this sampling request of server "${server}" was withdrawn before the user answered (the call ended); the user's model was not used.`
}
