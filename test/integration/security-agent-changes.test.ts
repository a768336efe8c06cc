// Agents cannot strip operator policy. With allow_agent_server_changes on, an
// agent with write permission may enable, disable and restart servers in its scope, but remove
// (or replace) only servers that agents added and that carry no operator policy; a read-only
// agent changes nothing, not even by adding. Driven over MCP against a live `toolgate serve`;
// the config file on disk is the proof of what changed.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, FIXTURE, fixtureEntry, runCli, startServe, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, textOf, type McpHandle } from '../helpers/mcp-client'

useCleanup()

type Config = { mcpServers: Record<string, Record<string, unknown>>; [k: string]: unknown }

describe('agent server changes never strip operator policy', () => {
  let tmp: string
  let serve: Serve
  let configPath: string
  let writer: McpHandle
  let reader: McpHandle
  let tools: string
  const onDisk = (): Config => JSON.parse(fs.readFileSync(configPath, 'utf8')) as Config

  const op = async (h: McpHandle, args: Record<string, unknown>) => {
    const r = await h.call('upstream_servers', args)
    return { isError: r.isError === true, text: textOf(r) }
  }

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-agent-changes-')
    tools = writeJson(path.join(tmp, 'tools.json'), [{ name: 'ping', description: 'Answer pong', annotations: { readOnlyHint: true } }])
    configPath = path.join(tmp, 'mcp_config.json')
    const log = path.join(tmp, 'calls.log')
    writeJson(configPath, {
      allow_agent_server_changes: true,
      mcpServers: {
        opsrv: fixtureEntry(tools, log, { quarantined: false }),
        held: fixtureEntry(tools, log, { quarantined: true }),
        listed: fixtureEntry(tools, log, { quarantined: false, disabled_tools: ['ping'] }),
        allowed: fixtureEntry(tools, log, { quarantined: false, enabled_tools: ['ping'] }),
        trusted: fixtureEntry(tools, log, { trust: 'auto' }),
      },
      agents: [
        { name: 'writer', servers: '*', permissions: ['read', 'write'] },
        { name: 'reader', servers: '*', permissions: ['read'] },
      ],
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'opsrv', 'connected')
    const token = async (agent: string) => (await runCli(['agents', 'token', agent, ...serve.flags])).stdout.trim()
    writer = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${await token('writer')}` })
    reader = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${await token('reader')}` })
  }, 90_000)

  afterAll(async () => {
    await writer?.close().catch(() => {})
    await reader?.close().catch(() => {})
    await stopServe(serve)
  })

  it('a read-only agent can change nothing, not even add', async () => {
    const before = fs.readFileSync(configPath, 'utf8')
    for (const args of [
      { operation: 'add', name: 'sneaky', command: process.execPath, args: ['x.js'] },
      { operation: 'disable', name: 'opsrv' },
      { operation: 'enable', name: 'opsrv' },
      { operation: 'restart', name: 'opsrv' },
      { operation: 'remove', name: 'opsrv' },
    ]) {
      const r = await op(reader, args)
      expect(r.isError, `${args.operation}: ${r.text}`).toBe(true)
      expect(r.text).toMatch(/read-only|write permission/)
    }
    expect(fs.readFileSync(configPath, 'utf8')).toBe(before)
    // reading still works
    expect((await op(reader, { operation: 'get', name: 'opsrv' })).isError).toBe(false)
  })

  it('a writing agent may disable, enable and restart a server in its scope', async () => {
    expect((await op(writer, { operation: 'disable', name: 'opsrv' })).isError).toBe(false)
    expect(onDisk().mcpServers.opsrv.enabled).toBe(false)
    expect((await op(writer, { operation: 'enable', name: 'opsrv' })).isError).toBe(false)
    expect(onDisk().mcpServers.opsrv.enabled).toBeUndefined()
    // back on, it waits for its next use (on demand); a restart starts it
    await waitForServerState(serve, 'opsrv', 'stopped')
    const restarted = await op(writer, { operation: 'restart', name: 'opsrv' })
    expect(restarted.isError, restarted.text).toBe(false)
    await waitForServerState(serve, 'opsrv', 'connected')
  })

  it('it cannot remove a server the operator added, nor any server that carries operator policy', async () => {
    const before = fs.readFileSync(configPath, 'utf8')
    for (const name of ['opsrv', 'held', 'listed', 'allowed', 'trusted']) {
      const r = await op(writer, { operation: 'remove', name })
      expect(r.isError, `${name}: ${r.text}`).toBe(true)
      expect(r.text).toMatch(/only servers that agents added|operator policy/)
    }
    expect(fs.readFileSync(configPath, 'utf8')).toBe(before)
  })

  it('adding over an existing name is refused and never drops what the operator wrote', async () => {
    const before = onDisk().mcpServers.listed
    const r = await op(writer, { operation: 'add', name: 'listed', command: process.execPath, args: ['other.js'] })
    expect(r.isError).toBe(true)
    expect(r.text).toMatch(/already exists/)
    expect(onDisk().mcpServers.listed).toEqual(before)
  })

  it('it may remove and re-add a server agents added; once the operator puts policy on it, it is the operator’s', async () => {
    const add = await op(writer, { operation: 'add', name: 'mine', command: process.execPath, args: ['mine.js'] })
    expect(add.isError, add.text).toBe(false)
    expect(onDisk().mcpServers.mine).toEqual({ command: process.execPath, args: ['mine.js'] })
    const removed = await op(writer, { operation: 'remove', name: 'mine' })
    expect(removed.isError, removed.text).toBe(false)
    expect(onDisk().mcpServers.mine).toBeUndefined()
    expect((await op(writer, { operation: 'add', name: 'mine', command: process.execPath, args: ['mine.js'] })).isError).toBe(false)

    // the operator reviews it and locks a tool
    const cfg = onDisk()
    cfg.mcpServers.mine = { ...cfg.mcpServers.mine, disabled_tools: ['ping'] }
    writeJson(configPath, cfg)
    await waitFor(
      async () => {
        const r = await op(writer, { operation: 'remove', name: 'mine' })
        return r.isError && /operator policy/.test(r.text) ? r : undefined
      },
      15_000,
      'removal of mine to be refused once it carries policy',
    )
    expect(onDisk().mcpServers.mine.disabled_tools).toEqual(['ping'])
    // an operator edit of what it runs makes it the operator's too
    const other = await op(writer, { operation: 'add', name: 'mine2', command: process.execPath, args: ['m2.js'] })
    expect(other.isError).toBe(false)
    const cfg2 = onDisk()
    cfg2.mcpServers.mine2 = { command: process.execPath, args: ['reviewed.js'] }
    writeJson(configPath, cfg2)
    await waitFor(
      async () => {
        const r = await op(writer, { operation: 'remove', name: 'mine2' })
        return r.isError && /only servers that agents added/.test(r.text) ? r : undefined
      },
      15_000,
      'removal of the operator-edited mine2 to be refused',
    )
    expect(onDisk().mcpServers.mine2).toEqual({ command: process.execPath, args: ['reviewed.js'] })
  })

  it('removing and re-adding a server does not shed the user\'s "Ask me before each call" switches (server and tool)', async () => {
    const entry = { command: process.execPath, args: [FIXTURE, '--tools', tools] }
    expect((await op(writer, { operation: 'add', name: 'asked', ...entry })).isError).toBe(false)
    const post = (p: string, body: unknown = {}) =>
      fetch(serve.url + p, {
        method: 'POST',
        headers: { authorization: `Bearer ${serve.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    expect((await post('/api/v1/servers/asked/approve')).status).toBe(200)
    await waitForServerState(serve, 'asked', 'connected')
    await waitFor(
      async () => (await serve.api<{ tools: unknown[] }>('GET', '/api/v1/servers/asked/tools')).json.tools.length === 1,
      15_000,
      'the tools of asked',
    )
    expect((await post('/api/v1/servers/asked/confirm', { ask: true })).status).toBe(200)
    expect((await post('/api/v1/servers/asked/tools/ping/confirm', { ask: true })).status).toBe(200)

    const removed = await op(writer, { operation: 'remove', name: 'asked' })
    expect(removed.isError, removed.text).toBe(false)
    expect((await op(writer, { operation: 'add', name: 'asked', ...entry })).isError).toBe(false)
    const server = async () =>
      (await serve.api<{ servers: Array<{ name: string; state: string; confirm: { user: boolean } }> }>('GET', '/api/v1/servers')).json.servers.find(
        (x) => x.name === 'asked',
      )
    await waitFor(async () => (await server())?.state === 'quarantined', 15_000, 'the re-added server in review')
    expect((await server())?.confirm.user).toBe(true)
    expect((await post('/api/v1/servers/asked/approve')).status).toBe(200)
    const ping = await waitFor(
      async () =>
        (await serve.api<{ tools: Array<{ name: string; confirm?: { user: boolean } }> }>('GET', '/api/v1/servers/asked/tools')).json.tools.find(
          (t) => t.name === 'asked:ping',
        ),
      15_000,
      'asked:ping again',
    )
    expect(ping.confirm).toMatchObject({ required: true, user: true })
    // the tool's own switch is still there when the server's is off
    expect((await post('/api/v1/servers/asked/confirm', { ask: false })).status).toBe(200)
    const again = (await serve.api<{ tools: Array<{ name: string; confirm?: { user: boolean } }> }>('GET', '/api/v1/servers/asked/tools')).json.tools
    expect(again.find((t) => t.name === 'asked:ping')?.confirm).toMatchObject({ required: true, user: true })
  })

  it('a confirmation rule the operator puts on an agent-added server is policy too: the agent cannot remove it (and re-add it without)', async () => {
    expect((await op(writer, { operation: 'add', name: 'mine3', command: process.execPath, args: ['m3.js'] })).isError).toBe(false)
    const cfg = onDisk()
    cfg.mcpServers.mine3 = { ...cfg.mcpServers.mine3, confirm: 'write' }
    writeJson(configPath, cfg)
    await waitFor(
      async () => {
        const r = await op(writer, { operation: 'remove', name: 'mine3' })
        expect(r.isError, `the agent removed a server carrying "confirm": ${r.text}`).toBe(true)
        return /operator policy \(confirm in the config\)/.test(r.text) ? r : undefined
      },
      15_000,
      'removal of mine3 to be refused once it carries a confirmation rule',
    )
    expect(onDisk().mcpServers.mine3.confirm).toBe('write')
  })
})
