// The CLI's help tells what each command does (polish): every command and subcommand
// listed by `toolgate --help` and `toolgate GROUP --help` has a description, and the activity
// filters name every value the API accepts (`declined` was missing), read from the built CLI.
import { describe, expect, it } from 'vitest'
import { ACTIVITY_KINDS, CALL_OUTCOMES } from '../../src/shared/activity'
import { assertBuilt, runCli } from '../helpers/cli'

/** The "Commands:" section of a commander help text: [name with arguments, description] per command. */
function commands(help: string): Array<[string, string]> {
  const out: Array<[string, string]> = []
  let inside = false
  for (const line of help.split('\n')) {
    if (/^Commands:/.test(line)) inside = true
    else if (inside && /^\S/.test(line)) inside = false
    else if (inside && /^ {2}\S/.test(line)) {
      const m = /^ {2}(\S(?:.*?\S)?)(?: {2,}(\S.*))?$/.exec(line)
      if (m) out.push([m[1], m[2] ?? ''])
    }
  }
  return out
}

describe('toolgate --help', () => {
  it('every command and every subcommand of a group says what it does', async () => {
    assertBuilt()
    const root = await runCli(['--help'])
    expect(root.code).toBe(0)
    const top = commands(root.stdout)
    expect(top.length).toBeGreaterThan(10)
    const missing: string[] = []
    for (const [name, text] of top) {
      if (!text) missing.push(name)
      const group = name.split(' ')[0]
      if (group === 'help') continue
      const sub = await runCli([group, '--help'])
      for (const [n, t] of commands(sub.stdout)) if (!t) missing.push(`${group} ${n}`)
    }
    expect(missing).toEqual([])
    // the groups the issue named, by name
    const servers = commands((await runCli(['servers', '--help'])).stdout).map(([n]) => n.split(' ')[0])
    expect(servers).toEqual(expect.arrayContaining(['list', 'enable', 'disable', 'approve', 'quarantine', 'restart', 'inspect']))
  }, 120_000)

  it('activity --help lists every kind and outcome the filters take, declined included', async () => {
    const help = (await runCli(['activity', '--help'])).stdout.replace(/\s+/g, ' ')
    const outcome = /--outcome <outcome> (.*?)(?= --since)/.exec(help)?.[1] ?? ''
    expect(outcome).toContain('declined')
    for (const o of CALL_OUTCOMES) expect(outcome).toContain(o)
    const kind = /--kind <kind> (.*?)(?= --outcome)/.exec(help)?.[1] ?? ''
    for (const k of ACTIVITY_KINDS) expect(kind).toContain(k)
  })
})
