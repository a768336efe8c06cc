// `toolgate confirmations [list|show ID|allow ID|deny ID|ask SERVER[:TOOL] on|off]`: calls that
// wait for the user's OK (docs/confirmations.md), answered from the terminal, and the user's own "Ask me
// before each call" switch. Talks to the running Toolgate, which holds the waiting calls.
import type { Command } from 'commander'
import { ApiError, type Api } from '../../shared/api'
import { CONFIRMATION_STATUSES, type Confirmation } from '../../shared/confirmations'
import { parseToolId } from '../../shared/ids'
import { withOperatorApi, type Where } from './control-client'
import { UsageError } from './errors'
import { table } from './print'
import { printJson, say } from './output'

const STATUS_FILTER = [...CONFIRMATION_STATUSES, 'all'] as const

function secondsLeft(c: Confirmation, now: number): string {
  if (c.status !== 'pending') return c.status + (c.answered_via ? ` (${c.answered_via})` : '')
  return `waits ${Math.max(0, Math.round((Date.parse(c.expires_at) - now) / 1000))} s`
}

const who = (c: Confirmation): string => c.agent ?? `(no agent${c.client ? `: ${c.client}` : ''})`

/** The list as a table; the core made every untrusted field safe, and the table escapes again. */
export function confirmationsTable(list: Confirmation[], now: number): string {
  if (list.length === 0) return 'No calls wait for your confirmation.\n'
  const rows = [['ID', 'STATUS', 'AGENT', 'TOOL', 'CALL', 'ARGS']]
  for (const c of list) {
    const args = c.args_text.length > 60 ? `${c.args_text.slice(0, 59)}…` : c.args_text
    rows.push([c.id, secondsLeft(c, now), who(c), c.name_warning ? `${c.tool} (deceptive name!)` : c.tool, c.call_with, args])
  }
  return table(rows)
}

/** One confirmation in full: what the user allows when they run `allow`. */
export function confirmationText(c: Confirmation, now: number): string {
  const lines = [
    `${c.id}: ${who(c)} wants to call ${c.tool} (${c.call_with})`,
    ...(c.name_warning ? [`WARNING: deceptive tool name: ${c.name_warning}`] : []),
    `status: ${secondsLeft(c, now)}`,
    `why: ${c.required_by.map((r) => (r === 'config' ? `the operator requires it (${c.config_rule ?? 'mcp_config.json'})` : 'you asked to be asked')).join('; ')}`,
    `arguments (${c.args_bytes} bytes, HMAC ${c.args_hmac}${c.args_truncated ? ', shown cut: allow runs them all' : ''}), as the agent sent them:`,
    c.args_text,
  ]
  return lines.join('\n') + '\n'
}

export function registerConfirmations(program: Command, where: (c: Command) => Command, w: (o: { config?: string; dataDir?: string }) => Where): void {
  const cmd = program.command('confirmations').description("calls waiting for your OK: list, show, allow, deny; your 'Ask me before each call' switch")
  const withApi = <T>(o: { config?: string; dataDir?: string }, fn: (api: Api) => Promise<T>) => withOperatorApi(w(o), fn)
  where(cmd.command('list', { isDefault: true }))
    .description('the calls waiting for your OK (oldest first); --status for answered ones')
    .option('--status <status>', `pending (default) | ${STATUS_FILTER.filter((s) => s !== 'pending').join(' | ')}`)
    .option('--json', 'print JSON')
    .action(async (o: { config?: string; dataDir?: string; status?: string; json?: boolean }) => {
      if (o.status !== undefined && !(STATUS_FILTER as readonly string[]).includes(o.status))
        throw new UsageError(`--status must be one of ${STATUS_FILTER.join(', ')}`)
      const { confirmations } = await withApi(o, (api) => api.confirmations(o.status ? { status: o.status as (typeof STATUS_FILTER)[number] } : {}))
      if (o.json) printJson({ confirmations })
      else say(confirmationsTable(confirmations, Date.now()))
    })
  where(cmd.command('show <id>'))
    .description('one call in full: agent, tool, why it waits, every argument')
    .option('--json', 'print JSON')
    .action(async (id: string, o: { config?: string; dataDir?: string; json?: boolean }) => {
      const { confirmations } = await withApi(o, (api) => api.confirmations({ status: 'all' }))
      const c = confirmations.find((x) => x.id === id)
      if (!c) throw new ApiError('unknown_confirmation', `no confirmation "${id}"; \`toolgate confirmations list\` shows the waiting ones`, 404)
      if (o.json) printJson(c)
      else say(confirmationText(c, Date.now()))
    })
  for (const answer of ['allow', 'deny'] as const) {
    where(cmd.command(`${answer} <id>`))
      .description(answer === 'allow' ? 'run exactly that waiting call, once' : 'answer the agent CALL_DECLINED; nothing runs')
      .action(async (id: string, o) => {
        const r = await withApi(o, (api) => (answer === 'allow' ? api.allowConfirmation(id) : api.denyConfirmation(id)))
        say(r.message)
      })
  }
  where(cmd.command('ask <target> <on|off>'))
    .description('your "Ask me before each call" on a server (SERVER) or a tool (SERVER:TOOL); it never removes what the config requires')
    .action(async (target: string, onOff: string, o) => {
      if (onOff !== 'on' && onOff !== 'off') throw new UsageError(`say "on" or "off" after ${target}`)
      const ref = target.includes(':') ? parseToolId(target) : { server: target, tool: null }
      if ('error' in ref) throw new UsageError(ref.error)
      const r = await withApi(o, (api) => api.setAskBeforeCall(ref.server, ref.tool, onOff === 'on'))
      say(r.message)
    })
}
