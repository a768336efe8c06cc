// Every change to what the user decided about a server goes through here (tool decisions are
// decisions.ts', prompt decisions prompt-decisions.ts'): approve (for a time, on the reviewed
// launch), quarantine, switch on or off (mcp_config.json), a server an agent added or removed, and
// the state's fail-closed and upgrade steps that need the config. Each lands through catalog.decide().
import { ApiError } from '../../../shared/api'
import { toolId } from '../../../shared/ids'
import type { ServerConfig } from '../../../shared/config-schema'
import { ConfigError } from '../config/load'
import { setServerField } from '../config/write'
import { describeTarget } from '../masking/target'
import { addUndo, dropUndo, findUndo, reviewRecord, type TimedAct } from '../state/grant-undo'
import { serverIdentity } from '../state/hash'
import { migrateServerIdentities } from '../state/migrate'
import type { State } from '../state/schema'
import type { Catalog } from './catalog'
import { approvedRecord, organisationRefusal, requireServer, until } from './decisions'
import { templateBaselineOnApproval } from './template-decisions'
import { promptBaselineOnApproval } from './prompt-decisions'

/**
 * The launch the user reviewed must still be the one configured (approve, inspect and a grant that
 * approves a server carry its `launch_hash`). Without a hash nothing is checked (scripts of before).
 */
export function requireReviewedLaunch(catalog: Catalog, cfg: ServerConfig, expectedHash: string | undefined): void {
  if (expectedHash === undefined || expectedHash === catalog.launchHash(cfg)) return
  throw new ApiError(
    'launch_changed',
    `the launch of "${cfg.name}" changed since you reviewed it (its command, arguments, cwd, env, URL, headers or isolation; it is now: ${describeTarget(cfg)}); ` +
      `nothing was done. Review it again (its card in the window, or \`toolgate servers inspect ${cfg.name}\`, which prints the current launch_hash) and decide on what you see.`,
    409,
  )
}

export async function approveServer(catalog: Catalog, server: string, timed?: TimedAct, expectedLaunch?: string): Promise<string> {
  const cfg = requireServer(catalog, server)
  requireReviewedLaunch(catalog, cfg, expectedLaunch)
  const q = catalog.quarantineOf(cfg)
  const key = { type: 'server_review' as const }
  if (q === 'organisation') throw organisationRefusal(`"${server}" is held in quarantine`)
  if (cfg.organisation?.blocked) throw organisationRefusal(`"${server}" may not run (${cfg.organisation.blocked})`)
  if (q === 'config') {
    throw new ApiError(
      'operator_hold',
      `"${server}" is held in quarantine by the operator ("quarantined": true in mcp_config.json); only the operator can release it by editing the config.`,
      409,
    )
  }
  if (q === null && findUndo(catalog.store.current, server, key) && !timed) {
    await catalog.decide([server], (s) => void dropUndo(s, server, key))
    return `Approved server ${server} for good (it was approved for a time).`
  }
  if (q === null) return `"${server}" is not quarantined.`
  // What the user inspected is what gets approved: a first approval after an Inspect
  // baselines exactly the definitions it showed; at first connect a differing tool is changed, a
  // tool that was not there is pending.
  const inspected = catalog.inspectedTools(server)
  const inspectedTemplates = catalog.inspectedTemplates(server)
  const inspectedPrompts = catalog.inspectedPrompts(server)
  await catalog.decide([server], (s) => {
    if (timed)
      addUndo(s, timed, server, { type: 'server_review', previous: reviewRecord(s.servers[server]), held: s.fail_closed?.hold?.includes(server) === true })
    else dropUndo(s, server, key)
    const rec = { ...s.servers[server], approved_identity: serverIdentity(cfg) }
    delete rec.user_quarantined
    delete rec.needs_review
    if (s.fail_closed?.hold) s.fail_closed.hold = s.fail_closed.hold.filter((n) => n !== server)
    if (inspected && !rec.baseline_taken) {
      rec.baseline_taken = true
      for (const t of inspected) {
        const id = toolId(server, t.def.name)
        s.tools[id] = { ...s.tools[id], approved: approvedRecord(t.def, t.hash) }
      }
    }
    s.servers[server] = rec
    // its prompts and templates likewise: those the Inspect showed; any other waits for review (inspected-lists.ts)
    promptBaselineOnApproval(s, server, inspectedPrompts)
    templateBaselineOnApproval(s, server, inspectedTemplates)
  })
  return timed ? `Approved server ${server}${until(timed)}; it starts now and goes back into quarantine then.` : `Approved server ${server}; it starts now.`
}

export async function quarantineServer(catalog: Catalog, server: string): Promise<string> {
  const cfg = requireServer(catalog, server)
  if (catalog.quarantineOf(cfg) !== null) return `"${server}" is already quarantined.`
  await catalog.decide([server], (s) => {
    dropUndo(s, server, { type: 'server_review' })
    s.servers[server] = { ...s.servers[server], user_quarantined: true }
  })
  return `Quarantined ${server}; it was stopped and its tools are locked until you approve it again.`
}

