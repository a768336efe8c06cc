// The one gate every call to an upstream tool passes (docs/contract.md §3, §4): id → scope → server
// lock → status → variant. A call that fails here never reaches the upstream. A server that is
// off or quarantined answers TOOL_BLOCKED for every tool name, known or not (issue 11 §1).
import { blockedMessage } from '../../../shared/statuses'
import { callWith, variantRank, variantReason, type Variant } from '../../../shared/call-variant'
import { parseToolId } from '../../../shared/ids'
import type { BlockReason } from '../../../shared/activity'
import type { Catalog, CatalogEntry } from '../catalog/catalog'
import type { Scope } from './scope'

/**
 * `reason`: why a refusal is a block (a lock, or the agent's scope), for the activity record.
 * `unknownTool`: the server is known and not locked, but has no such tool (yet: a server waiting
 * for sign-in has listed nothing; the caller answers the sign-in sentence for it).
 */
export type GateResult =
  { ok: true; entry: CatalogEntry } | { ok: false; blocked: boolean; message: string; reason?: BlockReason; unknownTool?: { server: string } }

export function resolveTool(catalog: Catalog, scope: Scope, name: unknown): GateResult {
  const ref = parseToolId(name)
  if ('error' in ref) return { ok: false, blocked: false, message: ref.error }
  const id = `${ref.server}:${ref.tool}`
  if (!scope.allowsServer(ref.server)) {
    return {
      ok: false,
      blocked: false,
      reason: 'out_of_scope',
      message: `${id} is not in scope for agent "${scope.agent}"; this agent may only use the servers the operator assigned to it.`,
    }
  }
  const server = catalog.serverConfig(ref.server)
  if (!server) {
    return { ok: false, blocked: false, message: `unknown server "${ref.server}" in "${id}"; use retrieve_tools to find tools and their "server:tool" names.` }
  }
  const found = catalog.entry(id)
  const entry = found && !found.hidden ? found : undefined
  if (entry && !scope.allows(entry)) {
    return {
      ok: false,
      blocked: false,
      reason: 'out_of_scope',
      message: `${id} is not in scope for agent "${scope.agent}": it needs ${callWith(entry.variant)}, which this agent is not permitted to use.${unannotatedNote(entry)}`,
    }
  }
  const lock = catalog.serverLock(server)
  if (lock) return { ok: false, blocked: true, reason: lock.status, message: blockedMessage(lock.status, lock.operatorHold, lock.organisation) }
  if (!entry) {
    return {
      ok: false,
      blocked: false,
      unknownTool: { server: ref.server },
      message: `unknown tool "${ref.tool}" on server "${ref.server}"; use retrieve_tools to find the right tool name.`,
    }
  }
  if (entry.status !== 'callable')
    return { ok: false, blocked: true, reason: entry.status, message: blockedMessage(entry.status, entry.operatorHold, entry.organisation) }
  return { ok: true, entry }
}

/** Said after a refusal over the variant of a tool without hints: why it is destructive, and that only a person changes that. */
export function unannotatedNote(entry: CatalogEntry): string {
  return entry.variantSource === 'no_annotations'
    ? " Its server gives no annotations, so it is treated as destructive (the MCP spec's defaults); only the user can classify it, an agent cannot."
    : ''
}

export function checkVariant(entry: CatalogEntry, used: Variant): string | null {
  if (variantRank(used) >= variantRank(entry.variant)) return null
  const why = variantReason({ variant: entry.variant, source: entry.variantSource }, entry.def.annotations)
  return `${entry.id} cannot be called with call_tool_${used}: ${why}. Call it with ${callWith(entry.variant)} instead.`
}
