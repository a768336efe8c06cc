// Whether an agent may ask for a tool, and what stands in the way (docs/requests.md): the access decision
// (access/decide.ts) in the words request_access answers. Scope first (a tool out of scope does not
// exist for the agent), then the operator's and the organisation's locks (config lists, holds: not
// requestable), then the lock a user can lift. A tool on a quarantined or switched-off server may
// be one nobody has seen yet: the request then names the server, and granting opens the server.
import { remediationFor } from '../../../shared/statuses'
import { callWith } from '../../../shared/call-variant'
import type { RequestableStatus } from '../../../shared/requests'
import type { ToolRef } from '../../../shared/ids'
import type { Catalog, CatalogEntry } from '../catalog/catalog'
import { decideRef, unannotatedNote } from '../access/decide'
import type { Scope } from '../access/scope'

export type Evaluation =
  | { kind: 'error'; message: string }
  | { kind: 'callable'; entry: CatalogEntry }
  | { kind: 'not_requestable'; message: string }
  | { kind: 'requestable'; status: RequestableStatus; entry?: CatalogEntry }

export function evaluateRequest(catalog: Catalog, scope: Scope, ref: ToolRef): Evaluation {
  const a = decideRef(catalog, scope, ref)
  switch (a.kind) {
    case 'out_of_scope':
      return {
        kind: 'error',
        message:
          a.needs === undefined
            ? `${a.id} is not in scope for agent "${scope.agent}"; this agent may only use the servers the operator assigned to it, and cannot ask for others.`
            : `${a.id} is not in scope for agent "${scope.agent}": it needs ${callWith(a.needs)}, which this agent is not permitted to use; the operator assigns permissions, the user cannot grant them.${a.entry ? unannotatedNote(a.entry) : ''}`,
      }
    case 'unknown':
      return {
        kind: 'error',
        message:
          a.what === 'server'
            ? `unknown server "${a.server}" in "${a.id}"; use retrieve_tools with include_disabled:true to find locked tools and their names.`
            : `unknown tool "${a.tool}" on server "${a.server}"; use retrieve_tools with include_disabled:true to find the right tool name.`,
      }
    case 'blocked': {
      const r = a.request
      if (!r.requestable) return { kind: 'not_requestable', message: `${a.id}: ${remediationFor(r.why.status, r.why.operatorHold, r.why.organisation)}` }
      return { kind: 'requestable', status: r.status, ...(a.entry ? { entry: a.entry } : {}) }
    }
    case 'callable':
      return { kind: 'callable', entry: a.entry }
  }
}
