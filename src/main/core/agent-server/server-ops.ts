// upstream_servers (docs/contract.md §3): list/get for any agent (within scope); add always lands in
// quarantine; remove/enable/disable/restart only when the operator allows agent server changes.
import type { CallToolResult } from '@modelcontextprotocol/server'
import { agentMayChangeServers, SET_BY_ORGANISATION } from '../../../shared/policy'
import { blockedText, writtenLaunchBlocked } from '../config/policy'
import { z } from 'zod'
import { ProtocolSchema, ServerEntrySchema, ServerNameSchema } from '../../../shared/config-schema'
import type { Catalog } from '../catalog/catalog'
import type { UpstreamManager } from '../upstream/manager'
import { addServerEntry, removeServerEntry, setServerField } from '../config/write'
import { agentServerEntry as viewEntry, skippedServerEntry as viewSkippedEntry } from '../views/server-view'
import { MAX_RESOURCE_DESCRIPTION_CHARS, oneLine } from './resource-text'
import { forgetRemovedServer, markNeedsReview } from '../catalog/server-decisions'
import { AGENT_FIELDS, agentEntryKey, canChangeServers, readOnlyRefusal, removalRefusal } from '../access/server-changes'
import type { Scope } from '../access/scope'
import { NOBODY, type ActivityRecorder, type Who } from '../activity/recorder'
import type { DecisionAction } from '../../../shared/activity'
import { mentionsReference } from '../../../shared/secret-refs'
import { CLIENT_NAME_MAX, safeText } from '../../../shared/requests'
import { ADMIN_SESSION } from '../access/server-changes'

/**
 * A server's entry as an agent reads it: its `last_error` holds the server's own words (an error it
 * answered while Toolgate connected, a line of its stderr), so it is listed text: one escaped line, cut.
 */
function agentText(entry: Record<string, unknown>): Record<string, unknown> {
  if (typeof entry.last_error === 'string') entry.last_error = oneLine(entry.last_error, MAX_RESOURCE_DESCRIPTION_CHARS)
  return entry
}
const agentServerEntry = (...a: Parameters<typeof viewEntry>): Record<string, unknown> => agentText(viewEntry(...a))
const skippedServerEntry = (...a: Parameters<typeof viewSkippedEntry>): Record<string, unknown> => agentText(viewSkippedEntry(...a))

export interface ServerOpsDeps {
  catalog: Catalog
  manager: UpstreamManager
  configPath: string
  reloadConfig(): void
  activity?: ActivityRecorder
}

const OpSchema = z.object(
  {
    operation: z.enum(['list', 'get', 'add', 'remove', 'enable', 'disable', 'restart'], {
      error: 'operation must be one of list, get, add, remove, enable, disable, restart',
    }),
    name: z.string().optional(),
    command: z.string().optional(),
    args: z.array(z.string()).optional(),
    url: z.string().optional(),
    protocol: ProtocolSchema.optional(),
  },
  { error: 'arguments must be an object like {"operation": "list"}' },
)

const ok = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value) }] })
const fail = (text: string): CallToolResult => ({ isError: true, content: [{ type: 'text', text: `upstream_servers: ${text}` }] })

/** What an agent may set on a server: env, cwd, headers and policy are the user's to add. */
const AGENT_KEYS = new Set<string>(['operation', ...AGENT_FIELDS])

function refusedKeys(raw: unknown): string | null {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return null
  const extra = Object.keys(raw).filter((k) => !AGENT_KEYS.has(k))
  if (extra.length === 0) return null
  return (
    `${extra.map((k) => `"${k}"`).join(', ')} cannot be set by an agent: an agent may give only name, command, args, url and protocol. ` +
    `Environment variables, cwd, headers and policy (enabled, quarantined, trust, enabled_tools, disabled_tools, …) are added by the user in the Toolgate config; ask the user to add them.`
  )
}

