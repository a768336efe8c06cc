// Wires the pending human decisions for one core (or one test world): access requests, the grant
// keeper and the confirmations of risky calls share the catalog, the config writer and the
// control API's event stream.
import type { ApiEvent } from '../../../shared/api'
import type { AccessRequest } from '../../../shared/requests'
import type { Catalog } from '../catalog/catalog'
import type { Logger } from '../log'
import type { Scope } from '../access/scope'
import { GrantKeeper, type GrantEnd } from '../grants/keeper'
import { AccessRequests } from './access'
import { CallConfirmations } from './confirmations'
import { UserQuestions } from './questions'
import type { Confirmation } from '../../../shared/confirmations'
import type { Question } from '../../../shared/questions'

export { AccessRequests, MAX_PENDING_PER_AGENT, DENY_COOLDOWN_MS, type Asker, type AskResult } from './access'
export { GrantKeeper, ONCE_PASS_TTL_MS } from '../grants/keeper'
export { CallConfirmations, MAX_CONFIRMATIONS_PER_AGENT, MAX_CONFIRMATIONS_TOTAL } from './confirmations'
export { UserQuestions, MAX_QUESTIONS_PER_AGENT, MAX_QUESTIONS_TOTAL } from './questions'

export interface RequestsSetup {
  keeper: GrantKeeper
  requests: AccessRequests
  confirmations: CallConfirmations
  questions: UserQuestions
}

export function setupRequests(o: {
  catalog: Catalog
  configPath: string
  reloadConfig(): void
  syncUpstreams(): void
  emit(ev: ApiEvent): void
  logger: Logger
  scopeFor(agent: string | null): Scope
  /** a grant ended or a once pass was used (activity record) */
  onEnd?(end: GrantEnd, why: 'expired' | 'used'): void
  /** the user answered a request (activity record) */
  onAnswered?(req: AccessRequest, message: string): void
  /** the person at the agent's own client answered a request (ask_in_client; activity record) */
  onClientAnswer?(req: AccessRequest, action: 'grant' | 'deny', message: string): void
  /** a confirmation of a call ended: allowed, denied, timed out or cancelled (activity record) */
  onConfirmation?(c: Confirmation): void
  /** a server's question ended: answered, timed out or withdrawn (activity record) */
  onQuestion?(q: Question): void
}): RequestsSetup {
  const config = { path: o.configPath, reload: () => o.reloadConfig() }
  const keeper = new GrantKeeper({
    catalog: o.catalog,
    config,
    syncUpstreams: () => o.syncUpstreams(),
    logger: o.logger,
    onEnd: (end, why) => {
      o.logger.info({ grant: end.grant.id, server: end.grant.server, tool: end.grant.tool }, end.message)
      o.emit({
        type: 'grant.ended',
        data: { id: end.grant.id, server: end.grant.server, ...(end.grant.tool ? { tool: end.grant.tool } : {}), why, message: end.message },
      })
      if (end.grant.request_id) o.emit({ type: 'requests.changed', data: { id: end.grant.request_id, status: 'granted' } })
      o.onEnd?.(end, why)
    },
  })
  const requests = new AccessRequests({
    catalog: o.catalog,
    config,
    syncUpstreams: () => o.syncUpstreams(),
    keeper,
    scopeFor: o.scopeFor,
    emit: (data) => o.emit({ type: 'requests.changed', data }),
    ...(o.onAnswered ? { onAnswered: o.onAnswered } : {}),
    ...(o.onClientAnswer ? { onClientAnswer: o.onClientAnswer } : {}),
  })
  const confirmations = new CallConfirmations({
    catalog: o.catalog,
    emit: (data) => o.emit({ type: 'confirmations.changed', data }),
    changed: (server) => {
      o.emit({ type: 'servers.changed', data: { servers: [server] } })
      o.emit({ type: 'tools.changed', data: { servers: [server] } })
    },
    onSettled: (c) => {
      o.logger.info({ confirmation: c.id, tool: c.tool, agent: c.agent, status: c.status, via: c.answered_via }, `confirmation ${c.status}`)
      o.onConfirmation?.(c)
    },
  })
  // upstream questions the agent's client cannot show: asked in the window, as long as a call's confirmation waits
  const questions = new UserQuestions({
    timeoutS: (server) => confirmations.timeoutS(server),
    emit: (data) => o.emit({ type: 'question', data }),
    onSettled: (q) => {
      o.logger.info({ question: q.id, server: q.server, agent: q.agent, status: q.status, via: q.answered_via }, `question ${q.status}`)
      o.onQuestion?.(q)
    },
  })
  return { keeper, requests, confirmations, questions }
}
