// The request_access tool (docs/contract.md §7): asks the user for a locked tool. Where the agent's
// ask_in_client switch is on and its client shows forms, the person at the client is asked too
// (in-client-access.ts); the window and tray always can answer, and the first answer wins.
import type { CallToolResult, InputRequiredResult, RequestStateCodec } from '@modelcontextprotocol/server'
import { PENDING_TTL_MS, type AccessRequests, type AskResult, type ClientAnswer } from '../requests/access'
import type { AccessRequest } from '../../../shared/requests'
import type { Scope } from '../access/scope'
import type { Who } from '../activity/recorder'
import { ApiError } from '../../../shared/api'
import { ACCESS_CLIENT_WAIT_MS, accessAnswerOf, accessAskResult, isAccessAskState, type AccessAskState } from './in-client-access'
import { ASK_STATE_TTL_S, type InClientState } from './in-client'

/**
 * Asking in the agent's own client: `ask` in a 2025 session (an elicitation while request_access
 * waits; null when dismissed or withdrawn); `modern` for 2026-07-28 (`state`: the retry's verified
 * requestState, whatever it names; `response`: the person's answer to the question).
 */
export interface AccessInClient {
  ask?(req: AccessRequest, answers: ClientAnswer[], signal: AbortSignal): Promise<ClientAnswer | null>
  modern?: { principal: string; codec: RequestStateCodec<InClientState>; state?: unknown; response?: unknown }
}

function text(r: AskResult): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(r) }] }
}

function refused(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] }
}

const NOT_THIS =
  'REQUEST_DECLINED: the answer (requestState) does not belong to this request; nothing was granted. Call request_access again without it to ask anew.'

export async function requestAccessTool(
  requests: AccessRequests,
  who: Who,
  scope: Scope,
  raw: unknown,
  signal: AbortSignal,
  client?: AccessInClient,
): Promise<CallToolResult | InputRequiredResult> {
  try {
    const m = client?.modern
    // a retry: the state must be one Toolgate minted for this credential's request, still waiting
    if (m && m.state !== undefined) {
      const s = m.state
      if (!isAccessAskState(s) || s.p !== m.principal || s.d < Date.now()) return refused(NOT_THIS)
      const asked = requests.queue.get(s.r)
      if (!asked || asked.agent !== who.agent) return refused(NOT_THIS)
      // answered at the client already: a replay. (Answered in the window first: the agent learns that answer below.)
      if (!requests.queue.isPending(s.r) && asked.answered_via === 'client')
        return refused(
          `REQUEST_DECLINED: this question was already answered (${asked.status}); an answer (requestState) counts once. Call request_access again without it to see where request ${asked.id} stands.`,
        )
    }
    // the state names the tool it asked about: another name is another request (checked before one is made)
    if (m && m.state !== undefined && (raw as { name?: unknown } | null)?.name !== (m.state as AccessAskState).n) return refused(NOT_THIS)
    const o = requests.open(who, scope, raw)
    if ('done' in o) return text(o.done)
    // what granting approves needs the window's review (or the question is gone): the window alone answers
    const choices = m || client?.ask ? requests.clientChoices(o.req.id) : null
    if (m && choices) {
      if (m.state === undefined) {
        const deadline = Math.min(Date.now() + ASK_STATE_TTL_S * 1000, Date.parse(o.req.created_at) + PENDING_TTL_MS)
        return await accessAskResult((st) => m.codec.mint(st), o.req, m.principal, choices, deadline)
      }
      const s = m.state as AccessAskState
      if (s.r !== o.req.id || s.n !== o.req.name) return refused(NOT_THIS)
      const answer = accessAnswerOf(m.response, choices.answers)
      // bound to what the person was shown: a launch or definition that changed since is refused (409 words)
      if (answer) await requests.answerFromClient(o.req.id, answer, s.h)
      return text(await requests.settle(o, 0, signal))
    }
    if (client?.ask && choices) {
      const asking = new AbortController()
      const waiting = new AbortController()
      const stop = (): void => waiting.abort()
      signal.addEventListener('abort', stop, { once: true })
      let failed: string | null = null
      void client
        .ask(o.req, choices.answers, asking.signal)
        .then(async (a) => {
          if (asking.signal.aborted) return
          if (a) await requests.answerFromClient(o.req.id, a, choices.hash)
          // dismissed: the agent did not ask to wait, so it need not wait for the window
          else if (o.waitS === 0) waiting.abort()
        })
        .catch((e: unknown) => {
          // the grant was refused (a launch or definition changed since the question): say why
          failed = e instanceof ApiError ? e.message : String(e)
          waiting.abort()
        })
      try {
        const r = await requests.settle(o, Math.max(o.waitS * 1000, ACCESS_CLIENT_WAIT_MS), waiting.signal)
        return failed ? refused(failed) : text(r)
      } finally {
        signal.removeEventListener('abort', stop)
        asking.abort()
      }
    }
    return text(await requests.settle(o, o.waitS * 1000, signal))
  } catch (e) {
    if (e instanceof ApiError) return refused(e.message)
    throw e
  }
}
