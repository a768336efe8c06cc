// The call gate's answer to an agent (docs/contract.md §3, §4): the access decision
// (access/decide.ts) in the words a call gets, and the variant check (call_tool_read cannot run a
// write tool). A call that fails here never reaches the upstream. A server that is off or
// quarantined answers TOOL_BLOCKED for every tool name, known or not.
import { blockedMessage } from '../../../shared/statuses'
import { callWith, variantRank, variantReason, type Variant } from '../../../shared/call-variant'
import type { BlockReason } from '../../../shared/activity'
import type { Catalog, CatalogEntry } from '../catalog/catalog'
import { decideAccess, unannotatedNote, type Access } from './decide'
import type { Scope } from './scope'

/**
 * `reason`: why a refusal is a block (a lock, or the agent's scope), for the activity record.
 * `unknownTool`: the server is known and not locked, but has no such tool (yet: a server waiting
 * for sign-in has listed nothing; the caller answers the sign-in sentence for it).
 */
export type GateResult =
  { ok: true; entry: CatalogEntry } | { ok: false; blocked: boolean; message: string; reason?: BlockReason; unknownTool?: { server: string } }

export function resolveTool(catalog: Catalog, scope: Scope, name: unknown): GateResult {
  return gateResult(decideAccess(catalog, scope, name), scope)
}

/** The decision as the call gate answers it. */
export function gateResult(a: Access, scope: Scope): GateResult {
  switch (a.kind) {
    case 'invalid':
      return { ok: false, blocked: false, message: a.message }
    case 'out_of_scope':
      return {
        ok: false,
        blocked: false,
        reason: 'out_of_scope',
        message:
          a.needs === undefined
            ? `${a.id} is not in scope for agent "${scope.agent}"; this agent may only use the servers the operator assigned to it.`
            : `${a.id} is not in scope for agent "${scope.agent}": it needs ${callWith(a.needs)}, which this agent is not permitted to use.${a.entry ? unannotatedNote(a.entry) : ''}`,
      }
    case 'unknown':
      return {
        ok: false,
        blocked: false,
        ...(a.what === 'tool' ? { unknownTool: { server: a.server } } : {}),
        message:
          a.what === 'server'
            ? `unknown server "${a.server}" in "${a.id}"; use retrieve_tools to find tools and their "server:tool" names.`
            : `unknown tool "${a.tool}" on server "${a.server}"; use retrieve_tools to find the right tool name.`,
      }
    case 'blocked':
      return { ok: false, blocked: true, reason: a.status, message: blockedMessage(a.status, a.operatorHold, a.organisation) }
    case 'callable':
      return { ok: true, entry: a.entry }
  }
}

/** Said after a refusal over the variant of a tool without hints: why it is destructive, and that only a person changes that. */

export function checkVariant(entry: CatalogEntry, used: Variant): string | null {
  if (variantRank(used) >= variantRank(entry.variant)) return null
  const why = variantReason({ variant: entry.variant, source: entry.variantSource }, entry.def.annotations)
  return `${entry.id} cannot be called with call_tool_${used}: ${why}. Call it with ${callWith(entry.variant)} instead.`
}
