// Access requests in the agent's own client: a request_access for a locked tool
// can be answered by the person at the agent's client, for an agent whose ask_in_client switch is
// on and a client that shows forms, with the window's choices (Allow once where a single call can
// pass the lock, for 1 hour, always, Deny). The window stays; whichever answers first wins.
// - 2025 session: an elicitation/create while request_access waits, withdrawn when the window answers.
// - 2026-07-28: request_access answers input_required with the question and a requestState signed
//   like a confirmation's (in-client.ts), naming the request, the credential that asked, the tool
//   asked for, the hash of what the person is shown (a launch or a definition) and a deadline: a
//   client cannot use it for another request, another credential or twice, and a launch or
//   definition that changed since the question is refused, as from the window.
import { inputRequired, type ElicitRequestFormParams, type InputRequiredResult } from '@modelcontextprotocol/server'
import type { AccessRequest } from '../../../shared/requests'
import { CLIENT_ANSWERS, type ClientAnswer } from '../requests/access'

/** What an access question's requestState says (signed; readable by the client, so nothing secret). */
export interface AccessAskState {
  v: 1
  k: 'access'
  /** the request */
  r: string
  /** the credential the question was asked for */
  p: string
  /** the tool asked for ("server:tool", as the request names it) */
  n: string
  /** the hash of what the person is shown: the launch or the definition their grant is bound to */
  h?: string
  /** until when an answer counts (ms since the epoch) */
  d: number
}

/** Is this an access question's payload (after the codec verified the signature and the expiry)? */
export function isAccessAskState(v: unknown): v is AccessAskState {
  const s = v as Partial<AccessAskState> | null
  return (
    typeof s === 'object' &&
    s !== null &&
    s.v === 1 &&
    s.k === 'access' &&
    typeof s.r === 'string' &&
    typeof s.p === 'string' &&
    typeof s.n === 'string' &&
    (s.h === undefined || typeof s.h === 'string') &&
    typeof s.d === 'number'
  )
}

/** The key of the question in inputRequests / inputResponses. */
export const ACCESS_KEY = 'toolgate_access'

/** How long a question in the client may keep request_access waiting (the longest wait_s). */
export const ACCESS_CLIENT_WAIT_MS = 120_000

const LABELS: Record<ClientAnswer, string> = { once: 'Allow once', '1h': 'Allow for 1 hour', always: 'Allow always', deny: 'Deny' }

/** The form: one choice among the answers that apply. */
export function accessSchema(answers: readonly ClientAnswer[]): ElicitRequestFormParams['requestedSchema'] {
  return {
    type: 'object',
    properties: {
      answer: {
        type: 'string',
        title: 'Your answer',
        oneOf: answers.map((a) => ({ const: a, title: LABELS[a] })),
      },
    },
    required: ['answer'],
  }
}

/** The question, for a person: who, which tool, why it is locked, the agent's reason (made safe when it came in). */
export function accessMessage(req: AccessRequest): string {
  const who = req.agent !== null ? `Agent "${req.agent}"` : 'This client'
  return (
    `Toolgate asks: ${who} asks for access to ${req.name}, which is locked (${req.lock.replace(/_/g, ' ')}). Its reason: "${req.reason}". ` +
    `You can also answer in the Toolgate window; the first answer counts.`
  )
}

/** The person's answer in an elicitation result: one of the offered answers, deny on decline, none when dismissed or malformed. */
export function accessAnswerOf(result: unknown, answers: readonly ClientAnswer[]): ClientAnswer | null {
  const r = result as { action?: unknown; content?: { answer?: unknown } } | null
  if (typeof r !== 'object' || r === null) return null
  if (r.action === 'decline') return 'deny'
  if (r.action !== 'accept') return null
  const a = r.content?.answer
  return typeof a === 'string' && (CLIENT_ANSWERS as readonly string[]).includes(a) && answers.includes(a as ClientAnswer) ? (a as ClientAnswer) : null
}

/** The 2026-07-28 answer that asks: the question, and the signed state of this request. */
export async function accessAskResult(
  mint: (s: AccessAskState) => Promise<string>,
  req: AccessRequest,
  principal: string,
  choices: { answers: ClientAnswer[]; hash?: string },
  deadline: number,
): Promise<InputRequiredResult> {
  const state: AccessAskState = { v: 1, k: 'access', r: req.id, p: principal, n: req.name, ...(choices.hash ? { h: choices.hash } : {}), d: deadline }
  return inputRequired({
    inputRequests: { [ACCESS_KEY]: inputRequired.elicit({ message: accessMessage(req), requestedSchema: accessSchema(choices.answers) }) },
    requestState: await mint(state),
  })
}
