// Who may change which server through `upstream_servers`. Changing anything
// needs write permission (a read-only agent may not even add). An agent may remove only a server
// that agents added, that still holds exactly what the agent gave, and that carries no operator
// policy; everything else in the entry (quarantined, trust, enabled_tools, disabled_tools, env,
// cwd, headers, confirm, …) is the operator's and is never removed, replaced or loosened by an agent.
import { POLICY_FIELDS } from '../../../shared/server-entry'
import { canonicalJson } from '../state/hash'
import type { Catalog } from '../catalog/catalog'
import { readServerEntry } from '../config/write'
import type { Scope } from './scope'

/** `added_by_agent.agent` of a server added by a session without an agent (the admin key). */
export const ADMIN_SESSION = '(admin)'

/** What an agent may give when it adds a server. */
export const AGENT_FIELDS = ['name', 'command', 'args', 'url', 'protocol'] as const
/** Keys of an agent-added entry that agents and the user toggle without making it the operator's. */
const NEUTRAL = new Set<string>([...AGENT_FIELDS, 'enabled'])

export function canChangeServers(scope: Scope): boolean {
  return scope.allowsVariant('write') || scope.allowsVariant('destructive')
}

export function readOnlyRefusal(scope: Scope, operation: string): string {
  return `agent "${scope.agent}" is read-only (no write permission): it may list and get servers but not ${operation} them. Ask the user.`
}

/** The agent-settable part of an entry, canonical, to recognise it later. */
export function agentEntryKey(entry: Record<string, unknown>): string {
  const picked: Record<string, unknown> = {}
  for (const k of AGENT_FIELDS) if (k !== 'name' && entry[k] !== undefined) picked[k] = entry[k]
  return canonicalJson(picked)
}

/** Why an agent may not remove `name`, or null when it may. */
export function removalRefusal(catalog: Catalog, configPath: string, name: string): string | null {
  const raw = readServerEntry(configPath, name) ?? {}
  const policy = Object.keys(raw).filter((k) => (POLICY_FIELDS as readonly string[]).includes(k))
  if (policy.length > 0) {
    return `"${name}" carries operator policy (${policy.join(', ')} in the config): only the operator can remove, replace or loosen it. Ask the user.`
  }
  const added = catalog.store.current.servers[name]?.added_by_agent
  if (!added) return `agents may remove only servers that agents added; "${name}" was added by the operator or the user. Ask the user.`
  const other = Object.keys(raw).filter((k) => !NEUTRAL.has(k))
  if (other.length > 0 || agentEntryKey(raw) !== added.entry) {
    return `agents may remove only servers that agents added and nobody changed since; "${name}" was changed in the config after an agent added it (${other.join(', ') || 'what it runs'}), so it is the operator's now. Ask the user.`
  }
  return null
}
