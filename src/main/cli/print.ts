// Human-readable tables for the operator commands (or JSON with --json); every cell escaped.
import type { AgentTokenInfo, ServerInfo, ToolInfo } from '../../shared/api'
import { launchText } from '../../shared/launch'
import { NO_ANNOTATIONS_TEXT } from '../../shared/call-variant'
import { escapeControls } from '../../shared/text'
import { lifecycleStateText } from '../../shared/lifecycle'
import { hiddenFromServerShort } from '../../shared/isolation-hidden'
import { printJson, say } from './output'

/** Rows as aligned columns, every cell escaped first (so the widths are those shown). */
export function table(rows: string[][], after: Array<string | null> = []): string {
  const cells = rows.map((r) => r.map(escapeControls))
  const widths = cells[0].map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)))
  return (
    cells
      .map((r, n) => {
        const line = r
          .map((c, i) => c.padEnd(widths[i]))
          .join('  ')
          .trimEnd()
        const extra = after[n]
        return extra ? `${line}\n    ${extra}` : line
      })
      .join('\n') + '\n'
  )
}

export function printServers(servers: ServerInfo[], json: boolean): void {
  if (json) return printJson({ servers })
  if (servers.length === 0) return say('No servers configured. Add some to mcp_config.json or run `toolgate import claude-desktop`.')
  const rows = [['NAME', 'STATE', 'TOOLS', 'LOCKED', 'ISOLATION']]
  const launches: Array<string | null> = [null]
  for (const s of servers) {
    const locked = Object.entries(s.counts)
      .filter(([k, v]) => k !== 'callable' && v)
      .map(([k, v]) => `${k}:${v}`)
      .join(' ')
    rows.push([
      s.name,
      lifecycleStateText(s, Date.now()) + (s.last_error ? ` (${s.last_error})` : ''),
      `${s.counts.callable} callable`,
      locked || '-',
      isolationLabel(s),
    ])
    // a server waiting for review: the token of this launch, for `servers approve NAME --hash`
    const review = s.quarantined ? `\n    launch_hash: ${s.launch_hash}` : ''
    // what the organisation's machine-wide policy sets on it
    const org = s.organisation?.fields.length ? `\n    set by your organisation: ${s.organisation.fields.join(', ')}` : ''
    launches.push(`${s.launch.url !== undefined ? 'connects to' : 'runs'}: ${launchText(s.launch)}${review}${org}`)
  }
  say(table(rows, launches))
  say('\nPermissions:\n' + servers.map((s) => `  ${s.name}: ${permissionsText(s)}`).join('\n'))
}

/** What Inspect is about to run, printed before it runs. */
export function printLaunchNotice(s: ServerInfo): void {
  const what = s.launch.url !== undefined ? 'connects to this server' : 'runs this program on this computer'
  say(`Inspecting ${s.name} ${what} to list its tools, then stops it:\n    ${launchText(s.launch)}\n    launch_hash: ${s.launch_hash}`)
}

/** After Inspect: how to approve exactly the launch that was shown (and inspected). */
export function approveHint(s: ServerInfo): string {
  return `To approve exactly this launch: toolgate servers approve ${s.name} --hash ${s.launch_hash}`
}

function isolationLabel(s: ServerInfo): string {
  if (s.isolation.isolated) return `isolated (${s.isolation.mechanism})`
  return s.isolation.risk ? 'NOT ISOLATED' : 'remote'
}

/** One line: what the server may touch, or why it is not isolated. */
export function permissionsText(s: ServerInfo): string {
  const iso = s.isolation
  const p = iso.profile
  if (!iso.isolated && !p) return iso.risk ? `NOT ISOLATED: ${iso.reason}` : (iso.reason ?? 'not isolated')
  const parts = [
    Array.isArray(p?.network) ? (p.network.length ? `network: only ${p.network.join(', ')}` : 'network off') : `network ${p?.network ? 'on' : 'off'}`,
    ...(p?.loopback.length ? [`loopback ports: ${p.loopback.join(', ')}`] : []),
    ...(iso.network_risk ? [`SHARES YOUR NETWORK, loopback included: ${iso.network_risk}`] : []),
    `writes: private temp dir${p?.fs_write.length ? `, ${p.fs_write.join(', ')}` : ''}`,
    ...(p?.fs_read.length ? [`also reads: ${p.fs_read.join(', ')}`] : []),
    `everything else read-only, ${hiddenFromServerShort(iso.mechanism, iso.home_writable === true)}`,
  ]
  return (iso.isolated ? '' : `NOT ISOLATED (${iso.reason}); would get: `) + parts.join('; ')
}

export function printTools(tools: ToolInfo[], json: boolean): void {
  if (json) return printJson({ tools })
  if (tools.length === 0) return say('No known tools.')
  const rows = [['TOOL', 'STATUS', 'CALL WITH', 'DESCRIPTION']]
  const notes: Array<string | null> = [null]
  for (const t of tools) {
    rows.push([
      t.name,
      t.status + (t.policy === 'organisation' ? ' (set by your organisation)' : ''),
      t.call_with,
      (t.description ?? '').split('\n')[0].slice(0, 70),
    ])
    notes.push(variantNote(t))
  }
  say(table(rows, notes))
}

/** The line under a tool whose variant is not simply its own hints': the spec's defaults, or a classification and by whom. */
export function variantNote(t: ToolInfo): string | null {
  const c = t.classification
  const who =
    c?.by === 'operator' ? 'the operator (tool_classes in mcp_config.json)' : c?.by === 'organisation' ? 'your organisation (set by your organisation)' : 'you'
  switch (t.variant_source) {
    case 'no_annotations':
      return escapeControls(`${NO_ANNOTATIONS_TEXT}; to classify it: toolgate tools classify ${t.name} read|write|destructive`)
    case 'operator':
    case 'organisation':
    case 'user':
      return `${t.annotations_missing ? 'no annotations: ' : ''}classified ${c?.class ?? t.call_with.replace('call_tool_', '')} by ${who}`
    case 'annotations':
      return c ? `its own annotations are stricter than the class ${c.class} given by ${who}, and win` : null
  }
}

export function printAgentTokens(agent: string, tokens: AgentTokenInfo[], json: boolean): void {
  if (json) return printJson({ agent, tokens })
  if (tokens.length === 0) return say(`Agent ${agent} has no tokens. Create one with \`toolgate agents token ${agent}\`.`)
  const rows = [['ID', 'CREATED', 'LAST USED']]
  for (const t of tokens) rows.push([t.id, t.created_at, t.last_used_at ?? 'never'])
  say(table(rows))
}
