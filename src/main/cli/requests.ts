// `toolgate requests [list|grant ID --for once|1h|8h|always|deny ID]`: agents' access requests,
// answered from the terminal (docs/requests.md). Talks to the running Toolgate, which holds the requests.
import { type Command, InvalidArgumentError } from 'commander'
import type { AccessRequest } from '../../shared/requests'
import { REQUEST_STATUSES } from '../../shared/requests'
import { parseGrantFor, timeLeft } from '../../shared/grant-for'
import { withOperator, type Where } from './control-client'
import { table } from './print'
import { printJson, say } from './output'
import { grantReviewed } from './review-commands'

/** `--for` of grant and of the enable/approve commands, checked before anything runs. */
export function grantForOption(v: string): string {
  const g = parseGrantFor(v)
  if ('error' in g) throw new InvalidArgumentError(g.error)
  return v
}

/** The list as a table; every untrusted field was made safe by the core (no control characters reach the terminal). */
export function requestsTable(requests: AccessRequest[], now: number): string {
  if (requests.length === 0) return 'No access requests.\n'
  const rows = [['ID', 'STATUS', 'AGENT', 'TOOL', 'LOCK', 'ASKED', 'REASON']]
  // what a grant is bound to: the launch of a server in quarantine (launch_hash), or the tool's definition (definition_hash)
  const after: Array<string | null> = [null]
  for (const r of requests) {
    after.push(
      r.launch_hash
        ? `approves server ${r.server} (review: toolgate servers list); launch_hash: ${r.launch_hash}`
        : r.definition_hash
          ? `acts on ${r.name} as it is now (review: toolgate tools diff ${r.name}); definition_hash: ${r.definition_hash}`
          : null,
    )
    const status =
      r.status === 'granted' && r.granted_for
        ? `granted ${r.granted_for}${r.until && r.granted_for !== 'once' ? ` (${timeLeft(r.until, now)})` : ''}`
        : r.status
    const via = r.answered_via === 'client' ? ' (client)' : ''
    const agent = r.agent ?? `(no agent${r.client ? `: ${r.client}` : ''})`
    rows.push([r.id, status + via, agent, r.name, r.lock, `${r.asked}x`, r.reason.length > 80 ? `${r.reason.slice(0, 79)}…` : r.reason])
  }
  return table(rows, after)
}

export function registerRequests(program: Command, where: (c: Command) => Command, w: (o: { config?: string; dataDir?: string }) => Where): void {
  const requests = program.command('requests').description("agents' access requests: list, grant, deny")
  const list = async (o: { config?: string; dataDir?: string; status?: string; json?: boolean }) => {
    if (o.status !== undefined && !(REQUEST_STATUSES as readonly string[]).includes(o.status)) {
      throw new InvalidArgumentError(`--status must be one of ${REQUEST_STATUSES.join(', ')}`)
    }
    await withOperator(w(o), async (op) => {
      const { requests: all } = await op.api.requests(o.status ? { status: o.status as AccessRequest['status'] } : {})
      if (o.json) printJson({ requests: all })
      else say(requestsTable(all, Date.now()))
    })
  }
  where(requests.command('list', { isDefault: true }))
    .description('list the requests, newest first')
    .option('--status <status>', `only ${REQUEST_STATUSES.join(' | ')}`)
    .option('--json', 'print JSON')
    .action(list)
  where(requests.command('grant <id>'))
    .description(
      'allow what the agent asked for: --for once (one call by that agent), a duration (30m, 1h, 8h) or always; a changed tool shows its change first and asks',
    )
    .requiredOption('--for <for>', 'once | always | a duration like 30m, 1h, 8h', grantForOption)
    .option(
      '--hash <hash>',
      'only if what the grant acts on is still what you reviewed: the launch_hash (a server that is off or in quarantine) or the definition_hash (a tool) from `requests list --json`',
    )
    .option('-y, --yes', 'grant a changed tool without asking (for scripts; the change is still printed)')
    .action(async (id: string, o) => {
      await withOperator(w(o), async (op) => {
        await grantReviewed(op, id, { for: o.for as string, ...(o.hash ? { hash: o.hash as string } : {}), yes: o.yes === true })
      })
    })
  where(requests.command('deny <id>'))
    .description('deny the request (the agent is told; asking again within 10 minutes gets the same answer)')
    .action(async (id: string, o) => {
      await withOperator(w(o), async (op) => {
        say((await op.api.denyRequest(id)).message)
      })
    })
}
