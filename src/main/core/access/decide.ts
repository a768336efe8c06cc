// The one access decision: may this agent call this tool, and if not, why. Every surface asks it
// (the call gate, describe_tool, request_access, "Allow once", the confirm gate's second look,
// retrieve_tools, the Agents view's reach, prompts), so none can drift from the others. Order:
// the id → the agent's scope (servers) → the server exists → the tool's variant within the
// agent's permissions → the server's lock (off, quarantine: covers every name, known or not) →
// the tool is known → its status from the catalog's classify().
import { parseToolId, type ToolRef } from '../../../shared/ids'
import type { Variant } from '../../../shared/call-variant'
import { confirmRequirement, type ConfirmRequirement } from '../../../shared/confirmations'
import { organisationDenies } from '../../../shared/policy'
import { ONCE_STATUSES, isRequestable, type RequestableStatus } from '../../../shared/requests'
import type { LockStatus } from '../../../shared/statuses'
import type { ServerConfig } from '../../../shared/config-schema'
import type { Catalog, CatalogEntry } from '../catalog/catalog'
import type { PromptEntry } from '../catalog/prompts'
import { configDenies } from '../catalog/facts'
import type { Scope } from './scope'

/** A lock's status and whose it is: its remediation sentence is remediationFor(status, operatorHold, organisation). */
export interface LockWhy {
  status: LockStatus
  /** held in quarantine by the operator (or the organisation): the user cannot approve it */
  operatorHold: boolean
  /** set by the organisation's policy: nobody on this machine can change it */
  organisation: boolean
}

/** Whether request_access can ask the user to lift a lock: a status a grant opens, or the lock that no grant can change. */
export type Requestability = { requestable: true; status: RequestableStatus } | { requestable: false; why: LockWhy }

export type Access =
  /** the name is not a "server:tool" id */
  | { kind: 'invalid'; message: string }
  /**
   * Not for this agent: its server is not assigned to it (`needs` absent), or the tool needs a
   * permission (`needs`) the agent does not have. Out of scope, a tool does not exist for the agent.
   */
  | { kind: 'out_of_scope'; id: string; server: string; tool: string; needs?: Variant; entry?: CatalogEntry }
  /** no such server, or no such tool on a server that is not locked */
  | { kind: 'unknown'; id: string; server: string; tool: string; what: 'server' | 'tool' }
  /**
   * Locked: the whole server (`on: 'server'`, every name on it, known or not; `entry` when the tool
   * is known) or this tool (`on: 'tool'`). `once`: an "Allow once" pass can let one call through.
   */
  | ({
      kind: 'blocked'
      id: string
      server: string
      tool: string
      on: 'server' | 'tool'
      entry?: CatalogEntry
      request: Requestability
      once: boolean
    } & LockWhy)
  /** callable now; `confirm`: whether a call waits for the user's OK, and on whose word */
  | { kind: 'callable'; id: string; server: string; tool: string; entry: CatalogEntry; confirm: ConfirmRequirement }

/** May this agent call this tool (a "server:tool" id, as an agent sent it), and if not, why. */
export function decideAccess(catalog: Catalog, scope: Scope, name: unknown): Access {
  const ref = parseToolId(name)
  if ('error' in ref) return { kind: 'invalid', message: ref.error }
  return decideRef(catalog, scope, ref)
}

/** The decision for a parsed id (request_access parses it first, to name it in its answer). */
export function decideRef(catalog: Catalog, scope: Scope, ref: ToolRef): Exclude<Access, { kind: 'invalid' }> {
  const at = { id: `${ref.server}:${ref.tool}`, server: ref.server, tool: ref.tool }
  if (!scope.allowsServer(ref.server)) return { kind: 'out_of_scope', ...at }
  const cfg = catalog.serverConfig(ref.server)
  if (!cfg) return { kind: 'unknown', ...at, what: 'server' }
  const found = catalog.entry(at.id)
  // a hidden tool (denied by the config on a server in quarantine) is not known to agents
  const entry = found && !found.hidden ? found : undefined
  if (entry && !scope.allowsVariant(entry.variant)) return { kind: 'out_of_scope', ...at, needs: entry.variant, entry }
  const lock = catalog.serverLock(cfg)
  if (lock) return serverBlocked(at, lock, listedLock(ref.tool, cfg), entry)
  if (!entry) return { kind: 'unknown', ...at, what: 'tool' }
  return toolAccess(catalog, entry)
}

/**
 * The same decision for a tool the caller already holds (a search hit, a row of the Agents view):
 * what decideAccess answers for its id. A callable tool, or one locked on its own, is decided
 * from the catalog's status without parsing its id again; the rest takes the whole path.
 */
export function entryAccess(catalog: Catalog, scope: Scope, e: CatalogEntry): Exclude<Access, { kind: 'invalid' }> {
  if (e.hidden) return decideRef(catalog, scope, { server: e.server, tool: e.name })
  const at = { id: e.id, server: e.server, tool: e.name }
  if (!scope.allowsServer(e.server)) return { kind: 'out_of_scope', ...at }
  if (!scope.allowsVariant(e.variant)) return { kind: 'out_of_scope', ...at, needs: e.variant, entry: e }
  if (e.status === 'server_disabled' || e.status === 'server_quarantined') {
    // the server's lock, as the catalog classified it (an operator hold only holds a quarantine)
    const lock = { status: e.status, operatorHold: e.status === 'server_quarantined' && e.operatorHold, organisation: e.organisation }
    const cfg = catalog.serverConfig(e.server)
    return serverBlocked(at, lock, cfg ? listedLock(e.name, cfg) : null, e)
  }
  return toolAccess(catalog, e)
}

