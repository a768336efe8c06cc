// The user's answers to what agents wait on (an access request, a call waiting for an OK, a server's question), put on
// the activity record under the agent that asked (its `?agent=` and its recent activity), from
// where the answer came (window, tray, CLI, web UI, API).
import type { DecisionOrigin, QuestionRecord } from '../../../shared/activity'
import type { ConfirmationActionResult, RequestActionResult } from '../../../shared/api'
import { CONFIRM_VIA, type Confirmation, type ConfirmVia } from '../../../shared/confirmations'
import type { AccessRequest } from '../../../shared/requests'
import type { Question, QuestionAction, QuestionActionResult } from '../../../shared/questions'
import type { ActivityRecorder } from '../activity/recorder'
import { shownDefaults } from '../../../shared/elicit-form'

/** An answer to an agent's access request, on the record. */
export function requestAnswered(
  activity: ActivityRecorder,
  origin: DecisionOrigin,
  action: 'grant' | 'deny',
  r: { request: AccessRequest; message: string },
): RequestActionResult {
  const q = r.request
  activity.decision(origin, { agent: q.agent, client: q.client }, { action, server: q.server, tool: q.tool, message: r.message })
  return { ok: true, ...r }
}

/** Where an answer comes from, as a confirmation and the activity record name it: anything else is the API. */
export function confirmViaOf(origin: DecisionOrigin): ConfirmVia {
  const v = origin.via
  return (CONFIRM_VIA as readonly string[]).includes(v) ? (v as ConfirmVia) : 'api'
}

/** The answer to a waiting call, on the record (the call itself is recorded by the call path). */
export function confirmationAnswered(
  activity: ActivityRecorder,
  origin: DecisionOrigin,
  action: 'allow' | 'deny',
  r: { confirmation: Confirmation; message: string },
): ConfirmationActionResult {
  const c = r.confirmation
  activity.decision(
    origin,
    { agent: c.agent, client: c.client },
    { action, server: c.server, tool: c.tool.slice(c.server.length + 1), message: r.message, args_hmac: c.args_hmac },
  )
  return { ok: true, ...r }
}

/** What the record keeps of a question asked in Toolgate: its id, mode, the URL's host, and (accept of a form) the names of the fields sent, never their values. */
export function questionRecordOf(q: Question, sent?: Record<string, unknown>): QuestionRecord {
  return {
    id: q.id,
    mode: q.mode,
    asked_in: 'toolgate',
    ...(sent ? { fields: (q.fields ?? []).map((f) => f.name).filter((n) => Object.hasOwn(sent, n)) } : {}),
    ...(q.url_host !== undefined ? { url_host: q.url_host } : {}),
  }
}

/** The user's answer to a server's question asked in Toolgate, on the record under the agent whose call it belongs to. */
export function questionAnswered(
  activity: ActivityRecorder,
  origin: DecisionOrigin,
  action: QuestionAction,
  content: Record<string, unknown> | undefined,
  r: { question: Question; message: string },
): QuestionActionResult {
  const q = r.question
  activity.decision(
    origin,
    { agent: q.agent, client: q.client },
    {
      action,
      server: q.server,
      tool: q.tool.slice(q.server.length + 1),
      message: r.message,
      question: questionRecordOf(q, action === 'accept' && q.mode === 'form' ? (content ?? shownDefaults(q.fields ?? [])) : undefined),
    },
  )
  return { ok: true, ...r }
}