/**
 * The user switches a server on or off: written to mcp_config.json (`enabled`) through the one
 * config writer, then reloaded. Switched on for a time, the grant that writes `enabled: false`
 * back at its end is on disk first (state.json), so a crash in between never loses the end.
 */
export async function setServerEnabled(
  catalog: Catalog,
  config: { path: string; reload(): void },
  server: string,
  enabled: boolean,
  timed?: TimedAct,
): Promise<string> {
  const cfg = requireServer(catalog, server)
  if (enabled && cfg.organisation?.blocked) throw organisationRefusal(`"${server}" may not run (${cfg.organisation.blocked})`)
  const key = { type: 'server_enabled' as const }
  const held = findUndo(catalog.store.current, server, key)
  if (cfg.enabled === enabled && !held) return `${server} is already ${enabled ? 'enabled' : 'disabled'}.`
  if (enabled && cfg.enabled && !timed) {
    await catalog.decide([server], (s) => void dropUndo(s, server, key))
    return `Enabled server ${server} for good (it was enabled for a time).`
  }
  if (timed && enabled) await catalog.decide([server], (s) => addUndo(s, timed, server, { type: 'server_enabled' }))
  else if (held) await catalog.decide([server], (s) => void dropUndo(s, server, key))
  if (cfg.enabled !== enabled) {
    try {
      setServerField(config.path, server, 'enabled', enabled ? undefined : false)
    } catch (e) {
      if (e instanceof ConfigError) throw new ApiError('config_invalid', e.message, 409)
      throw e
    }
    config.reload()
  }
  return `${enabled ? 'Enabled' : 'Disabled'} server ${server}${timed && enabled ? `${until(timed)}; then it is switched off again` : ''}.`
}

/** A server an agent added: in review whatever the defaults say, with no decisions left over from an earlier server of that name. */
export async function markNeedsReview(catalog: Catalog, server: string, addedBy?: { agent: string; entry: string; client?: string }): Promise<void> {
  await catalog.decide([server], (s) => {
    const ask = s.servers[server]?.confirm === true
    s.servers[server] = { needs_review: true, ...(addedBy ? { added_by_agent: addedBy } : {}), ...(ask ? { confirm: true } : {}) }
    keepUserLocksOnly(s, server)
  })
}

/**
 * Approvals belong to the earlier server of that name; what the user set on its tools stays: a
 * tool switched off stays off, "Ask me before each call" stays on, a rejected template stays rejected (an agent that removes and
 * re-adds a server must not shed them).
 */
function keepUserLocksOnly(s: State, server: string): void {
  for (const id of Object.keys(s.tools)) {
    if (!id.startsWith(`${server}:`)) continue
    const { user_disabled, confirm } = s.tools[id]
    if (user_disabled || confirm) s.tools[id] = { ...(user_disabled ? { user_disabled: true } : {}), ...(confirm ? { confirm: true } : {}) }
    else delete s.tools[id]
  }
  for (const id of Object.keys(s.prompts)) {
    if (!id.startsWith(`${server}:`)) continue
    if (s.prompts[id].user_disabled) s.prompts[id] = { user_disabled: true }
    else delete s.prompts[id]
  }
  const templates = s.resource_templates ?? {}
  for (const id of Object.keys(templates)) {
    if (!id.startsWith(`${server}:`)) continue
    // an approval belongs to the earlier server; a rejection stays (re-adding must not shed it)
    const { rejected } = templates[id]
    if (rejected) templates[id] = { rejected }
    else delete templates[id]
  }
}

/** A server an agent removed: its approvals go with it (a later server of that name starts in review); user locks and "Ask me" switches stay. */
export async function forgetRemovedServer(catalog: Catalog, server: string): Promise<void> {
  await catalog.decide([server], (s) => {
    const ask = s.servers[server]?.confirm === true
    delete s.servers[server]
    if (ask) s.servers[server] = { confirm: true }
    keepUserLocksOnly(s, server)
  })
}

/** The part of the state upgrade that needs the config: version-1 server approvals carried to the new identity (see state/migrate.ts). */
export async function finishStateUpgrade(catalog: Catalog): Promise<void> {
  if (catalog.store.migratedFrom !== 1) return
  const servers = catalog.currentConfig.servers
  await catalog.decide(
    servers.map((s) => s.name),
    (s) => migrateServerIdentities(s, servers),
  )
}

/**
 * After an unreadable state file: fail closed only for the servers configured now (servers added
 * later start fresh); with no readable last good copy either, hold every one of them in
 * quarantine that the config does not trust ("quarantined": false) until the user approves it.
 */
export async function pinFailClosedServers(catalog: Catalog): Promise<void> {
  const fc = catalog.store.current.fail_closed
  if (!fc || fc.servers) return
  const configured = catalog.currentConfig.servers
  const servers = configured.map((x) => x.name)
  const hold = fc.restored_locks === false ? configured.filter((x) => x.quarantined !== false).map((x) => x.name) : undefined
  await catalog.decide(servers, (s) => {
    if (!s.fail_closed) return
    s.fail_closed.servers = servers
    if (hold) s.fail_closed.hold = hold
  })
}
