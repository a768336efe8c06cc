// `toolgate confirmations [list|show ID|allow ID|deny ID|ask TARGET on|off]`, run as the built CLI
// against a live `toolgate serve` while an agent's call waits for the user's OK over MCP.
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, fixtureEntry, logLines, runCli, startServe, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, textOf, type McpHandle } from '../helpers/mcp-client'

useCleanup()

describe('toolgate confirmations', () => {
  let serve: Serve
  let agent: McpHandle
  let tmp: string
  const cli = (...args: string[]) => runCli([...args, ...serve.flags])
  const log = () => logLines(path.join(tmp, 'notes.log'))
  /** the id of the waiting call whose list line matches `re` */
  const waitingId = (re: RegExp) =>
    waitFor(
      async () => {
        const out = await cli('confirmations')
        return out.stdout
          .split('\n')
          .find((l) => re.test(l))
          ?.split(/\s+/)[0]
      },
      20_000,
      `a list line matching ${re}`,
    )

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-cli-confirm-')
    const tools = writeJson(path.join(tmp, 'tools.json'), [
      { name: 'read_notes', description: 'Read the notes', annotations: { readOnlyHint: true } },
      { name: 'edit_notes', description: 'Edit the notes', annotations: { readOnlyHint: false } },
    ])
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      agents: [{ name: 'writer', servers: '*', permissions: ['read', 'write'] }],
      mcpServers: { notes: fixtureEntry(tools, path.join(tmp, 'notes.log'), { quarantined: false, confirm: 'write' }) },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    agent = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}`, 'x-toolgate-agent': 'writer' })
    await waitForServerState(serve, 'notes', 'connected')
  }, 60_000)

  afterAll(async () => {
    await agent?.close()
    await stopServe(serve)
  })

  it('lists the waiting call, shows it in full (escaped), and allow runs it', async () => {
    expect((await cli('confirmations')).stdout).toMatch(/No calls wait for your confirmation/)
    const call = agent.call('call_tool_write', { name: 'notes:edit_notes', args: { text: 'rename \u001b[2Jthe heading' } })
    const id = await waitingId(/notes:edit_notes/)
    const line = (await cli('confirmations', 'list')).stdout.split('\n').find((l) => l.startsWith(id ?? '?')) ?? ''
    expect(line).toMatch(/waits \d+ s\s+writer\s+notes:edit_notes\s+call_tool_write\s+\{"text":"rename \\u001b\[2Jthe heading"\}/)
    const shown = await cli('confirmations', 'show', id as string)
    expect(shown.code).toBe(0)
    expect(shown.stdout).toMatch(/writer wants to call notes:edit_notes \(call_tool_write\)/)
    expect(shown.stdout).toMatch(/the operator requires it \("confirm": "write"/)
    expect(shown.stdout).toMatch(/HMAC [0-9a-f]{64}/)
    // nothing but printable text reaches the terminal
    expect(shown.stdout).not.toMatch(/\u001b/)
    const json = JSON.parse((await cli('confirmations', 'list', '--json')).stdout) as { confirmations: Array<{ id: string }> }
    expect(json.confirmations.map((c) => c.id)).toEqual([id])

    const allowed = await cli('confirmations', 'allow', id as string)
    expect(allowed.code).toBe(0)
    expect(allowed.stdout).toMatch(/Allowed this one call of notes:edit_notes/)
    expect((await call).isError).toBeFalsy()
    expect(log().map((l) => l.arguments)).toEqual([{ text: 'rename \u001b[2Jthe heading' }])
    // answered once: again is refused (exit 1), and the record says the CLI did it
    expect((await cli('confirmations', 'allow', id as string)).code).toBe(1)
    expect((await cli('confirmations', 'list', '--status', 'allowed')).stdout).toMatch(new RegExp(`${id}\\s+allowed \\(cli\\)`))
  }, 60_000)

  it('deny answers the agent CALL_DECLINED; nothing runs', async () => {
    const before = log().length
    const call = agent.call('call_tool_write', { name: 'notes:edit_notes', args: { text: 'no' } })
    const id = await waitingId(/"text":"no"/)
    const denied = await cli('confirmations', 'deny', id as string)
    expect(denied.code).toBe(0)
    expect(textOf(await call)).toMatch(/^CALL_DECLINED: /)
    expect(log().length).toBe(before)
  }, 60_000)

  it('ask SERVER:TOOL on|off is the user switch; off never removes the config rule', async () => {
    const on = await cli('confirmations', 'ask', 'notes:read_notes', 'on')
    expect(on.code).toBe(0)
    expect(on.stdout).toMatch(/Calls of notes:read_notes now wait for your OK/)
    const call = agent.call('call_tool_read', { name: 'notes:read_notes' })
    const id = await waitingId(/notes:read_notes/)
    await cli('confirmations', 'deny', id as string)
    expect(textOf(await call)).toMatch(/^CALL_DECLINED: /)
    expect((await cli('confirmations', 'ask', 'notes:read_notes', 'off')).code).toBe(0)
    expect((await agent.call('call_tool_read', { name: 'notes:read_notes' })).isError).toBeFalsy()
    const off = await cli('confirmations', 'ask', 'notes:edit_notes', 'off')
    expect(off.stdout).toMatch(/operator requires confirmation here \("confirm": "write"/)
  }, 60_000)

  it('mistakes: an unknown id exits 1, a bad switch or status exits 2, each with one clear line', async () => {
    const unknown = await cli('confirmations', 'allow', 'c_nope')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/no confirmation "c_nope"/)
    const show = await cli('confirmations', 'show', 'c_nope')
    expect(show.code).toBe(1)
    const bad = await cli('confirmations', 'ask', 'notes', 'maybe')
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/say "on" or "off"/)
    const status = await cli('confirmations', 'list', '--status', 'weird')
    expect(status.code).toBe(2)
    expect(status.stderr).toMatch(/--status must be one of/)
  }, 60_000)
})
