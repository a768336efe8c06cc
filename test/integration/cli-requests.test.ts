// `toolgate requests [list|grant ID --for …|deny ID]` and `--for` on enable/approve, run as the
// built CLI against a live `toolgate serve` while an agent asks over MCP.
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  assertBuilt,
  fixtureEntry,
  logLines,
  runCli,
  startServe,
  tempDir,
  waitForServerState,
  toolRow,
  waitForToolStatus,
  writeJson,
  type Serve,
} from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, jsonOf, type McpHandle } from '../helpers/mcp-client'

useCleanup()

describe('toolgate requests', () => {
  let serve: Serve
  let agent: McpHandle
  let tmp: string
  const cli = (...args: string[]) => runCli([...args, ...serve.flags])
  type Request = { id: string; status: string; granted_for?: string; until?: string }
  /** The request as the control API keeps it (the state, not the CLI's wording). */
  const request = async (id: string): Promise<Request | undefined> =>
    (await serve.api<{ requests: Request[] }>('GET', '/api/v1/requests')).json.requests.find((r) => r.id === id)
  /** The agent's call of notes:`tool`: did it reach the server? */
  const reaches = async (tool: string, variant: string): Promise<boolean> => {
    const before = logLines(path.join(tmp, 'notes.log')).filter((l) => l.tool === tool).length
    const r = await agent.call(variant, { name: `notes:${tool}`, args: {} })
    const after = logLines(path.join(tmp, 'notes.log')).filter((l) => l.tool === tool).length
    expect(r.isError === true, JSON.stringify(r)).toBe(after === before)
    return after > before
  }
  /** The tool's running timed grant, as the control API shows it. */
  const grantOf = (row: object | undefined) => (row as { grant?: { until: string } } | undefined)?.grant
  /** `until` lies `ms` after a moment between t0 and now (the CLI read the clock in between). */
  const endsAfter = (until: string | undefined, t0: number, ms: number) => {
    const at = Date.parse(until ?? '')
    expect(at, `until ${until}`).toBeGreaterThanOrEqual(Math.floor(t0 / 1000) * 1000 + ms)
    expect(at, `until ${until}`).toBeLessThanOrEqual(Date.now() + ms)
  }

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
    await stopServe(serve)
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

    expect(await reaches('edit_notes', 'call_tool_write')).toBe(false)
    const t0 = Date.now()
    const g = await cli('requests', 'grant', asked.request_id, '--for', '1h')
    expect(g.code).toBe(0)
    expect(g.stdout).toMatch(/Re-enabled notes:edit_notes until .*\(for 1 hour\)/)
    // the state: the tool is callable under a grant that ends in an hour, the request says so, the agent's call gets through
    const row = await waitForToolStatus(serve, 'notes:edit_notes', 'callable')
    endsAfter(grantOf(row)?.until, t0, 3_600_000)
    expect(await request(asked.request_id)).toMatchObject({ status: 'granted', granted_for: '1h', until: grantOf(row)?.until })
    expect(await reaches('edit_notes', 'call_tool_write')).toBe(true)
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
    const denied = async () => {
      expect((await request(asked.request_id))?.status).toBe('denied')
      const row = await toolRow(serve, 'notes:read_notes')
      expect(row?.status).toBe('disabled_by_user')
      expect(grantOf(row)).toBeUndefined()
      expect(await reaches('read_notes', 'call_tool_read')).toBe(false)
    }
    await denied()
    const again = await cli('requests', 'grant', asked.request_id, '--for', 'always')
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/already denied/)
    const bad = await cli('requests', 'grant', asked.request_id, '--for', 'a while')
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/for must be "once", "always", or a duration/)
    const unknown = await cli('requests', 'deny', 'r_nosuch')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/no access request "r_nosuch"/)
    // none of the refused answers changed anything
    await denied()
  })

  it('tools enable --for and servers enable --for say when it ends', async () => {
    const t0 = Date.now()
    const t = await cli('tools', 'enable', 'notes:read_notes', '--for', '8h')
    expect(t.code).toBe(0)
    expect(t.stdout).toMatch(/Re-enabled notes:read_notes until \d{4}-\d\d-\d\dT.*; then it is switched off again\./)
    const timed = await waitForToolStatus(serve, 'notes:read_notes', 'callable')
    endsAfter(grantOf(timed)?.until, t0, 8 * 3_600_000)
    expect(t.stdout).toContain(grantOf(timed)?.until ?? 'no grant')
    const perm = await cli('tools', 'enable', 'notes:read_notes')
    expect(perm.stdout).toMatch(/for good/)
    const kept = await toolRow(serve, 'notes:read_notes')
    expect(kept?.status).toBe('callable')
    expect(grantOf(kept)).toBeUndefined()
    expect((await cli('servers', 'enable', 'notes', '--for', 'soon')).code).toBe(2)
    const notes = (await serve.api<{ servers: Array<{ name: string; grant?: unknown }> }>('GET', '/api/v1/servers')).json.servers.find(
      (x) => x.name === 'notes',
    )
    expect(notes).toBeDefined()
    expect(notes?.grant).toBeUndefined()
  })
})
