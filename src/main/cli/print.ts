// Human-readable tables for the operator commands (or JSON with --json).
import type { ServerInfo, ToolInfo } from '../../shared/api'

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)))
  return (
    rows
      .map((r) =>
        r
          .map((c, i) => c.padEnd(widths[i]))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  )
}

export function printServers(servers: ServerInfo[], json: boolean): void {
  if (json) return void process.stdout.write(JSON.stringify({ servers }, null, 2) + '\n')
  if (servers.length === 0) return void process.stdout.write('No servers configured. Add some to mcp_config.json or run `toolgate import claude-desktop`.\n')
  const rows = [['NAME', 'STATE', 'TOOLS', 'LOCKED', 'ISOLATION', 'TARGET']]
  for (const s of servers) {
    const locked = Object.entries(s.counts)
      .filter(([k, v]) => k !== 'callable' && v)
      .map(([k, v]) => `${k}:${v}`)
      .join(' ')
    rows.push([s.name, s.state + (s.last_error ? ` (${s.last_error})` : ''), `${s.counts.callable} callable`, locked || '-', isolationLabel(s), s.target])
  }
  process.stdout.write(table(rows))
  process.stdout.write('\nPermissions:\n' + servers.map((s) => `  ${s.name}: ${permissionsText(s)}`).join('\n') + '\n')
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
    `network ${p?.network ? 'on' : 'off'}`,
    `writes: private temp dir${p?.fs_write.length ? `, ${p.fs_write.join(', ')}` : ''}`,
    ...(p?.fs_read.length ? [`also reads: ${p.fs_read.join(', ')}`] : []),
    'everything else read-only, credentials and Toolgate data hidden',
  ]
  return (iso.isolated ? '' : `NOT ISOLATED (${iso.reason}); would get: `) + parts.join('; ')
}

export function printTools(tools: ToolInfo[], json: boolean): void {
  if (json) return void process.stdout.write(JSON.stringify({ tools }, null, 2) + '\n')
  if (tools.length === 0) return void process.stdout.write('No known tools.\n')
  const rows = [['TOOL', 'STATUS', 'CALL WITH', 'DESCRIPTION']]
  for (const t of tools) rows.push([t.name, t.status, t.call_with, (t.description ?? '').split('\n')[0].slice(0, 70)])
  process.stdout.write(table(rows))
}
