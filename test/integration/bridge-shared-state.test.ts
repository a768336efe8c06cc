// One state for every agent: `toolgate stdio` processes bridge to the live owner of the
// data dir (a `serve`, or the first embedded `stdio`) instead of starting upstreams of their own;
// a decision made through the control API applies to every connected client at once; a killed
// owner is taken over by one of the bridged clients, decisions made before the kill survive.
//
// These tests let Toolgate generate its own API key into <data-dir>/api_key (no TOOLGATE_API_KEY
// in any environment), as on a real machine where Claude Desktop launches `toolgate stdio`.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  assertBuilt,
  childPids,
  controlApi,
  fixtureEntry,
  keyFromDataDir,
  lockFile,
  logLines,
  launcherPid,
  processesMatching,
  readInstance,
  startServe,
  tempDir,
  trackDescendants,
  waitFor,
  waitForServerState,
  writeJson,
  type FixtureTool,
  type Serve,
} from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectStdio, jsonOf, textOf, waitForUpstreams, type McpHandle } from '../helpers/mcp-client'

const DOC_TOOLS: FixtureTool[] = [
  { name: 'read_doc', description: 'Read a document from the team wiki', annotations: { readOnlyHint: true } },
  { name: 'edit_doc', description: 'Edit a document in the team wiki', annotations: { readOnlyHint: false } },
]
const OTHER_TOOLS: FixtureTool[] = [{ name: 'list_tickets', description: 'List the open support tickets', annotations: { readOnlyHint: true } }]

useCleanup()

const SEVEN = ['retrieve_tools', 'call_tool_read', 'call_tool_write', 'call_tool_destructive', 'describe_tool', 'upstream_servers', 'request_access']

