// Whether an agent may ask for a tool, and what stands in the way (issue 15): the same facts the
// call gate uses, read for a request. Scope first (a tool out of scope does not exist for the
// agent), then the operator's locks (config lists, operator hold: not requestable), then the
// lock a user can lift. A tool on a quarantined or switched-off server may be one nobody has
// seen yet: the request then names the server, and granting opens the server.
import { OPERATOR_HOLD_REMEDIATION, REMEDIATION, remediationFor } from '../../../shared/statuses'
import { organisationDenies } from '../../../shared/policy'
import { callWith } from '../../../shared/call-variant'
import { isRequestable, type RequestableStatus } from '../../../shared/requests'
import type { ToolRef } from '../../../shared/ids'
import type { Catalog, CatalogEntry } from '../catalog/catalog'
import { configDenies } from '../catalog/facts'
import type { Scope } from '../agent/scope'
import { unannotatedNote } from '../agent/call-gate'

export type Evaluation =
  | { kind: 'error'; message: string }
  | { kind: 'callable'; entry: CatalogEntry }
  | { kind: 'not_requestable'; message: string }
  | { kind: 'requestable'; status: RequestableStatus; entry?: CatalogEntry }

export function evaluateRequest(catalog: Catalog, scope: Scope, ref: ToolRef): Evaluation {
  const id = `${ref.server}:${ref.tool}`
  if (!scope.allowsServer(ref.server)) {
    return {
      kind: 'error',
      message: `${id} is not in scope for agent "${scope.agent}"; this agent may only use the servers the operator assigned to it, and cannot ask for others.`,
    }
  }
  const cfg = catalog.serverConfig(ref.server)
  if (!cfg)
    return {
      kind: 'error',
      message: `unknown server "${ref.server}" in "${id}"; use retrieve_tools with include_disabled:true to find locked tools and their names.`,
    }
  const found = catalog.entry(id)
  const entry = found && !found.hidden ? found : undefined
  if (entry && !scope.allows(entry)) {
    return {
      kind: 'error',
      message: `${id} is not in scope for agent "${scope.agent}": it needs ${callWith(entry.variant)}, which this agent is not permitted to use; the operator assigns permissions, the user cannot grant them.${unannotatedNote(entry)}`,
    }
  }
  if (organisationDenies(ref.tool, cfg.organisation)) return { kind: 'not_requestable', message: `${id}: ${remediationFor('disabled_by_config', false, true)}` }
  if (configDenies(ref.tool, cfg)) return { kind: 'not_requestable', message: `${id}: ${REMEDIATION.disabled_by_config}` }
  const lock = catalog.serverLock(cfg)
  // what the organisation's policy decides (a blocked server, its quarantine hold) no grant can change
  if (lock?.organisation) return { kind: 'not_requestable', message: `${id}: ${remediationFor(lock.status, lock.operatorHold, true)}` }
  if (lock?.operatorHold) return { kind: 'not_requestable', message: `${id}: ${OPERATOR_HOLD_REMEDIATION}` }
  if (lock) return { kind: 'requestable', status: lock.status, ...(entry ? { entry } : {}) }
  if (!entry)
    return {
      kind: 'error',
      message: `unknown tool "${ref.tool}" on server "${ref.server}"; use retrieve_tools with include_disabled:true to find the right tool name.`,
    }
  if (entry.status === 'callable') return { kind: 'callable', entry }
  if (!isRequestable(entry.status)) return { kind: 'not_requestable', message: `${id}: ${REMEDIATION.disabled_by_config}` }
  return { kind: 'requestable', status: entry.status, entry }
}