/** The config's or the organisation's lists deny this tool name: no grant opens it, whatever else holds it. */
function listedLock(tool: string, cfg: ServerConfig): LockWhy | null {
  if (organisationDenies(tool, cfg.organisation)) return { status: 'disabled_by_config', operatorHold: false, organisation: true }
  if (configDenies(tool, cfg)) return { status: 'disabled_by_config', operatorHold: false, organisation: false }
  return null
}

/** A tool name on a server that is off or in quarantine: requestable unless a list, the operator or the organisation holds it. */
function serverBlocked(
  at: { id: string; server: string; tool: string },
  lock: LockWhy & { status: 'server_disabled' | 'server_quarantined' },
  listed: LockWhy | null,
  entry: CatalogEntry | undefined,
): Extract<Access, { kind: 'blocked' }> {
  const fixed = listed ?? (lock.organisation || lock.operatorHold ? lock : null)
  const request: Requestability = fixed ? { requestable: false, why: fixed } : { requestable: true, status: lock.status }
  return { kind: 'blocked', ...at, on: 'server', ...(entry ? { entry } : {}), ...lock, request, once: false }
}

/** The last step, on a server in scope with no lock: the known tool's own status. */
function toolAccess(catalog: Catalog, e: CatalogEntry): Extract<Access, { kind: 'blocked' | 'callable' }> {
  const at = { id: e.id, server: e.server, tool: e.name }
  if (e.status === 'callable') return { kind: 'callable', ...at, entry: e, confirm: confirmationNeeded(catalog, e) }
  const why: LockWhy = { status: e.status, operatorHold: e.operatorHold, organisation: e.organisation }
  const request: Requestability = isRequestable(e.status) && !e.organisation ? { requestable: true, status: e.status } : { requestable: false, why }
  return { kind: 'blocked', ...at, on: 'tool', entry: e, ...why, request, once: ONCE_STATUSES.has(e.status) }
}

/** May this agent use this server for something that needs `needs` (reading its resources: read), and if not, why. */
export type ServerAccess =
  { kind: 'out_of_scope'; needs?: Variant } | { kind: 'unknown' } | ({ kind: 'blocked' } & LockWhy) | { kind: 'open'; server: ServerConfig }

/** The decision for a whole server (resources): the same steps as a tool's, without the tool. */
export function decideServer(catalog: Catalog, scope: Scope, server: string, needs: Variant): ServerAccess {
  if (!scope.allowsServer(server)) return { kind: 'out_of_scope' }
  const cfg = catalog.serverConfig(server)
  if (!cfg) return { kind: 'unknown' }
  if (!scope.allowsVariant(needs)) return { kind: 'out_of_scope', needs }
  const lock = catalog.serverLock(cfg)
  return lock ? { kind: 'blocked', ...lock } : { kind: 'open', server: cfg }
}

/** Does a call of this tool wait for the user's OK, and on whose word (the config's rule, the user's switch)? */
export function confirmationNeeded(catalog: Catalog, e: CatalogEntry): ConfirmRequirement {
  const cfg = catalog.serverConfig(e.server)
  const state = catalog.store.current
  const user = { server: state.servers[e.server]?.confirm === true, tool: state.tools[e.id]?.confirm === true }
  return confirmRequirement(cfg ?? {}, user, e.name, e.variant)
}

/** The same question for a prompt (named as agents see it, `<server>__<prompt>`): prompts have no variant, only a status. */
export type PromptAccess =
  | { kind: 'out_of_scope'; entry: PromptEntry }
  | { kind: 'unknown' }
  | { kind: 'blocked'; entry: PromptEntry; status: LockStatus }
  | { kind: 'callable'; entry: PromptEntry }

export function decidePrompt(catalog: Catalog, scope: Scope, agentName: string): PromptAccess {
  // named within the agent's scope (a prompt out of it has no name for this agent)
  const e = catalog.prompts.byAgentName(agentName, (s) => scope.allowsServer(s))
  return e ? promptEntryAccess(scope, e) : { kind: 'unknown' }
}

/** decidePrompt for a prompt the caller already holds (prompts/list). */
export function promptEntryAccess(scope: Scope, e: PromptEntry): PromptAccess {
  if (!scope.allowsServer(e.server)) return { kind: 'out_of_scope', entry: e }
  return e.status === 'callable' ? { kind: 'callable', entry: e } : { kind: 'blocked', entry: e, status: e.status }
}

/** A tool the agent may know of: callable, or locked and shown with its status (a hidden tool is not). */
export function isKnown(a: Access): a is Extract<Access, { kind: 'callable' }> | (Extract<Access, { kind: 'blocked' }> & { entry: CatalogEntry }) {
  return a.kind === 'callable' || (a.kind === 'blocked' && a.entry !== undefined)
}

/** Why an unannotated tool needs the destructive permission: worded once for the call gate and request_access. */
export function unannotatedNote(entry: CatalogEntry): string {
  return entry.variantSource === 'no_annotations'
    ? " Its server gives no annotations, so it is treated as destructive (the MCP spec's defaults); only the user can classify it, an agent cannot."
    : ''
}