describe('a `serve` owner and `toolgate stdio` clients on the same data dir', () => {
  let tmp: string
  let dataDir: string
  let docTools: string
  let docLog: string
  let serve: Serve
  let stdioArgs: string[]
  let c1: McpHandle
  let c2: McpHandle
  const clients: McpHandle[] = []

  const stdio = async (extra: string[] = []): Promise<McpHandle> => {
    const c = await connectStdio([...stdioArgs, ...extra])
    clients.push(c)
    return c
  }

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-bridge-')
    dataDir = path.join(tmp, 'data')
    docTools = writeJson(path.join(tmp, 'doc-tools.json'), DOC_TOOLS)
    docLog = path.join(tmp, 'doc-calls.log')
    const otherTools = writeJson(path.join(tmp, 'other-tools.json'), OTHER_TOOLS)
    // lifecycle "always": each new owner (a takeover) starts the upstreams at once, as the tests wait for
    const configPath = writeJson(path.join(tmp, 'config', 'mcp_config.json'), {
      mcpServers: {
        wiki: fixtureEntry(docTools, docLog, { quarantined: false, lifecycle: 'always' }),
        support: fixtureEntry(otherTools, path.join(tmp, 'other-calls.log'), { quarantined: false, lifecycle: 'always' }),
      },
      agents: [{ name: 'viewer', servers: ['wiki'], permissions: ['read'] }],
    })
    stdioArgs = ['--config', configPath, '--data-dir', dataDir]
    serve = await startServe({ configPath, dataDir, key: null })
    await waitForServerState(serve, 'wiki', 'connected')
    await waitForServerState(serve, 'support', 'connected')
  }, 90_000)

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {})
    await stopServe(serve)
  })

  it('two stdio clients bridge to the running serve and start no upstream processes of their own', async () => {
    expect(readInstance(dataDir)).toMatchObject({ pid: serve.pid, kind: 'serve', url: serve.url, mcp_url: `${serve.url}/mcp` })
    c1 = await stdio()
    c2 = await stdio()
    for (const c of [c1, c2]) {
      expect((await c.client.listTools()).tools.map((t) => t.name)).toEqual(SEVEN)
      const servers = jsonOf<{ servers: Array<{ name: string; state: string }> }>(await c.call('upstream_servers', { operation: 'list' })).servers
      expect(servers.map((s) => [s.name, s.state])).toEqual([
        ['wiki', 'connected'],
        ['support', 'connected'],
      ])
    }
    expect(jsonOf(await c1.call('call_tool_read', { name: 'wiki:read_doc', args: { page: 'from-c1' } }))).toEqual({
      tool: 'read_doc',
      arguments: { page: 'from-c1' },
    })
    expect(jsonOf(await c2.call('call_tool_read', { name: 'wiki:read_doc', args: { page: 'from-c2' } }))).toEqual({
      tool: 'read_doc',
      arguments: { page: 'from-c2' },
    })
    expect(logLines(docLog).map((l) => l.arguments.page)).toEqual(['from-c1', 'from-c2'])

    // one upstream process, owned by serve; the stdio processes have no children
    const upstreams = processesMatching(docTools)
    expect(upstreams).toHaveLength(1)
    expect(launcherPid(upstreams[0])).toBe(serve.pid)
    expect(childPids(c1.pid as number)).toEqual([])
    expect(childPids(c2.pid as number)).toEqual([])
    expect(readInstance(dataDir)?.pid).toBe(serve.pid)
  })

  it('a tool disabled through the control API is blocked for both bridged clients at once, and enabling it frees both', async () => {
    const before = logLines(docLog).length
    const off = await serve.api('POST', '/api/v1/servers/wiki/tools/edit_doc/disable')
    expect(off.status).toBe(200)
    const [r1, r2] = await Promise.all([
      c1.call('call_tool_write', { name: 'wiki:edit_doc', args: { page: 'x' } }),
      c2.call('call_tool_write', { name: 'wiki:edit_doc', args: { page: 'y' } }),
    ])
    for (const r of [r1, r2]) {
      expect(r.isError).toBe(true)
      expect(textOf(r)).toMatch(/^TOOL_BLOCKED \(disabled_by_user\): /)
    }
    expect(logLines(docLog).length).toBe(before)

    expect((await serve.api('POST', '/api/v1/servers/wiki/tools/edit_doc/enable')).status).toBe(200)
    const [ok1, ok2] = await Promise.all([
      c1.call('call_tool_write', { name: 'wiki:edit_doc', args: { page: 'x' } }),
      c2.call('call_tool_write', { name: 'wiki:edit_doc', args: { page: 'y' } }),
    ])
    expect(ok1.isError).toBeFalsy()
    expect(ok2.isError).toBeFalsy()
    expect(logLines(docLog).length).toBe(before + 2)
  })

  it('`toolgate stdio --agent viewer` bridged to the owner only sees and calls what the agent may', async () => {
    const viewer = await stdio(['--agent', 'viewer'])
    expect(childPids(viewer.pid as number)).toEqual([])
    expect((await viewer.client.listTools()).tools.map((t) => t.name)).toEqual([
      'retrieve_tools',
      'call_tool_read',
      'describe_tool',
      'upstream_servers',
      'request_access',
    ])
    const servers = jsonOf<{ servers: Array<{ name: string }> }>(await viewer.call('upstream_servers', { operation: 'list' })).servers
    expect(servers.map((s) => s.name)).toEqual(['wiki'])
    const found = jsonOf<{ tools: Array<{ name: string }> }>(await viewer.call('retrieve_tools', { query: 'document wiki tickets support', limit: 50 }))
    expect(found.tools.map((t) => t.name)).toEqual(['wiki:read_doc'])

    const before = logLines(docLog).length
    const write = await viewer.call('call_tool_read', { name: 'wiki:edit_doc', args: {} })
    expect(textOf(write)).toMatch(/not in scope/)
    const other = await viewer.call('call_tool_read', { name: 'support:list_tickets', args: {} })
    expect(textOf(other)).toMatch(/not in scope/)
    expect(logLines(docLog).length).toBe(before)
    expect(jsonOf(await viewer.call('call_tool_read', { name: 'wiki:read_doc', args: { page: 'viewer' } }))).toEqual({
      tool: 'read_doc',
      arguments: { page: 'viewer' },
    })
  })

  it('when the `serve` owner is killed, the bridged clients take the data dir over and keep working', async () => {
    // an acknowledged decision made just before the crash must survive it
    expect((await serve.api('POST', '/api/v1/servers/wiki/tools/read_doc/disable')).status).toBe(200)

    trackDescendants(serve.pid)
    serve.child.kill('SIGKILL')
    expect(await serve.exited).toEqual({ code: null, signal: 'SIGKILL' })

    // one of the bridges becomes the owner; the others reconnect to it
    const bridges = clients.map((c) => c.pid)
    const heir = await waitFor(
      () => {
        const pid = readInstance(dataDir)?.pid
        return pid !== undefined && bridges.includes(pid) ? pid : undefined
      },
      20_000,
      'a bridged stdio to take the data dir over',
    )
    expect(readInstance(dataDir)).toMatchObject({ pid: heir, kind: 'stdio' })
    expect(fs.readFileSync(lockFile(dataDir), 'utf8').trim()).toBe(String(heir))
    await waitForUpstreams(c1, ['wiki', 'support'])

    const before = logLines(docLog).length
    expect(jsonOf(await c1.call('call_tool_write', { name: 'wiki:edit_doc', args: { page: 'after' } }))).toEqual({
      tool: 'edit_doc',
      arguments: { page: 'after' },
    })
    await waitFor(() => processesMatching(docTools).length === 1, 15_000, "the dead owner's upstream to exit")
    expect(launcherPid(processesMatching(docTools)[0])).toBe(heir)

    // the decision acknowledged before the kill is still in force, for every client
    for (const c of [c1, c2]) expect(textOf(await c.call('call_tool_read', { name: 'wiki:read_doc', args: {} }))).toMatch(/^TOOL_BLOCKED \(disabled_by_user\)/)
    expect(logLines(docLog).length).toBe(before + 1)

    // a new `toolgate stdio` bridges to the heir; the heir serves the control API too
    const late = await stdio()
    expect(childPids(late.pid as number)).toEqual([])
    const inst = readInstance(dataDir)
    const key = keyFromDataDir(dataDir) as string
    expect(inst?.url).toBeTruthy()
    expect((await controlApi(inst?.url as string, key, 'POST', '/api/v1/servers/wiki/tools/read_doc/enable')).status).toBe(200)
    expect((await late.call('call_tool_read', { name: 'wiki:read_doc', args: {} })).isError).toBeFalsy()
  })
})

