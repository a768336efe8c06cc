// `toolgate agents list` for people: each agent and local client with its scope, tokens, reach
// (and why the rest is out of reach) and context cost; escaped, since client names come from agents.
import type { AgentView } from '../../shared/agents'
import type { AskInClientInfo } from '../../shared/ask-in-client'
import { escapeControls } from '../../shared/text'
import { printJson } from './output'
import { table } from './print'

const when = (ts: string | null): string => (ts ? ts.replace('T', ' ').replace(/\.\d+Z$/, 'Z') : 'never')

/** on/off and on whose word (the config or the organisation: locked, with why). */
function askText(s: AskInClientInfo): string {
  return `${s.on ? 'on' : 'off'}${s.source === 'default' ? ' (default)' : s.source === 'user' ? ' (your switch)' : ` (${s.note ?? s.source})`}`
}

export function agentViewText(a: AgentView): string {
  const lines: string[] = []
  const scope = `servers ${a.servers === '*' ? 'all' : a.servers.join(', ') || 'none'}; may call ${a.permissions.join(', ') || 'nothing'}`
  lines.push(`${a.name}  (${a.kind === 'agent' ? 'agent' : 'local client, admin key'})  last seen ${when(a.last_seen)}`)
  lines.push(`  scope    ${scope}`)
  if (a.kind === 'agent') {
    if (a.token_list.length === 0) lines.push(`  tokens   none`)
    for (const t of a.token_list) lines.push(`  token    ${t.id}  created ${when(t.created_at)}  last used ${when(t.last_used_at)}`)
  }
  if (a.ask_in_client) lines.push(`  ask in its client  ${askText(a.ask_in_client)}`)
  lines.push(
    `  context  ${a.context.at_connect} tokens at connect vs ${a.context.all_callable} for its ${a.context.callable_tools} callable tools in full (${a.context.encoding})`,
  )
  for (const r of a.reach) {
    const more: string[] = []
    for (const [v, n] of Object.entries(r.needs_permission ?? {})) more.push(`${n} need ${v}`)
    for (const [s, n] of Object.entries(r.locked ?? {})) more.push(`${n} ${s}`)
    const head = r.reachable ? `${r.callable} callable` : 'out of reach'
    lines.push(`  ${r.server.padEnd(20)} ${head}${r.why ? `: ${r.why}` : ''}${more.length ? ` (${more.join(', ')})` : ''}`)
  }
  return lines.map(escapeControls).join('\n')
}

/** One row per agent: AGENT SERVERS PERMISSIONS TOKENS, then what it can call and what that costs in context. */
function agentTable(agents: AgentView[]): string {
  const rows = [['AGENT', 'SERVERS', 'PERMISSIONS', 'TOKENS', 'ASK IN CLIENT', 'CALLABLE', 'CONTEXT (AT CONNECT / IN FULL)', 'LAST SEEN']]
  for (const a of agents) {
    rows.push([
      a.kind === 'local' ? `${a.name} (local)` : a.name,
      a.servers === '*' ? '*' : a.servers.join(',') || '(none)',
      a.permissions.join(','),
      a.kind === 'local' ? '-' : String(a.tokens),
      a.ask_in_client ? `${a.ask_in_client.on ? 'on' : 'off'}${a.ask_in_client.locked ? ` (${a.ask_in_client.source})` : ''}` : '-',
      String(a.context.callable_tools),
      `${a.context.at_connect} / ${a.context.all_callable}`,
      when(a.last_seen),
    ])
  }
  return table(rows).trimEnd()
}

export function printAgentViews(agents: AgentView[], json: boolean, details = false): void {
  if (json) return printJson({ agents })
  if (agents.length === 0) return void process.stdout.write('No agents configured (add them under "agents" in mcp_config.json) and no local client seen yet.\n')
  process.stdout.write(agentTable(agents) + '\n')
  if (details) process.stdout.write('\n' + agents.map(agentViewText).join('\n\n') + '\n')
  else process.stdout.write(`(${agents[0].context.encoding} tokens; --details for each server's reach and why the rest is out of reach)\n`)
}
