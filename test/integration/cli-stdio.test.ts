// End to end over stdio: the real built CLI (`node bin/toolgate.js stdio --config F --data-dir D`)
// in front of real upstream MCP servers (server-everything, server-filesystem, server-memory, the
// shared fixture server with --log, and a noisy fixture), driven by an MCP client the way Claude
// Desktop or Cursor would drive it.
import fs from 'node:fs'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  EVERYTHING,
  FILESYSTEM,
  MEMORY,
  NOISY,
  assertBuilt,
  everythingEntry,
  fixtureEntry,
  logLines,
  tempDir,
  track,
  waitFor,
  writeJson,
  type FixtureTool,
} from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { connectStdio, jsonOf, rawStdio, textOf, waitForUpstreams, type McpHandle, type RawSession, type ToolResult } from '../helpers/mcp-client'

const RETRIEVE_SENTENCE = 'Set include_disabled:true to also see tools that exist but are locked (by config, user, or quarantine), with remediation.'

const FIXTURE_TOOLS: FixtureTool[] = [
  {
    name: 'lookup_record',
    description: 'Look up a customer record by its id',
    inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'save_note',
    description: 'Save a note to the shared notebook',
    inputSchema: { type: 'object', properties: { title: { type: 'string' } } },
    annotations: { readOnlyHint: false },
  },
  {
    name: 'purge_notes',
    description: 'Delete every note in the notebook permanently',
    annotations: { destructiveHint: true },
  },
]

useCleanup()

