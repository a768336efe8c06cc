// `toolgate servers add NAME -- COMMAND ARGS…` / `--url URL` and `toolgate servers remove NAME`:
// the same ServerInput the window's form sends, through the live owner or an embedded core.
import type { ServerInput } from '../../shared/server-entry'
import { withOperator, type Where } from './control-client'
import { UsageError } from './errors'

export interface AddOptions extends Where {
  url?: string
  env?: string[]
  header?: string[]
  cwd?: string
  protocol?: ServerInput['protocol']
  disabled?: boolean
}

/** "K=V" pairs (repeatable --env / --header; a header may also be "Name: value"). */
function pairs(list: string[] | undefined, what: string, colon: boolean): Record<string, string> | undefined {
  if (!list?.length) return undefined
  const out: Record<string, string> = {}
  for (const item of list) {
    const m = (colon ? /^([^:=\s]+)\s*[:=]\s?(.*)$/s : /^([^=\s]+)=(.*)$/s).exec(item)
    if (!m) throw new UsageError(`${what} "${item}" must look like ${colon ? 'NAME=value or "Name: value"' : 'NAME=value'}`)
    out[m[1]] = m[2]
  }
  return out
}

export function addInput(name: string, command: string[], o: AddOptions): ServerInput {
  if (o.url && command.length) throw new UsageError('give either --url URL or -- COMMAND ARGS…, not both')
  if (!o.url && !command.length) throw new UsageError(`say what to run: toolgate servers add ${name} -- COMMAND ARGS…, or --url URL`)
  const env = pairs(o.env, '--env', false)
  const headers = pairs(o.header, '--header', true)
  return {
    name,
    ...(o.url ? { url: o.url } : { command: command[0], ...(command.length > 1 ? { args: command.slice(1) } : {}) }),
    ...(env ? { env } : {}),
    ...(headers ? { headers } : {}),
    ...(o.cwd ? { cwd: o.cwd } : {}),
    ...(o.protocol ? { protocol: o.protocol } : {}),
    ...(o.disabled ? { enabled: false } : {}),
  }
}

export async function serversAdd(name: string, command: string[], o: AddOptions): Promise<void> {
  const input = addInput(name, command, o)
  await withOperator(o, async (op) => {
    process.stdout.write((await op.api.addServer(input)).message + '\n')
    process.stdout.write(`Next: toolgate servers inspect ${name}   (lists its tools), then: toolgate servers approve ${name}\n`)
  })
}

export async function serversRemove(name: string, o: Where): Promise<void> {
  await withOperator(o, async (op) => {
    process.stdout.write((await op.api.removeServer(name)).message + '\n')
  })
}
