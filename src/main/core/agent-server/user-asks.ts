// The user's say on an upstream's requests during one call (docs/passthrough.md), in front of the
// agent's client (relay-asks.ts):
// - an elicitation the agent's client cannot show (it did not declare it, or there is no client)
//   is asked by Toolgate itself in the window, tray, CLI and API (requests/questions.ts), labelled
//   with the server's configured name; no answer in time is "cancel";
// - a sampling request of a server set to `sampling: "ask"` waits in the confirmations queue
//   (kind "sampling") and reaches the agent's client only when the user allows it; a denial, no
//   answer in time or the call ending answer the server with the reason.
import { randomUUID } from 'node:crypto'
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server'
import type { Variant } from '../../../shared/call-variant'
import type { CatalogEntry } from '../catalog/catalog'
import type { ActivityRecorder, Who } from '../activity/recorder'
import { urlHost } from '../../../shared/questions'
import type { CallConfirmations } from '../requests/confirmations'
import { QuestionRefused, type UserQuestions } from '../requests/questions'
import type { AskAbout, AskMethod, CallAsker } from '../upstream/server-requests'

export interface UserAsksDeps {
  questions?: UserQuestions
  confirmations?: CallConfirmations
  activity?: ActivityRecorder
}

/**
 * An elicitation answered in the agent's own client, on the record like one answered in Toolgate:
 * the action, and for accept of a form the names of the fields of the requested schema that the
 * answer filled (never the values; a name the schema does not have is not recorded).
 */
function recordClientAnswer(
  activity: ActivityRecorder | undefined,
  who: Who,
  entry: CatalogEntry,
  server: string,
  params: Record<string, unknown>,
  answer: Record<string, unknown>,
): void {
  const action = answer.action
  if (!activity || (action !== 'accept' && action !== 'decline' && action !== 'cancel')) return
  const mode = params.mode === 'url' ? 'url' : 'form'
  const schema = params.requestedSchema as { properties?: unknown } | undefined
  const names = schema && typeof schema.properties === 'object' && schema.properties !== null ? Object.keys(schema.properties) : []
  const content = typeof answer.content === 'object' && answer.content !== null ? (answer.content as Record<string, unknown>) : {}
  const host = mode === 'url' && typeof params.url === 'string' ? urlHost(params.url) : null
  activity.decision({ by: 'user', via: 'client' }, who, {
    action,
    server,
    tool: entry.name,
    message: `The agent's client answered the question of server "${server}": ${action}.`,
    question: {
      mode,
      asked_in: 'client',
      ...(action === 'accept' && mode === 'form' ? { fields: names.filter((n) => Object.hasOwn(content, n)) } : {}),
      ...(host ? { url_host: host } : {}),
    },
  })
}

const refuse = (message: string): ProtocolError => new ProtocolError(ProtocolErrorCode.InvalidRequest, message)

/** The asker of one call with the user in front: `inner` is the agent's client (absent: there is none to ask). */
export function withUser(inner: CallAsker | undefined, deps: UserAsksDeps, who: Who, entry: CatalogEntry, variant: Variant): CallAsker {
  const owner = inner?.owner ?? `call:${randomUUID()}`
  const takes = (method: AskMethod, params: Record<string, unknown>): boolean => inner?.takes(method, params) ?? false
  const toClient = (method: AskMethod, params: Record<string, unknown>, signal: AbortSignal, about?: AskAbout): Promise<Record<string, unknown>> => {
    if (!inner)
      return Promise.reject(refuse(`the caller of this call to server "${entry.server}" cannot be asked (it is not an agent's MCP session); nobody was asked.`))
    return inner.ask(method, params, signal, about)
  }
  return {
    owner,
    takes,
    ask: async (method, params, signal, about) => {
      if (method === 'elicitation/create') {
        if (takes(method, params) || !deps.questions || !about) {
          const answer = await toClient(method, params, signal, about)
          recordClientAnswer(deps.activity, who, entry, about?.server ?? entry.server, params, answer)
          return answer
        }
        try {
          const answer = await deps.questions.ask({ server: about.server, agent: who.agent, client: who.client, tool: entry.id, params: about.plain }, signal)
          return answer as Record<string, unknown>
        } catch (e) {
          if (e instanceof QuestionRefused) throw refuse(e.message)
          throw e
        }
      }
      // sampling: never asks the user about a request the agent's client could not carry out anyway
      if (!about?.confirmFirst || !takes(method, params)) return toClient(method, params, signal, about)
      if (!deps.confirmations)
        throw refuse(`server "${about.server}" is set to "sampling": "ask", and this Toolgate has no one to ask; the user's model was not used.`)
      const r = await deps.confirmations.confirmSampling(who, entry, variant, about.plain, signal)
      if (!r.go) throw refuse(r.text)
      return toClient(method, params, signal, about)
    },
  }
}