describe('an MCP client talking to `toolgate stdio`', () => {
  let tg: McpHandle
  let direct: Client
  let tmp: string
  let files: string
  let fixtureLog: string
  let memoryFile: string

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-stdio-')
    files = path.join(tmp, 'files')
    fs.mkdirSync(path.join(files, 'notes'), { recursive: true })
    fs.writeFileSync(path.join(files, 'hello.txt'), 'Hello from a real file.\nSecond line.\n')
    fixtureLog = path.join(tmp, 'fixture-calls.log')
    memoryFile = path.join(tmp, 'memory.jsonl')
    const toolsFile = writeJson(path.join(tmp, 'fixture-tools.json'), FIXTURE_TOOLS)
    const configPath = writeJson(path.join(tmp, 'config', 'mcp_config.json'), {
      call_timeout_ms: 1500,
      mcpServers: {
        everything: everythingEntry({ quarantined: false }),
        files: { command: process.execPath, args: [FILESYSTEM, files], quarantined: false },
        memory: { command: process.execPath, args: [MEMORY], env: { MEMORY_FILE_PATH: memoryFile }, quarantined: false, sandbox: { fs_write: [tmp] } },
        fixture: fixtureEntry(toolsFile, fixtureLog, { quarantined: false }),
      },
    })
    tg = await connectStdio(['--config', configPath, '--data-dir', path.join(tmp, 'data')])
    await waitForUpstreams(tg, ['everything', 'files', 'memory', 'fixture'])

    // the same upstream, called directly, to compare results byte for byte
    const transport = new StdioClientTransport({ command: process.execPath, args: [EVERYTHING, 'stdio'], stderr: 'ignore' })
    direct = new Client({ name: 'direct', version: '1.0.0' })
    await direct.connect(transport)
    track(transport.pid ?? undefined)
  }, 120_000)

  afterAll(async () => {
    await tg?.close().catch(() => {})
    await direct?.close().catch(() => {})
  })

  const directCall = async (name: string, args: Record<string, unknown>): Promise<ToolResult> =>
    (await direct.callTool({ name, arguments: args })) as unknown as ToolResult

  it('after initialize, my client sees retrieve_tools, the three call_tool variants, describe_tool, upstream_servers and request_access', async () => {
    expect(tg.client.getServerVersion()?.name).toBe('toolgate')
    const { tools } = await tg.client.listTools()
    expect(tools.map((t) => t.name)).toEqual([
      'retrieve_tools',
      'call_tool_read',
      'call_tool_write',
      'call_tool_destructive',
      'describe_tool',
      'upstream_servers',
      'request_access',
    ])
    const retrieve = tools.find((t) => t.name === 'retrieve_tools')
    expect(retrieve?.description).toContain(RETRIEVE_SENTENCE)
    expect(retrieve?.inputSchema.required).toEqual(['query'])
  })

  it('I find the echo tool by describing what I want: "repeat back my message"', async () => {
    const r = await tg.call('retrieve_tools', { query: 'repeat back my message' })
    expect(r.isError).toBeFalsy()
    const body = jsonOf<{ query: string; tools: Array<Record<string, unknown>>; total: number }>(r)
    expect(Object.keys(body)).toEqual(['query', 'tools', 'total'])
    expect(body.query).toBe('repeat back my message')
    expect(body.total).toBe(body.tools.length)
    const names = body.tools.map((t) => t.name)
    expect(names).toContain('everything:echo')
    expect(names.indexOf('everything:echo')).toBeLessThan(5)
    const echo = body.tools.find((t) => t.name === 'everything:echo') as Record<string, unknown>
    expect(Object.keys(echo)).toEqual(['name', 'server', 'description', 'inputSchema', 'annotations', 'call_with', 'score'])
    expect(echo).toMatchObject({ server: 'everything', description: 'Echoes back the input string', call_with: 'call_tool_read' })
    expect(typeof echo.score).toBe('number')
  })

  it('calling echo through call_tool_read passes my arguments and returns exactly what the upstream returns', async () => {
    const args = { message: 'Grüße — "quoted" \\ and\nnewline ✓' }
    const viaToolgate = await tg.call('call_tool_read', { name: 'everything:echo', args })
    expect(viaToolgate).toEqual(await directCall('echo', args))
    expect(textOf(viaToolgate)).toBe(`Echo: ${args.message}`)
  })

  it('describe_tool shows the full definition of everything:echo', async () => {
    const upstream = (await direct.listTools()).tools.find((t) => t.name === 'echo')
    const d = jsonOf(await tg.call('describe_tool', { name: 'everything:echo' }))
    expect(d).toMatchObject({
      name: 'everything:echo',
      server: 'everything',
      description: upstream?.description,
      inputSchema: upstream?.inputSchema,
      annotations: upstream?.annotations,
      call_with: 'call_tool_read',
    })
    const missing = await tg.call('describe_tool', { name: 'everything:no-such-tool' })
    expect(missing.isError).toBe(true)
    expect(textOf(missing)).toMatch(/unknown tool "no-such-tool" on server "everything"/)
  })

  it('upstream_servers lists my servers with their state, and refuses changes the operator did not allow', async () => {
    const list = jsonOf<{ servers: Array<Record<string, unknown>> }>(await tg.call('upstream_servers', { operation: 'list' }))
    expect(list.servers.map((s) => s.name)).toEqual(['everything', 'files', 'memory', 'fixture'])
    for (const s of list.servers) {
      // fully callable servers have no `tools` block
      expect(Object.keys(s)).toEqual(['name', 'protocol', 'enabled', 'quarantined', 'state', 'isolation', 'protocol_version'])
      expect(s.isolation).toEqual({ isolated: true })
      // the reference servers from npm are on SDK v1: they negotiate 2025-11-25
      expect(s.protocol_version).toBe('2025-11-25')
      expect(s).toMatchObject({ protocol: 'stdio', enabled: true, quarantined: false, state: 'connected' })
    }
    const get = jsonOf<{ server: Record<string, unknown> }>(await tg.call('upstream_servers', { operation: 'get', name: 'files' }))
    expect(get.server).toEqual(list.servers[1])

    const remove = await tg.call('upstream_servers', { operation: 'remove', name: 'files' })
    expect(remove.isError).toBe(true)
    expect(textOf(remove)).toMatch(/allow_agent_server_changes/)
    expect(textOf(remove)).toMatch(/ask the user/i)

    const unknown = await tg.call('upstream_servers', { operation: 'get', name: 'nope' })
    expect(unknown.isError).toBe(true)
    expect(textOf(unknown)).toMatch(/unknown server "nope"/)
  })

  it('I can list a directory and read a file through the filesystem server', async () => {
    const list = await tg.call('call_tool_read', { name: 'files:list_directory', args: { path: files } })
    expect(list.isError).toBeFalsy()
    expect(textOf(list)).toContain('[FILE] hello.txt')
    expect(textOf(list)).toContain('[DIR] notes')
    const read = await tg.call('call_tool_read', { name: 'files:read_text_file', args: { path: path.join(files, 'hello.txt') } })
    expect(read.isError).toBeFalsy()
    expect(textOf(read)).toBe('Hello from a real file.\nSecond line.\n')
    // the filesystem server's own refusal comes back as its error result
    const outside = await tg.call('call_tool_read', { name: 'files:read_text_file', args: { path: '/etc/hostname' } })
    expect(outside.isError).toBe(true)
  })

  it('a call reaches the upstream with exactly the arguments I sent', async () => {
    const before = logLines(fixtureLog).length
    const args = { title: 'groceries', tags: ['milk', 'eggs'], meta: { n: 1, ok: true, ratio: 0.5, nested: { nothing: null } }, emoji: '🥚' }
    const r = await tg.call('call_tool_write', { name: 'fixture:save_note', args })
    expect(r.isError).toBeFalsy()
    expect(jsonOf(r)).toEqual({ tool: 'save_note', arguments: args })
    const log = logLines(fixtureLog)
    expect(log.length).toBe(before + 1)
    expect(log[log.length - 1]).toEqual({ tool: 'save_note', arguments: args })

    // a stronger variant than needed is allowed
    const strong = await tg.call('call_tool_destructive', { name: 'fixture:lookup_record', args: { id: 'c-1' } })
    expect(jsonOf(strong)).toEqual({ tool: 'lookup_record', arguments: { id: 'c-1' } })
    expect(logLines(fixtureLog).length).toBe(before + 2)
  })

  it('a write tool called through call_tool_read is refused, names call_tool_write, and never reaches the upstream', async () => {
    const before = logLines(fixtureLog).length
    const r = await tg.call('call_tool_read', { name: 'fixture:save_note', args: { title: 'x' } })
    expect(r.isError).toBe(true)
    expect(textOf(r)).toMatch(/call_tool_write/)
    const d = await tg.call('call_tool_write', { name: 'fixture:purge_notes', args: {} })
    expect(d.isError).toBe(true)
    expect(textOf(d)).toMatch(/call_tool_destructive/)
    expect(logLines(fixtureLog).length).toBe(before)
  })

  it('the memory server: a write needs call_tool_write, a delete needs call_tool_destructive', async () => {
    const entity = { name: 'toolgate_it', entityType: 'test', observations: ['made by an integration test'] }
    const create = await tg.call('call_tool_write', { name: 'memory:create_entities', args: { entities: [entity] } })
    expect(create.isError).toBeFalsy()
    const graph = await tg.call('call_tool_read', { name: 'memory:read_graph', args: {} })
    expect(textOf(graph)).toContain('toolgate_it')
    expect(fs.readFileSync(memoryFile, 'utf8')).toContain('toolgate_it')

    const weak = await tg.call('call_tool_write', { name: 'memory:delete_entities', args: { entityNames: ['toolgate_it'] } })
    expect(weak.isError).toBe(true)
    expect(textOf(weak)).toMatch(/call_tool_destructive/)
    expect(textOf(await tg.call('call_tool_read', { name: 'memory:read_graph', args: {} }))).toContain('toolgate_it')

    const del = await tg.call('call_tool_destructive', { name: 'memory:delete_entities', args: { entityNames: ['toolgate_it'] } })
    expect(del.isError).toBeFalsy()
    expect(textOf(await tg.call('call_tool_read', { name: 'memory:read_graph', args: {} }))).not.toContain('toolgate_it')
  })

  it("an upstream's error results, images and structured content come back unchanged", async () => {
    const fail = await tg.call('call_tool_read', { name: 'fixture:lookup_record', args: { fail: 'the database is on fire' } })
    expect(fail).toEqual({ isError: true, content: [{ type: 'text', text: 'the database is on fire' }] })

    const badSum = await tg.call('call_tool_read', { name: 'everything:get-sum', args: { a: 'one', b: 2 } })
    expect(badSum.isError).toBe(true)
    expect(badSum).toEqual(await directCall('get-sum', { a: 'one', b: 2 }))

    const sum = await tg.call('call_tool_read', { name: 'everything:get-sum', args: { a: 40, b: 2 } })
    expect(sum).toEqual(await directCall('get-sum', { a: 40, b: 2 }))

    const image = await tg.call('call_tool_read', { name: 'everything:get-tiny-image', args: {} })
    expect(image.content.some((c) => c.type === 'image' && typeof c.data === 'string' && c.mimeType === 'image/png')).toBe(true)
    expect(image).toEqual(await directCall('get-tiny-image', {}))

    const structured = await tg.call('call_tool_read', { name: 'everything:get-structured-content', args: { location: 'Chicago' } })
    expect(structured.structuredContent).toBeDefined()
    expect(structured).toEqual(await directCall('get-structured-content', { location: 'Chicago' }))
  })

  it('a call that takes longer than call_timeout_ms is cut off with a clear timeout error, and the next call works', async () => {
    const started = Date.now()
    const r = await tg.call('call_tool_read', { name: 'fixture:lookup_record', args: { id: 'slow', sleep_ms: 5000 } })
    const ms = Date.now() - started
    expect(r.isError).toBe(true)
    expect(textOf(r)).toMatch(/fixture:lookup_record timed out after 1500 ms/)
    expect(ms).toBeGreaterThanOrEqual(1400)
    expect(ms).toBeLessThan(4500)
    const next = await tg.call('call_tool_read', { name: 'fixture:lookup_record', args: { id: 'fast' } })
    expect(jsonOf(next)).toEqual({ tool: 'lookup_record', arguments: { id: 'fast' } })
  })

  it('bad retrieve_tools input gets an error result with a clear message, never a crash', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /query is required/],
      [{ query: '' }, /query must not be empty/],
      [{ query: '   ' }, /query must not be empty/],
      [{ query: 42 }, /query must be a string/],
      // a query of 40,000 characters costs CPU, an echo and an activity record of that size: refused, naming the cap
      [{ query: 'read a file '.repeat(4000) }, /query is at most \d+ characters/],
      [{ query: 'echo', limit: 0 }, /limit must be an integer from 1 to 100/],
      [{ query: 'echo', limit: 101 }, /limit must be an integer from 1 to 100/],
      [{ query: 'echo', limit: 2.5 }, /limit must be an integer from 1 to 100/],
      [{ query: 'echo', limit: '5' }, /limit must be an integer from 1 to 100/],
      [{ query: 'echo', include_disabled: 'yes' }, /include_disabled must be true or false/],
    ]
    for (const [args, message] of cases) {
      const r = await tg.call('retrieve_tools', args)
      expect(r.isError, JSON.stringify(args)).toBe(true)
      expect(textOf(r), JSON.stringify(args)).toMatch(message)
    }
    expect(jsonOf(await tg.call('retrieve_tools', { query: 'echo', limit: 1 })).total).toBe(1)
  })

  it('bad call_tool input gets an error result naming the problem', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{}, /name is required/],
      [{ name: 'no-colon' }, /malformed tool name "no-colon"/],
      [{ name: 'nosuch:tool' }, /unknown server "nosuch"/],
      [{ name: 'everything:nosuch' }, /unknown tool "nosuch" on server "everything"/],
      [{ name: 'everything:echo', args: ['not', 'an', 'object'] }, /args must be an object/],
    ]
    for (const [args, message] of cases) {
      const r = await tg.call('call_tool_read', args)
      expect(r.isError, JSON.stringify(args)).toBe(true)
      expect(textOf(r), JSON.stringify(args)).toMatch(message)
    }
  })
})

