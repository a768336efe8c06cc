// How a server looks from outside: its state, counts and target, for the control API, the UI
// and `upstream_servers`. Counts come from the catalog's classified entries only; the connection
// state from the upstream manager's ConnectionStates.
import type { ServerInfo, StatusCounts } from '../../../shared/api'
import type { ServerAuthSummary } from '../../../shared/auth-status'
import type { ServerConfig, SkippedServer } from '../../../shared/config-schema'
import { signInMessage, type ServerState } from '../../../shared/statuses'
import { Catalog } from '../catalog/catalog'
import type { Scope } from '../access/scope'
import { entryAccess, isKnown } from '../access/decide'
import { describeLaunch, describeTarget } from '../masking/target'
import type { ConnectionStates } from '../upstream/states'
import { isolationOf } from '../upstream/sandbox'
import { timedGrantOf } from '../state/grant-undo'
import { serverConfirmInfo } from '../requests/confirm-switch'
import { ADMIN_SESSION } from '../access/server-changes'
import { ORGANISATION } from '../../../shared/policy'
import { blockedText } from '../config/policy'
import { idleStopSeconds, lifecycleOf } from '../../../shared/lifecycle'

export function serverState(catalog: Catalog, connections: ConnectionStates, s: ServerConfig): ServerState {
  if (!s.enabled) return 'disabled'
  if (catalog.quarantineOf(s) !== null) return 'quarantined'
  return connections.of(s.name).state
}

function lastError(catalog: Catalog, connections: ConnectionStates, s: ServerConfig): string | null {
  // why the organisation's policy keeps it off: on every surface, agents' included
  if (s.organisation?.blocked) return blockedText(s.organisation.blocked)
  if (!s.enabled || catalog.quarantineOf(s) !== null) return null
  const rt = connections.of(s.name)
  if (rt.state === 'connecting' && rt.attempt > 0 && rt.lastError) return `${rt.lastError} (reconnecting, attempt ${rt.attempt})`
  return rt.lastError
}

export function protocolOf(s: ServerConfig): string {
  if (s.protocol !== 'auto') return s.protocol
  return s.command ? 'stdio' : 'http'
}

export function serverInfo(
  catalog: Catalog,
  connections: ConnectionStates,
  s: ServerConfig,
  authOf: (s: ServerConfig) => ServerAuthSummary | undefined = () => undefined,
): ServerInfo {
  const q = catalog.quarantineOf(s)
  const grant = timedGrantOf(catalog.store.current, s.name)
  const auth = authOf(s)
  const added = catalog.store.current.servers[s.name]?.added_by_agent
  return {
    name: s.name,
    protocol: protocolOf(s),
    protocol_version: connections.of(s.name).protocolVersion ?? null,
    enabled: s.enabled,
    quarantined: q !== null,
    ...(q ? { quarantine_source: q } : {}),
    state: serverState(catalog, connections, s),
    last_error: lastError(catalog, connections, s),
    counts: Catalog.counts(catalog.entries(s.name), true),
    prompt_counts: Catalog.counts(catalog.prompts.entries(s.name), true),
    template_counts: Catalog.counts(catalog.templates.entries(s.name), true),
    trust: s.trust,
    target: describeTarget(s),
    launch: describeLaunch(s),
    launch_hash: catalog.launchHash(s),
    config_policy: Boolean(s.enabled_tools || s.disabled_tools),
    isolation: isolationOf(s),
    ...(grant ? { grant } : {}),
    ...(auth ? { auth } : {}),
    confirm: serverConfirmInfo(catalog, s),
    ...(added ? { added_by: { agent: added.agent === ADMIN_SESSION ? null : added.agent, client: added.client ?? null } } : {}),
    ...(s.organisation
      ? {
          policy: ORGANISATION,
          organisation: { fields: [...s.organisation.fields], ...(s.organisation.blocked ? { blocked: blockedText(s.organisation.blocked) } : {}) },
        }
      : {}),
    ...lifecycleView(catalog, connections, s),
  }
}

/** When the server runs: its lifecycle, whether the next use starts it, when idleness stops it, whether it ever listed its tools. */
function lifecycleView(
  catalog: Catalog,
  connections: ConnectionStates,
  s: ServerConfig,
): Pick<ServerInfo, 'lifecycle' | 'idle_stop_s' | 'starts_on_demand' | 'idle_stop_at' | 'has_run'> {
  const rt = connections.of(s.name)
  const state = serverState(catalog, connections, s)
  return {
    lifecycle: lifecycleOf(s),
    idle_stop_s: idleStopSeconds(catalog.currentConfig, s),
    ...(startsOnDemand(state, s) ? { starts_on_demand: true as const } : {}),
    ...(state === 'connected' && rt.idleStopAt ? { idle_stop_at: new Date(rt.idleStopAt).toISOString() } : {}),
    has_run: catalog.liveSource(s.name) === 'upstream',
  }
}

/** docs/contract.md §8: a stopped server that its next use starts. */
function startsOnDemand(state: ServerState, s: ServerConfig): boolean {
  return state === 'stopped' && lifecycleOf(s) === 'on_demand'
}

/** The `upstream_servers` entry (docs/contract.md §3): keys in contract order, `tools` only when something is locked. */
export function agentServerEntry(catalog: Catalog, connections: ConnectionStates, s: ServerConfig, scope: Scope): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    name: s.name,
    protocol: protocolOf(s),
    enabled: s.enabled,
    quarantined: catalog.quarantineOf(s) !== null,
    state: serverState(catalog, connections, s),
  }
  // an agent learns that a sign-in is needed, never why (the authorization server's answer is for the user)
  const err = entry.state === 'needs_auth' ? signInMessage(s.name) : lastError(catalog, connections, s)
  if (err) entry.last_error = err
  const visible = catalog.entries(s.name).filter((e) => isKnown(entryAccess(catalog, scope, e)))
  const counts: StatusCounts = Catalog.counts(visible)
  if (visible.some((e) => e.status !== 'callable')) entry.tools = counts
  // after the contract's keys: a stopped server its next use starts, one that never listed its tools
  if (startsOnDemand(entry.state as ServerState, s)) entry.starts_on_demand = true
  if (s.enabled && catalog.quarantineOf(s) === null && catalog.liveSource(s.name) !== 'upstream') entry.has_run = false
  // whether the server runs isolated, and why not
  const iso = isolationOf(s)
  entry.isolation = iso.isolated ? { isolated: true } : { isolated: false, reason: iso.reason }
  // the MCP protocol version the server speaks (docs/contract.md §8), null before it ever connected
  entry.protocol_version = connections.of(s.name).protocolVersion ?? null
  if (s.organisation) entry.policy = ORGANISATION
  return entry
}

/**
 * The `upstream_servers` entry of a server left out of the running config because its entry has a
 * mistake: state `error`, and the mistake in `last_error`, so the agent can tell the user what to fix.
 */
export function skippedServerEntry(s: SkippedServer): Record<string, unknown> {
  return {
    name: s.name,
    protocol: s.protocol,
    enabled: s.enabled,
    quarantined: false,
    state: 'error',
    last_error: `not running: its entry in the Toolgate config has a mistake (at ${s.path}: ${s.problem}); ask the operator to fix mcp_config.json`,
  }
}