describe('embedded `toolgate stdio` owners', () => {
  let tmp: string
  let dataDir: string
  let tools: string
  let log: string
  let args: string[]
  const clients: McpHandle[] = []

  beforeAll(() => {
    assertBuilt()
    tmp = tempDir('toolgate-embedded-')
    dataDir = path.join(tmp, 'data')
    tools = writeJson(path.join(tmp, 'tools.json'), DOC_TOOLS)
    log = path.join(tmp, 'calls.log')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { wiki: fixtureEntry(tools, log, { quarantined: false, lifecycle: 'always' }) },
    })
    args = ['--config', configPath, '--data-dir', dataDir]
  })

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {})
  })

  it('on a fresh data dir, the first stdio owns it and the second bridges to the first', async () => {
    const first = await connectStdio(args)
    clients.push(first)
    await waitFor(() => readInstance(dataDir)?.pid === first.pid, 20_000, 'the first stdio to own the data dir')
    expect(readInstance(dataDir)).toMatchObject({ kind: 'stdio', pid: first.pid })
    await waitForUpstreams(first, ['wiki'])

    const second = await connectStdio(args)
    clients.push(second)
    expect(readInstance(dataDir)?.pid).toBe(first.pid)
    expect(childPids(second.pid as number)).toEqual([])
    expect(processesMatching(tools)).toHaveLength(1)

    expect((await first.call('call_tool_read', { name: 'wiki:read_doc', args: { by: 'first' } })).isError).toBeFalsy()
    expect((await second.call('call_tool_read', { name: 'wiki:read_doc', args: { by: 'second' } })).isError).toBeFalsy()
    expect(logLines(log).map((l) => l.arguments.by)).toEqual(['first', 'second'])

    // one state: a decision through the first owner's control API applies to both
    const inst = readInstance(dataDir)
    const key = keyFromDataDir(dataDir) as string
    expect((await controlApi(inst?.url as string, key, 'POST', '/api/v1/servers/wiki/tools/read_doc/disable')).status).toBe(200)
    for (const c of [first, second])
      expect(textOf(await c.call('call_tool_read', { name: 'wiki:read_doc', args: {} }))).toMatch(/^TOOL_BLOCKED \(disabled_by_user\)/)
    expect((await controlApi(inst?.url as string, key, 'POST', '/api/v1/servers/wiki/tools/read_doc/enable')).status).toBe(200)
  })

  it('several stdio clients started at the same moment end up with exactly one owner, and all of them work', async () => {
    for (const c of clients.splice(0)) await c.close().catch(() => {})
    await waitFor(() => readInstance(dataDir) === null && processesMatching(tools).length === 0, 15_000, 'the previous owner to shut down')

    const started = await Promise.allSettled([1, 2, 3, 4].map(() => connectStdio(args)))
    for (const s of started) if (s.status === 'fulfilled') clients.push(s.value)
    const errors = started.filter((s): s is PromiseRejectedResult => s.status === 'rejected').map((s) => String((s.reason as Error).message))
    expect(errors).toEqual([])

    await waitFor(() => readInstance(dataDir) !== null, 20_000, 'an owner')
    const owner = readInstance(dataDir)?.pid
    expect(clients.map((c) => c.pid)).toContain(owner)
    for (const c of clients) if (c.pid !== owner) expect(childPids(c.pid as number)).toEqual([])
    const ownerClient = clients.find((c) => c.pid === owner) as McpHandle
    await waitForUpstreams(ownerClient, ['wiki'])
    expect(processesMatching(tools)).toHaveLength(1)
    for (const [i, c] of clients.entries()) {
      const r = await c.call('call_tool_read', { name: 'wiki:read_doc', args: { client: i } })
      expect(r.isError, textOf(r)).toBeFalsy()
    }
  })

  it('several stdio clients started at the same moment on a STALE lock (dead owner) still end up with exactly one owner', async () => {
    for (const c of clients.splice(0)) await c.close().catch(() => {})
    await waitFor(() => readInstance(dataDir) === null && processesMatching(tools).length === 0, 15_000, 'the previous owner to shut down')
    // a crashed owner left its lock and instance.json behind
    fs.mkdirSync(dataDir, { recursive: true })
    fs.writeFileSync(path.join(dataDir, 'toolgate.lock'), '999999')
    fs.writeFileSync(
      path.join(dataDir, 'instance.json'),
      JSON.stringify({
        pid: 999999,
        url: 'http://127.0.0.1:1',
        mcp_url: 'http://127.0.0.1:1/mcp',
        started_at: new Date().toISOString(),
        version: '0',
        kind: 'stdio',
        api_key_file: null,
      }),
    )

    const started = await Promise.allSettled([1, 2, 3, 4].map(() => connectStdio(args)))
    for (const s of started) if (s.status === 'fulfilled') clients.push(s.value)
    expect(started.filter((s) => s.status === 'rejected').map((s) => String(((s as PromiseRejectedResult).reason as Error).message))).toEqual([])
    await waitFor(() => readInstance(dataDir)?.pid !== undefined && readInstance(dataDir)?.pid !== 999999, 20_000, 'a new owner')
    const owner = readInstance(dataDir)?.pid
    const ownerClient = clients.find((c) => c.pid === owner) as McpHandle
    await waitForUpstreams(ownerClient, ['wiki'])
    expect(processesMatching(tools)).toHaveLength(1)
    for (const c of clients) if (c.pid !== owner) expect(childPids(c.pid as number)).toEqual([])
    for (const [i, c] of clients.entries()) {
      const r = await c.call('call_tool_read', { name: 'wiki:read_doc', args: { client: i } })
      expect(r.isError, textOf(r)).toBeFalsy()
    }
  })
})