export async function upstreamServersOp(deps: ServerOpsDeps, scope: Scope, raw: unknown, who: Who = NOBODY): Promise<CallToolResult> {
  const decided = (action: DecisionAction, server: string, message: string): void =>
    deps.activity?.decision({ by: 'agent', via: 'mcp' }, who, { action, server, message })
  // Isolation is the operator's and the user's decision: an agent never loosens (or sets) it.
  if (raw !== null && typeof raw === 'object' && Object.hasOwn(raw, 'sandbox')) {
    return fail('agents cannot set "sandbox": a server an agent adds always runs with the default isolation; ask the user to grant it folders or network')
  }
  const refused = refusedKeys(raw)
  if (refused) return fail(refused)
  const parsed = OpSchema.safeParse(raw)
  if (!parsed.success) return fail(parsed.error.issues[0].message)
  const a = parsed.data
  const { catalog } = deps
  if (a.operation === 'list') {
    const servers = catalog.currentConfig.servers
      .filter((s) => scope.allowsServer(s.name))
      .map((s) => agentServerEntry(catalog, deps.manager.connections, s, scope))
    // entries left out because of a mistake in them: the agent learns they exist and what is wrong
    for (const s of catalog.currentConfig.skipped) if (scope.allowsServer(s.name)) servers.push(skippedServerEntry(s))
    return ok({ servers })
  }
  if (!a.name) return fail(`operation "${a.operation}" needs "name"`)
  const name = a.name
  if (a.operation !== 'get' && !canChangeServers(scope)) return fail(readOnlyRefusal(scope, a.operation))
  const org = catalog.currentConfig.organisation
  if (a.operation !== 'get' && !agentMayChangeServers(org, scope.agent ?? null)) {
    return fail(
      `${scope.agent ? `agent "${scope.agent}"` : 'this session'} may not ${a.operation} servers: ${SET_BY_ORGANISATION} (allow_agent_server_changes in its machine-wide policy.json). Ask the user, who may ask the organisation's administrators.`,
    )
  }
  if (a.operation === 'add') {
    const { operation: _op, ...fields } = a
    // ${secret:…}/${env:…} would hand the user's secrets to a server the agent chose: refused
    // (env, cwd and headers are refused for agents altogether)
    const strings = [name, fields.command, fields.url, ...(fields.args ?? [])]
    if (strings.some((v) => typeof v === 'string' && mentionsReference(v))) {
      return fail(
        "agents may not use ${secret:…} or ${env:…} references: they would send the user's secrets to a server the agent chose. Ask the user to add the server in the Toolgate window.",
      )
    }
    const entry = ServerEntrySchema.safeParse({ ...fields, name })
    if (!entry.success) return fail(`invalid server: ${entry.error.issues[0].path.join('.') || 'entry'}: ${entry.error.issues[0].message}`)
    // a launch the organisation's policy does not allow is never added (it could not run anyway)
    const blocked = writtenLaunchBlocked(org, entry.data)
    if (blocked) return fail(`"${name}" cannot be added: ${blocked}`)
    if (catalog.serverConfig(name)) {
      return fail(`a server named "${name}" already exists; choose another name (agents never replace an existing entry or what the operator wrote in it)`)
    }
    const clean = Object.fromEntries(Object.entries({ name, ...fields }).filter(([, v]) => v !== undefined)) as { name: string }
    // who added it, for the user's review (the window's card and the request say so)
    const client = who.client === null ? undefined : safeText(who.client, CLIENT_NAME_MAX)
    await markNeedsReview(catalog, name, { agent: scope.agent ?? ADMIN_SESSION, entry: agentEntryKey(clean), ...(client ? { client } : {}) })
    addServerEntry(deps.configPath, clean)
    deps.reloadConfig()
    const cfg = catalog.serverConfig(name)
    decided('add', name, `Agent added "${name}" (in quarantine).`)
    return ok({
      server: cfg ? agentServerEntry(catalog, deps.manager.connections, cfg, scope) : { name, quarantined: true, state: 'quarantined' },
      message: `Added "${name}" in quarantine. Nothing from it runs until the user reviews and approves it in the Toolgate window (or \`toolgate servers approve ${name}\`).`,
    })
  }
  const nameCheck = ServerNameSchema.safeParse(name)
  const cfg = nameCheck.success ? catalog.serverConfig(name) : undefined
  const skipped = cfg ? undefined : catalog.currentConfig.skipped.find((s) => s.name === name)
  if (skipped && scope.allowsServer(name)) {
    if (a.operation === 'get') return ok({ server: skippedServerEntry(skipped) })
    return fail(
      `"${name}" is not running: its entry in the Toolgate config has a mistake (at ${skipped.path}: ${skipped.problem}); ask the operator to fix mcp_config.json`,
    )
  }
  if (!cfg || !scope.allowsServer(name)) {
    if (cfg) return fail(`server "${name}" is not in scope for agent "${scope.agent}"`)
    return fail(`unknown server "${name}"; use {"operation": "list"} to see the servers`)
  }
  if (a.operation === 'get') return ok({ server: agentServerEntry(catalog, deps.manager.connections, cfg, scope) })
  if (!catalog.currentConfig.allow_agent_server_changes) {
    return fail(
      `agents may not ${a.operation} servers here (allow_agent_server_changes is false). Ask the user to ${a.operation} "${name}" in the Toolgate window or tray.`,
    )
  }
  switch (a.operation) {
    case 'remove': {
      const refusal = removalRefusal(catalog, deps.configPath, name)
      if (refusal) return fail(refusal)
      removeServerEntry(deps.configPath, name)
      deps.reloadConfig()
      await forgetRemovedServer(catalog, name)
      decided('remove', name, `Agent removed "${name}".`)
      return ok({ removed: name })
    }
    case 'enable':
    case 'disable':
      if (a.operation === 'enable' && cfg.organisation?.blocked) return fail(`"${name}" cannot be enabled: ${blockedText(cfg.organisation.blocked)}`)
      setServerField(deps.configPath, name, 'enabled', a.operation === 'enable' ? undefined : false)
      deps.reloadConfig()
      decided(a.operation, name, `Agent ${a.operation}d "${name}".`)
      return ok({ server: agentServerEntry(catalog, deps.manager.connections, catalog.serverConfig(name) ?? cfg, scope) })
    case 'restart':
      if (!(await deps.manager.restart(name))) return fail(`"${name}" is not running (disabled or quarantined)`)
      decided('restart', name, `Agent restarted "${name}".`)
      return ok({ server: agentServerEntry(catalog, deps.manager.connections, cfg, scope) })
  }
  return fail(`unknown operation`)
}
