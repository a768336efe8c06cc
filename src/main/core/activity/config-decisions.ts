// The operator's decisions, read from an edit of mcp_config.json: what changed between the
// running config and the new one (servers added or removed, enabled, held in or released from
// quarantine, trusted, tools allowed or denied), each as a decision by the operator via config.
import type { DecisionAction } from '../../../shared/activity'
import type { Config, ServerConfig } from '../../../shared/config-schema'
import type { DecisionRecord } from './recorder'

function toolDecisions(server: string, before: readonly string[] | undefined, after: readonly string[] | undefined, deny: boolean): DecisionRecord[] {
  const a = new Set(before ?? [])
  const b = new Set(after ?? [])
  const out: DecisionRecord[] = []
  const list = deny ? 'disabled_tools' : 'enabled_tools'
  for (const t of b) {
    if (a.has(t)) continue
    const action: DecisionAction = deny ? 'disable' : 'enable'
    out.push({ action, server, tool: t, message: `The operator added ${t} to ${list} of ${server}.` })
  }
  for (const t of a) {
    if (b.has(t)) continue
    const action: DecisionAction = deny ? 'enable' : 'disable'
    out.push({ action, server, tool: t, message: `The operator removed ${t} from ${list} of ${server}.` })
  }
  return out
}

function serverDecisions(prev: ServerConfig, next: ServerConfig): DecisionRecord[] {
  const name = next.name
  const out: DecisionRecord[] = []
  if (prev.enabled !== next.enabled) {
    out.push({ action: next.enabled ? 'enable' : 'disable', server: name, message: `The operator set enabled: ${next.enabled} for ${name} in the config.` })
  }
  if (prev.quarantined !== next.quarantined) {
    if (next.quarantined === true) out.push({ action: 'quarantine', server: name, message: `The operator holds ${name} in quarantine (quarantined: true).` })
    else if (next.quarantined === false) out.push({ action: 'approve', server: name, message: `The operator trusts ${name} (quarantined: false).` })
    else out.push({ action: 'approve', server: name, message: `The operator released the hold on ${name}; the user decides (quarantined removed).` })
  }
  if (prev.trust !== next.trust) {
    out.push({
      action: next.trust === 'auto' ? 'approve' : 'quarantine',
      server: name,
      message:
        next.trust === 'auto'
          ? `The operator set trust: auto for ${name}: new and changed tools are approved without review.`
          : `The operator set trust: manual for ${name}.`,
    })
  }
  out.push(...toolDecisions(name, prev.disabled_tools, next.disabled_tools, true))
  out.push(...toolDecisions(name, prev.enabled_tools, next.enabled_tools, false))
  return out
}

/** The decisions an operator made by editing the config from `prev` to `next`. */
export function configDecisions(prev: Config, next: Config): DecisionRecord[] {
  const before = new Map(prev.servers.map((s) => [s.name, s]))
  const after = new Map(next.servers.map((s) => [s.name, s]))
  const out: DecisionRecord[] = []
  for (const [name, s] of after) {
    const p = before.get(name)
    if (!p) out.push({ action: 'add', server: name, message: `The operator added ${name} to the config.` })
    else out.push(...serverDecisions(p, s))
  }
  for (const name of before.keys()) if (!after.has(name)) out.push({ action: 'remove', server: name, message: `The operator removed ${name} from the config.` })
  return out
}
