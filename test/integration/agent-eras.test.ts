// Agents of both protocol eras: a 2025 client (SDK 1.x, initialize and a
// session) and a 2026-07-28 client (SDK 2.x, server/discover and the per-request envelope) get the
// same tools, locks, scopes and answers, over HTTP /mcp, over the embedded `toolgate stdio` and over
// the bridge. Under 2026-07-28 what an agent sees depends on its credential, never on a connection:
// tools/list is marked cacheScope private. And the protocol edges: ping before initialize, batches
// of a 2025-03-26 session, malformed JSON on HTTP.
import fs from 'node:fs'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  BIN,
  ROOT,
  assertBuilt,
  cliEnv,
  fixtureEntry,
  rawRequest,
  runCli,
  startServe,
  tempDir,
  track,
  waitFor,
  waitForServerState,
  writeJson,
  type FixtureTool,
  type Serve,
} from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, connectStdio, jsonOf, textOf, type McpHandle } from '../helpers/mcp-client'
import { connectHttpV2, connectStdioV2, type V2Handle } from '../helpers/mcp-v2-client'
import { agentToken, MODERN_BARE, modernPost } from '../helpers/modern-http'

const TOOLS: FixtureTool[] = [
  { name: 'read_notes', description: 'Read the notes in the notebook', annotations: { readOnlyHint: true } },
  { name: 'write_note', description: 'Write a note into the notebook', annotations: { readOnlyHint: false } },
  { name: 'burn_notes', description: 'Burn every note in the notebook', annotations: { destructiveHint: true } },
]

useCleanup()

type Agent = McpHandle | V2Handle

/** The answers an agent gets for the same questions: what must not depend on the era. */
async function answers(a: Agent): Promise<Record<string, string>> {
  const list = await a.client.listTools()
  return {
    tools: list.tools
      .map((t) => t.name)
      .sort()
      .join(','),
    search: textOf(await a.call('retrieve_tools', { query: 'notes notebook' })),
    searchLocked: textOf(await a.call('retrieve_tools', { query: 'burn notes', include_disabled: true })),
    read: textOf(await a.call('call_tool_read', { name: 'notes:read_notes', args: { page: 1 } })),
    locked: textOf(await a.call('call_tool_destructive', { name: 'notes:burn_notes', args: {} })),
    weak: textOf(await a.call('call_tool_read', { name: 'notes:write_note', args: { text: 'x' } })),
    describe: textOf(await a.call('describe_tool', { name: 'notes:read_notes' })),
  }
}

