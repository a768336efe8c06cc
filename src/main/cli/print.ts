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
  const rows = [['NAME', 'STATE', 'TOOLS', 'LOCKED', 'TARGET']]
  for (const s of servers) {
    const locked = Object.entries(s.counts)
      .filter(([k, v]) => k !== 'callable' && v)
      .map(([k, v]) => `${k}:${v}`)
      .join(' ')
    rows.push([s.name, s.state + (s.last_error ? ` (${s.last_error})` : ''), `${s.counts.callable} callable`, locked || '-', s.target])
  }
  process.stdout.write(table(rows))
}

export function printTools(tools: ToolInfo[], json: boolean): void {
  if (json) return void process.stdout.write(JSON.stringify({ tools }, null, 2) + '\n')
  if (tools.length === 0) return void process.stdout.write('No known tools.\n')
  const rows = [['TOOL', 'STATUS', 'CALL WITH', 'DESCRIPTION']]
  for (const t of tools) rows.push([t.name, t.status, t.call_with, (t.description ?? '').split('\n')[0].slice(0, 70)])
  process.stdout.write(table(rows))
}