describe('the raw stdout of `toolgate stdio`', () => {
  let s: RawSession
  let dataDir: string

  beforeAll(async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-stdio-raw-')
    dataDir = path.join(tmp, 'data')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {
        everything: everythingEntry({ quarantined: false }),
        noisy: { command: process.execPath, args: [NOISY], quarantined: false },
      },
    })
    s = await rawStdio(['--config', configPath, '--data-dir', dataDir])
    await s.client.initialize()
  }, 60_000)

  afterAll(async () => {
    await s?.client.close().catch(() => {})
  })

  it('carries nothing but JSON-RPC, even with upstreams that are noisy on stderr', async () => {
    await s.client.listTools()
    await waitFor(
      async () => {
        const list = JSON.parse(textOf(await s.client.callTool('upstream_servers', { operation: 'list' }))) as { servers: Array<{ state: string }> }
        return list.servers.every((x) => x.state === 'connected')
      },
      45_000,
      'everything and noisy to connect',
      100,
    )
    expect(textOf(await s.client.callTool('call_tool_read', { name: 'noisy:shout', args: { text: 'quiet please' } }))).toBe('QUIET PLEASE')
    expect(textOf(await s.client.callTool('call_tool_read', { name: 'everything:echo', args: { message: 'hi' } }))).toBe('Echo: hi')
    await s.client.callTool('retrieve_tools', { query: 'upper case' })
    await s.client.callTool('call_tool_read', { name: 'noisy:shout', args: { text: 'again' } })

    // the noise went somewhere, but not to stdout
    const logs = path.join(dataDir, 'logs')
    const logged =
      s.stderr() +
      (fs.existsSync(logs)
        ? fs
            .readdirSync(logs)
            .map((f) => fs.readFileSync(path.join(logs, f), 'utf8'))
            .join('')
        : '')
    expect(logged).toContain('noisy-server')

    expect(s.client.badLines ?? 0).toBe(0)
    expect(s.stdoutLines.length).toBeGreaterThan(5)
    for (const line of s.stdoutLines) {
      if (!line.trim()) continue
      const msg = JSON.parse(line) as Record<string, unknown>
      expect(msg.jsonrpc).toBe('2.0')
    }
  })

  it('answers a line that is not JSON with a parse error (-32700, id null) and the session goes on', async () => {
    const before = s.stdoutLines.length
    s.client.child.stdin?.write('this is not json at all\n')
    const reply = await waitFor(() => s.stdoutLines.slice(before).find((l) => l.includes('-32700')), 10_000, 'a parse error on stdout')
    const msg = JSON.parse(reply) as { jsonrpc: string; id: unknown; error: { code: number; message: string } }
    expect(msg).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32700 } })
    expect(msg.error.message.length).toBeGreaterThan(0)

    s.client.child.stdin?.write('{"jsonrpc": "2.0", "id": \n')
    await waitFor(() => s.stdoutLines.slice(before).filter((l) => l.includes('-32700')).length === 2, 10_000, 'a second parse error')

    expect(textOf(await s.client.callTool('call_tool_read', { name: 'everything:echo', args: { message: 'still here' } }))).toBe('Echo: still here')
    expect(s.client.badLines ?? 0).toBe(0)
  })

  it('exits cleanly when the client closes stdin', async () => {
    await s.client.close()
    const exit = await s.client.exited
    expect(exit).toEqual({ code: 0, signal: null })
    expect(s.client.badLines ?? 0).toBe(0)
    expect(fs.existsSync(path.join(dataDir, 'instance.json'))).toBe(false)
  })
})