describe('agents of both eras behind one Toolgate', () => {
  let tmp: string
  let serve: Serve
  let configPath: string
  const open: Agent[] = []

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-eras-')
    const toolsFile = writeJson(path.join(tmp, 'tools.json'), TOOLS)
    configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { notes: { ...fixtureEntry(toolsFile, path.join(tmp, 'logs', 'notes.log')), quarantined: false, disabled_tools: ['burn_notes'] } },
      agents: [{ name: 'reader', servers: ['notes'], permissions: ['read'] }],
    })
    fs.mkdirSync(path.join(tmp, 'logs'), { recursive: true })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'notes', 'connected')
  }, 60_000)

  afterAll(async () => {
    for (const a of open.splice(0)) await a.close().catch(() => {})
    await stopServe(serve)
  })

  const auth = (): Record<string, string> => ({ authorization: `Bearer ${serve.key}` })

  it('over HTTP /mcp: a 2025 client and a 2026-07-28 client get the same tools, locks and answers', async () => {
    const old = await connectHttp(`${serve.url}/mcp`, auth())
    const modern = await connectHttpV2(`${serve.url}/mcp`, auth(), 'modern')
    open.push(old, modern)
    expect(modern.client.getProtocolEra()).toBe('modern')
    expect(modern.client.getNegotiatedProtocolVersion()).toBe('2026-07-28')
    const a = await answers(old)
    const b = await answers(modern)
    expect(b).toEqual(a)
    expect(a.locked).toMatch(/^TOOL_BLOCKED \(disabled_by_config\):/)
    expect(a.weak).toMatch(/call_tool_write/)
    expect(jsonOf(await modern.call('upstream_servers', { operation: 'get', name: 'notes' }))).toMatchObject({
      server: { protocol_version: expect.any(String) },
    })
  })

  it('under 2026-07-28 the list depends on the credential, never on a connection, and is marked private', async () => {
    const token = await agentToken(serve, 'reader')
    const list = async (bearer: string) => {
      const r = await modernPost(serve, bearer, 'tools/list', {}, { envelope: MODERN_BARE })
      expect(r.status, r.body).toBe(200)
      return (JSON.parse(r.body) as { result: { tools: Array<{ name: string }>; cacheScope: string; ttlMs: number } }).result
    }
    const reader1 = await list(token)
    const reader2 = await list(token) // another request, another TCP connection: the same answer
    const admin = await list(serve.key)
    expect(reader2).toEqual(reader1)
    expect(reader1.cacheScope).toBe('private')
    expect(reader1.ttlMs).toBeGreaterThan(0)
    expect(reader1.tools.map((t) => t.name)).toEqual(['retrieve_tools', 'call_tool_read', 'describe_tool', 'upstream_servers', 'request_access'])
    expect(admin.tools.map((t) => t.name)).toContain('call_tool_destructive')
    // the reader's token cannot reach the write variant, whichever era asks
    const v2 = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${token}` }, 'modern')
    open.push(v2)
    expect(textOf(await v2.call('call_tool_write', { name: 'notes:write_note', args: { text: 'x' } }))).toMatch(/^unknown tool "call_tool_write"/)
    // a revoked token is refused at once, in the stateless era too (no session to outlive it)
    await runCli(['agents', 'revoke', 'reader', '--all', ...serve.flags])
    const after = await modernPost(serve, token, 'tools/list', {}, { id: 2, envelope: MODERN_BARE })
    expect(after.status).toBe(401)
  })

  it('malformed JSON on HTTP /mcp answers a JSON-RPC parse error (-32700, id null)', async () => {
    const r = await rawRequest(`${serve.url}/mcp`, {
      method: 'POST',
      headers: { ...auth(), 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: '{"jsonrpc": "2.0", "id": 1, "method": ',
    })
    expect(r.status).toBe(400)
    const body = JSON.parse(r.body) as { jsonrpc: string; id: unknown; error: { code: number } }
    expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } })
  })

  it('over the stdio bridge: both eras relayed, with the same answers as over HTTP', async () => {
    const old = await connectStdio(['--config', configPath, '--data-dir', serve.dataDir])
    const modern = await connectStdioV2(['--config', configPath, '--data-dir', serve.dataDir], 'auto')
    open.push(old, modern)
    expect(modern.client.getProtocolEra()).toBe('modern')
    const viaHttp = await answers(await connectHttpV2(`${serve.url}/mcp`, auth(), 'modern'))
    expect(await answers(old)).toEqual(viaHttp)
    expect(await answers(modern)).toEqual(viaHttp)
  })

  it('the bridge answers ping before initialize with {}, and a 2025-03-26 batch with one array', async () => {
    const lines = await rawLines(
      ['--config', configPath, '--data-dir', serve.dataDir],
      [
        { jsonrpc: '2.0', id: 'p', method: 'ping' },
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        [
          { jsonrpc: '2.0', id: 2, method: 'tools/list' },
          { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'describe_tool', arguments: { name: 'notes:read_notes' } } },
          { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'x', progress: 1 } },
        ],
      ],
    )
    expectEdges(lines)
  })

  it('the embedded stdio answers the same: ping before initialize, a 2025-03-26 batch, a later version refuses batches', async () => {
    const own = tempDir('toolgate-eras-own-')
    const cfg = writeJson(path.join(own, 'mcp_config.json'), { mcpServers: {} })
    const lines = await rawLines(
      ['--config', cfg, '--data-dir', path.join(own, 'data')],
      [
        { jsonrpc: '2.0', id: 'p', method: 'ping' },
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        [
          { jsonrpc: '2.0', id: 2, method: 'tools/list' },
          { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'describe_tool', arguments: { name: 'notes:read_notes' } } },
          { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'x', progress: 1 } },
        ],
      ],
    )
    expectEdges(lines, false)

    const later = await rawLines(
      ['--config', cfg, '--data-dir', path.join(own, 'data2')],
      [
        { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } },
        [{ jsonrpc: '2.0', id: 2, method: 'tools/list' }],
      ],
    )
    const refused = later.find((m) => !Array.isArray(m) && (m as { error?: unknown }).error) as { id: unknown; error: { code: number; message: string } }
    expect(refused).toMatchObject({ id: null, error: { code: -32600 } })
    expect(refused.error.message).toMatch(/batches are not supported in protocol 2025-11-25/)

    // a 2026-07-28 client of the embedded stdio (it owns the data dir): the same tools as a 2025 one
    const modern = await connectStdioV2(['--config', cfg, '--data-dir', path.join(own, 'data3')], 'auto')
    expect(modern.client.getProtocolEra()).toBe('modern')
    const names = (await modern.client.listTools()).tools.map((t) => t.name)
    await modern.close()
    const old = await connectStdio(['--config', cfg, '--data-dir', path.join(own, 'data3')])
    expect((await old.client.listTools()).tools.map((t) => t.name)).toEqual(names)
    await old.close()
  })
})

/** Spawns `toolgate stdio`, writes each message as a line (waiting for the answer of requests), returns every parsed stdout line. */
async function rawLines(args: string[], messages: unknown[]): Promise<unknown[]> {
  const child = spawn(process.execPath, [BIN, 'stdio', ...args], { env: cliEnv({}), cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] })
  track(child.pid)
  const out: unknown[] = []
  let partial = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    partial += d
    const parts = partial.split('\n')
    partial = parts.pop() as string
    for (const p of parts) if (p.trim()) out.push(JSON.parse(p))
  })
  let err = ''
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d))
  for (const m of messages) {
    const before = out.length
    child.stdin.write(`${JSON.stringify(m)}\n`)
    const expectsAnswer = Array.isArray(m) || (m as { id?: unknown }).id !== undefined
    if (expectsAnswer) await waitFor(() => out.length > before, 30_000, `an answer to ${JSON.stringify(m).slice(0, 80)}\n${err}`)
  }
  child.stdin.end()
  await new Promise((r) => child.once('exit', r))
  return out
}

function expectEdges(lines: unknown[], withUpstream = true): void {
  expect(lines[0]).toEqual({ jsonrpc: '2.0', id: 'p', result: {} })
  expect(lines[1]).toMatchObject({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-03-26' } })
  const batch = lines[2] as Array<{ id: number; result: Record<string, unknown> }>
  expect(Array.isArray(batch)).toBe(true)
  expect(batch.map((r) => r.id).sort()).toEqual([2, 3]) // the notification in the batch has no answer
  const list = batch.find((r) => r.id === 2)?.result as { tools: Array<{ name: string }> }
  expect(list.tools.map((t) => t.name)).toContain('retrieve_tools')
  const described = batch.find((r) => r.id === 3)?.result as { content: Array<{ text: string }>; isError?: boolean }
  if (withUpstream) expect(JSON.parse(described.content[0].text)).toMatchObject({ name: 'notes:read_notes', call_with: 'call_tool_read' })
  else expect(described.isError).toBe(true) // no such server here: still one answer in the array
}
