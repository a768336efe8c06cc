// Questions in the agent's own client: a call that waits for the user's OK
// can also be answered by the person at the agent's client, for an agent with ask_in_client and a
// client that shows questions (MCP elicitation, form mode). The window and tray stay where the user
// can always answer; whichever answers first wins.
// - 2025 session: an elicitation/create, sent while the call waits, withdrawn (cancelled) when
//   the window answers first.
// - 2026-07-28: the call answers input_required with the question and a requestState; the client
//   retries with the answer. The requestState is HMAC-signed with a key derived from the instance
//   key, expires with the confirmation, and names the confirmation, the credential (principal), the
//   tool and the keyed digest of the arguments: a client cannot forge it, use it for another call
//   or another credential, or use it twice (the confirmation is single use).
import { createHash } from 'node:crypto'
import {
  createRequestStateCodec,
  inputRequired,
  type ElicitRequestFormParams,
  type InputRequiredResult,
  type RequestStateCodec,
} from '@modelcontextprotocol/server'
import type { RelayState } from './relay-asks'
import type { Confirmation } from '../../../shared/confirmations'
import type { AccessAskState } from './in-client-access'

/** What a 2026-07-28 confirmation's requestState says (signed; readable by the client, so nothing secret). */
export interface AskState {
  v: 1
  /** the confirmation */
  c: string
  /** the credential the question was asked for */
  p: string
  /** the tool ("server:tool") */
  t: string
  /** the keyed digest of the arguments (the confirmation's args_hmac) */
  a: string
  /** until when an answer counts (ms since the epoch) */
  d: number
}

/**
 * How long a signed requestState is accepted at most (the codec's own expiry). A confirmation
 * usually ends sooner (confirm_timeout_s): then its retry gets the timeout answer.
 */
export const ASK_STATE_TTL_S = 3600

/** What a requestState of Toolgate's names: a confirmation's question, or an access request's (in-client-access.ts). */
/** Every requestState Toolgate signs: a confirmation's, an access request's, a relayed upstream question's (relay-asks.ts). */
export type InClientState = AskState | AccessAskState | RelayState

/** The key of requestState: derived from the instance key (never the key itself), 32 bytes. */
export function askCodec(instanceKey: string, ttlSeconds: number): RequestStateCodec<InClientState> {
  const key = createHash('sha256').update('toolgate requestState v1\u0000').update(instanceKey).digest()
  return createRequestStateCodec<InClientState>({ key: new Uint8Array(key), ttlSeconds })
}

/** Is this a payload Toolgate signed (after the codec verified the signature and the expiry)? */
export function isAskState(v: unknown): v is AskState {
  const s = v as Partial<AskState> | null
  return (
    typeof s === 'object' &&
    s !== null &&
    s.v === 1 &&
    typeof s.c === 'string' &&
    typeof s.p === 'string' &&
    typeof s.t === 'string' &&
    typeof s.a === 'string' &&
    typeof s.d === 'number'
  )
}

/** The form the client shows: one yes/no. */
export const ASK_SCHEMA: ElicitRequestFormParams['requestedSchema'] = {
  type: 'object',
  properties: {
    allow: { type: 'boolean', title: 'Allow this one call', description: 'Yes runs exactly this call once; no refuses it.' },
  },
  required: ['allow'],
}

/** The question, for a person: who, what, with which arguments (masked preview), and that it is one call. */
export function askMessage(c: Confirmation): string {
  const who = c.agent !== null ? `Agent "${c.agent}"` : 'This client'
  const args = c.args_preview ? ` with ${c.args_preview}` : ''
  return (
    `Toolgate asks: ${who} wants to call ${c.tool} (${c.call_with.replace('call_tool_', '')})${args}. ` +
    `Allow this one call? You can also answer in the Toolgate window; the first answer counts.`
  )
}

/** The key of the question in inputRequests / inputResponses. */
export const ASK_KEY = 'toolgate_confirm'

/** The 2026-07-28 answer that asks: the question, and the signed state of this confirmation. */
export async function askResult(codec: RequestStateCodec<InClientState>, c: Confirmation, principal: string, toolId: string): Promise<InputRequiredResult> {
  const state: AskState = { v: 1, c: c.id, p: principal, t: toolId, a: c.args_hmac, d: Date.parse(c.expires_at) }
  return inputRequired({
    inputRequests: { [ASK_KEY]: inputRequired.elicit({ message: askMessage(c), requestedSchema: ASK_SCHEMA }) },
    requestState: await codec.mint(state),
  })
}

/** The person's answer in an elicitation result: allow, deny, or none (dismissed or malformed). */
export function answerOf(result: unknown): 'allow' | 'deny' | null {
  const r = result as { action?: unknown; content?: { allow?: unknown } } | null
  if (typeof r !== 'object' || r === null) return null
  if (r.action === 'decline') return 'deny'
  if (r.action !== 'accept') return null
  if (r.content?.allow === true) return 'allow'
  if (r.content?.allow === false) return 'deny'
  return null
}
