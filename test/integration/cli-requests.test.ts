// `toolgate requests [list|grant ID --for …|deny ID]` and `--for` on enable/approve, run as the
// built CLI against a live `toolgate serve` while an agent asks over MCP (issue 15).
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  assertBuilt,
  cleanupProcesses,
  cleanupTemp,
  fixtureEntry,
  runCli,
  startServe,
  stopProcess,
  tempDir,
  waitForServerState,
  waitForToolStatus,
  writeJson,
  type Serve,
} from '../helpers/cli'
import { connectHttp, jsonOf, type McpHandle } from '../helpers/mcp-client'

afterAll(async () => {
  await cleanupProcesses()
  cleanupTemp()
})

describe('toolgate requests', () => {
  let serve: Serve
  let agent: McpHandle
  let tmp: string
  const cli = (...args: string[]) => runCli([...args, ...serve.flags])

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-cli-requests-')
    const tools = writeJson(path.join(tmp, 'tools.json'), [
      { name: 'read_notes', description: 'Read the notes', annotations: { readOnlyHint: true } },
      { name: 'edit_notes', description: 'Edit the notes', annotations: { readOnlyHint: false } },
    ])
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      agents: [{ name: 'writer', servers: '*', permissions: ['read', 'write'] }],
      mcpServers: { notes: fixtureEntry(tools, path.join(tmp, 'notes.log'), { quarantined: false }) },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    agent = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}`, 'x-toolgate-agent': 'writer' })
    await waitForServerState(serve, 'notes', 'connected')
  }, 60_000)

  afterAll(async () => {
    await agent?.close()
    if (serve) await stopProcess(serve.child)
  })

  it('lists a request with its agent, tool, lock and reason, then grants it for 1h', async () => {
    expect((await cli('tools', 'disable', 'notes:edit_notes')).code).toBe(0)
    const asked = jsonOf<{ request_id: string }>(await agent.call('request_access', { name: 'notes:edit_notes', reason: 'rename \u001b[2Jthe heading' }))
    const out = await cli('requests')
    expect(out.code).toBe(0)
    const line = out.stdout.split('\n').find((l) => l.startsWith(asked.request_id)) ?? ''
    expect(line).toMatch(/pending\s+writer\s+notes:edit_notes\s+disabled_by_user\s+1x\s+rename \\u\{1b\}\[2Jthe heading/)
    // nothing but printable text reaches the terminal
    // eslint-disable-next-line no-control-regex
    expect(/[\u0000-\u0009\u000b-\u001f]/.test(out.stdout)).toBe(false)

    const json = JSON.parse((await cli('requests', 'list', '--status', 'pending', '--json')).stdout) as { requests: Array<{ id: string }> }
    expect(json.requests.map((r) => r.id)).toContain(asked.request_id)

    const g = await cli('requests', 'grant', asked.request_id, '--for', '1h')
    expect(g.code).toBe(0)
    expect(g.stdout).toMatch(/Re-enabled notes:edit_notes until .*\(for 1 hour\)/)
    await waitForToolStatus(serve, 'notes:edit_notes', 'callable')
    expect((await cli('requests', 'list', '--status', 'granted')).stdout).toMatch(
      new RegExp(`${asked.request_id}\\s+granted 1h \\((1 hour|59 minutes) left\\)`),
    )
  })

  it('denies a request; a second answer and a bad --for are clear errors', async () => {
    expect((await cli('tools', 'disable', 'notes:read_notes')).code).toBe(0)
    const asked = jsonOf<{ request_id: string }>(await agent.call('request_access', { name: 'notes:read_notes', reason: 'read' }))
    const d = await cli('requests', 'deny', asked.request_id)
    expect(d.code).toBe(0)
    expect(d.stdout).toMatch(/Denied notes:read_notes to agent "writer"/)
    const again = await cli('requests', 'grant', asked.request_id, '--for', 'always')
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/already denied/)
    const bad = await cli('requests', 'grant', asked.request_id, '--for', 'a while')
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/for must be "once", "always", or a duration/)
    const unknown = await cli('requests', 'deny', 'r_nosuch')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/no access request "r_nosuch"/)
  })

  it('tools enable --for and servers enable --for say when it ends', async () => {
    const t = await cli('tools', 'enable', 'notes:read_notes', '--for', '8h')
    expect(t.code).toBe(0)
    expect(t.stdout).toMatch(/Re-enabled notes:read_notes until \d{4}-\d\d-\d\dT.*; then it is switched off again\./)
    const perm = await cli('tools', 'enable', 'notes:read_notes')
    expect(perm.stdout).toMatch(/for good/)
    expect((await cli('servers', 'enable', 'notes', '--for', 'soon')).code).toBe(2)
  })
})
