// `toolgate serve` over HTTP, end to end: authentication (admin key as Bearer or X-API-Key, agent
// tokens), DNS-rebinding defense (Host and Origin), body size limit, sessions, the web UI, agent
// scope on /mcp, and the shapes of the control API (docs/contract.md §4, §5).
import { randomUUID, createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  RENDERER_INDEX,
  assertBuilt,
  everythingEntry,
  fixtureEntry,
  logLines,
  rawRequest,
  runCli,
  startServe,
  tempDir,
  waitForServerState,
  writeJson,
  type FixtureTool,
  type Serve,
} from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, jsonOf, textOf, type McpHandle } from '../helpers/mcp-client'
import { CSP } from '../../src/shared/csp'

const NOTES_TOOLS: FixtureTool[] = [
  { name: 'read_notes', description: 'Read the notes in the notebook', annotations: { readOnlyHint: true } },
  { name: 'write_note', description: 'Write a note into the notebook', annotations: { readOnlyHint: false } },
  { name: 'note_secret', description: 'Reveal the secret note', annotations: { readOnlyHint: true } },
]

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
}
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }

useCleanup()

describe('`toolgate serve` over HTTP', () => {
  let tmp: string
  let serve: Serve
  let notesLog: string
  const clients: McpHandle[] = []

  const http = async (
    p: string,
    o: { method?: string; headers?: Record<string, string>; body?: string } = {},
  ): Promise<{ status: number; text: string; json: { error?: { code: string; message: string } } & Record<string, unknown> }> => {
    const res = await fetch(serve.url + p, { method: o.method ?? 'GET', headers: o.headers, body: o.body })
    const text = await res.text()
    let json: Record<string, unknown> = {}
    try {
      json = JSON.parse(text) as Record<string, unknown>
    } catch {
      // not JSON
    }
    return { status: res.status, text, json }
  }
  const mcpClient = async (headers: Record<string, string>): Promise<McpHandle> => {
    const c = await connectHttp(`${serve.url}/mcp`, headers)
    clients.push(c)
    return c
  }

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-http-')
    notesLog = path.join(tmp, 'notes-calls.log')
    const notesTools = writeJson(path.join(tmp, 'notes-tools.json'), NOTES_TOOLS)
    const configPath = writeJson(path.join(tmp, 'config', 'mcp_config.json'), {
      mcpServers: {
        everything: everythingEntry({ quarantined: false }),
        notes: fixtureEntry(notesTools, notesLog, { quarantined: false, disabled_tools: ['note_secret'] }),
      },
      agents: [{ name: 'reader', servers: ['everything'], permissions: ['read'] }],
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'everything', 'connected')
    await waitForServerState(serve, 'notes', 'connected')
  }, 90_000)

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {})
    await stopServe(serve)
  })

  it('an MCP request without a key is refused with 401', async () => {
    const r = await http('/mcp', { method: 'POST', headers: MCP_HEADERS, body: JSON.stringify(INIT) })
    expect(r.status).toBe(401)
    expect(r.json.error?.code).toBe('unauthorized')
    expect(r.json.error?.message).toMatch(/Authorization: Bearer/)
    expect((await http('/api/v1/status')).status).toBe(401)
  })

  it('a wrong key is refused with 401, as Bearer and as X-API-Key', async () => {
    const wrong: Array<Record<string, string>> = [
      { authorization: 'Bearer not-the-key-0123456789' },
      { 'x-api-key': 'not-the-key-0123456789' },
      { authorization: `Bearer ${serve.key}x` },
    ]
    for (const auth of wrong) {
      const r = await http('/mcp', { method: 'POST', headers: { ...MCP_HEADERS, ...auth }, body: JSON.stringify(INIT) })
      expect(r.status, JSON.stringify(auth)).toBe(401)
      expect((await http('/api/v1/status', { headers: auth })).status).toBe(401)
    }
  })

  it('the admin key works as Authorization: Bearer and as X-API-Key, on /mcp and on the control API', async () => {
    const right: Array<Record<string, string>> = [{ authorization: `Bearer ${serve.key}` }, { 'x-api-key': serve.key }]
    for (const auth of right) {
      const c = await mcpClient(auth)
      const { tools } = await c.client.listTools()
      expect(tools.map((t) => t.name)).toEqual([
        'retrieve_tools',
        'call_tool_read',
        'call_tool_write',
        'call_tool_destructive',
        'describe_tool',
        'upstream_servers',
        'request_access',
      ])
      expect(textOf(await c.call('call_tool_read', { name: 'everything:echo', args: { message: 'over http' } }))).toBe('Echo: over http')
      expect((await http('/api/v1/status', { headers: auth })).status).toBe(200)
    }
  })

  it('a Host header naming another site is refused with 403 (DNS-rebinding defense)', async () => {
    const auth = { authorization: `Bearer ${serve.key}` }
    for (const p of ['/mcp', '/api/v1/status', '/']) {
      const evil = await rawRequest(serve.url + p, {
        method: p === '/mcp' ? 'POST' : 'GET',
        headers: { ...auth, ...MCP_HEADERS, host: `evil.example:${serve.port}` },
        body: p === '/mcp' ? JSON.stringify(INIT) : undefined,
      })
      expect(evil.status, p).toBe(403)
    }
    const ok = await rawRequest(`${serve.url}/api/v1/status`, { headers: { ...auth, host: `localhost:${serve.port}` } })
    expect(ok.status).toBe(200)
    const wrongPort = await rawRequest(`${serve.url}/api/v1/status`, { headers: { ...auth, host: `127.0.0.1:${serve.port + 1}` } })
    expect(wrongPort.status).toBe(403)
  })

  it("an Origin from another site is refused with 403; the listener's own origin is fine", async () => {
    const auth = { authorization: `Bearer ${serve.key}` }
    const evil = await rawRequest(`${serve.url}/mcp`, {
      method: 'POST',
      headers: { ...auth, ...MCP_HEADERS, origin: 'http://evil.example' },
      body: JSON.stringify(INIT),
    })
    expect(evil.status).toBe(403)
    expect((await rawRequest(`${serve.url}/api/v1/status`, { headers: { ...auth, origin: 'http://evil.example' } })).status).toBe(403)
    expect((await rawRequest(`${serve.url}/api/v1/status`, { headers: { ...auth, origin: `http://127.0.0.1:${serve.port}` } })).status).toBe(200)
  })

  it('a request body over 1 MB is refused with 413', async () => {
    const big = JSON.stringify({ ...INIT, params: { ...INIT.params, padding: 'x'.repeat(1024 * 1024 + 10) } })
    const r = await rawRequest(`${serve.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${serve.key}`, ...MCP_HEADERS, 'content-length': Buffer.byteLength(big) },
      body: big,
    })
    expect(r.status).toBe(413)
    expect(r.body).toMatch(/larger than/)
    // the server is fine afterwards
    expect((await serve.api('GET', '/api/v1/status')).status).toBe(200)
  })

  it('an unknown MCP session id gets 404', async () => {
    const r = await http('/mcp', {
      method: 'POST',
      headers: { ...MCP_HEADERS, authorization: `Bearer ${serve.key}`, 'mcp-session-id': randomUUID() },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
    })
    expect(r.status).toBe(404)
    expect(JSON.parse(r.text)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: expect.any(Number) as number } })
  })

  it('GET / serves the web UI page', async () => {
    // a missing build fails here instead of passing unchecked
    expect(fs.existsSync(RENDERER_INDEX), `${RENDERER_INDEX} is missing: run \`npm run build\` first`).toBe(true)
    const r = await fetch(`${serve.url}/`)
    expect(r.status).toBe(200)
    expect(r.headers.get('content-type')).toMatch(/text\/html/)
    const html = await r.text()
    expect(html).toMatch(/<html/i)
    expect(html).toMatch(/<script/i)
    // the one CSP of src/shared/csp.ts (the Electron window sends the same)
    expect(r.headers.get('content-security-policy')).toBe(CSP)
  })

  describe('an agent token for the "reader" agent (everything, read only)', () => {
    let token: string
    let reader: McpHandle

    beforeAll(async () => {
      const r = await runCli(['agents', 'token', 'reader', ...serve.flags])
      expect(r.code, r.stderr).toBe(0)
      const lines = r.stdout.trim().split('\n')
      expect(lines).toHaveLength(1)
      token = lines[0].trim()
      reader = await mcpClient({ authorization: `Bearer ${token}` })
    }, 60_000)

    it('`toolgate agents token reader` prints the token once; only its hash is stored', async () => {
      expect(token).toMatch(/^tg_reader_[A-Za-z0-9_-]{20,}$/)
      const files: string[] = []
      const walk = (d: string): void => {
        for (const e of fs.readdirSync(d, { withFileTypes: true })) {
          if (e.isDirectory()) walk(path.join(d, e.name))
          else files.push(path.join(d, e.name))
        }
      }
      walk(serve.dataDir)
      // (a temp file of an atomic write may vanish between listing and reading: the token's last use is written)
      const read = (f: string): string => {
        try {
          return fs.readFileSync(f, 'utf8')
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code === 'ENOENT') return ''
          throw e
        }
      }
      for (const f of files) expect(read(f), f).not.toContain(token)
      expect(fs.readFileSync(path.join(serve.dataDir, 'state.json'), 'utf8')).toContain(createHash('sha256').update(token).digest('hex'))

      const ghost = await runCli(['agents', 'token', 'ghost', ...serve.flags])
      expect(ghost.code).toBe(1)
      expect(ghost.stderr).toMatch(/no agent named "ghost"/)
    })

    it("with the token, /mcp offers only the read variant and discovery shows only everything's read tools", async () => {
      const { tools } = await reader.client.listTools()
      expect(tools.map((t) => t.name)).toEqual(['retrieve_tools', 'call_tool_read', 'describe_tool', 'upstream_servers', 'request_access'])
      const found = jsonOf<{ tools: Array<{ name: string; server: string; call_with: string }> }>(
        await reader.call('retrieve_tools', { query: 'echo sum image environment toggle simulate notes notebook write', limit: 100 }),
      )
      expect(found.tools.length).toBeGreaterThan(3)
      expect(found.tools.map((t) => t.name)).toContain('everything:echo')
      for (const t of found.tools) {
        expect(t.server).toBe('everything')
        expect(t.call_with).toBe('call_tool_read')
      }
      expect(found.tools.map((t) => t.name)).not.toContain('everything:toggle-simulated-logging')
      // locked tools outside the scope are neither listed nor counted
      const locked = await reader.call('retrieve_tools', { query: 'reveal secret note_secret', include_disabled: true })
      expect(textOf(locked)).not.toContain('notes:')
      const notice = jsonOf(await reader.call('retrieve_tools', { query: 'reveal secret' }))
      expect(notice.notice).toBeUndefined()

      const servers = jsonOf<{ servers: Array<{ name: string }> }>(await reader.call('upstream_servers', { operation: 'list' }))
      expect(servers.servers.map((s) => s.name)).toEqual(['everything'])
      expect(textOf(await reader.call('call_tool_read', { name: 'everything:echo', args: { message: 'reader' } }))).toBe('Echo: reader')
    })

    it('with the token, a call to another server fails as "not in scope" and never reaches it', async () => {
      const before = logLines(notesLog).length
      const r = await reader.call('call_tool_read', { name: 'notes:read_notes', args: {} })
      expect(r.isError).toBe(true)
      expect(textOf(r)).toMatch(/not in scope/)
      const w = await reader.call('call_tool_read', { name: 'everything:toggle-simulated-logging', args: {} })
      expect(w.isError).toBe(true)
      expect(textOf(w)).toMatch(/not in scope/)
      const get = await reader.call('upstream_servers', { operation: 'get', name: 'notes' })
      expect(get.isError).toBe(true)
      expect(textOf(get)).toMatch(/not in scope/)
      expect(logLines(notesLog).length).toBe(before)
    })

    it('the control API refuses the agent token with 403', async () => {
      for (const p of ['/api/v1/status', '/api/v1/servers', '/api/v1/search?q=echo']) {
        const r = await http(p, { headers: { authorization: `Bearer ${token}` } })
        expect(r.status, p).toBe(403)
        expect(r.json.error?.message).toMatch(/admin key/)
      }
      const post = await http('/api/v1/servers/notes/tools/note_secret/enable', { method: 'POST', headers: { 'x-api-key': token } })
      expect(post.status).toBe(403)
    })

    it('asking for a token again prints a new one that works', async () => {
      const again = await runCli(['agents', 'token', 'reader', ...serve.flags])
      expect(again.code, again.stderr).toBe(0)
      const fresh = again.stdout.trim()
      expect(fresh).toMatch(/^tg_reader_/)
      expect(fresh).not.toBe(token)
      const c = await mcpClient({ 'x-api-key': fresh })
      expect(textOf(await c.call('call_tool_read', { name: 'everything:echo', args: { message: 'fresh' } }))).toBe('Echo: fresh')
    })
  })

  describe('the control API', () => {
    it('GET /api/v1/status has version, uptime_s, servers, tools and pending_approvals', async () => {
      const r = await serve.api<Record<string, unknown>>('GET', '/api/v1/status')
      expect(r.status).toBe(200)
      expect(Object.keys(r.json)).toEqual(['version', 'uptime_s', 'servers', 'tools', 'pending_approvals'])
      expect(r.json).toMatchObject({
        version: expect.any(String) as string,
        uptime_s: expect.any(Number) as number,
        pending_approvals: 0,
        tools: { callable: 17, disabled_by_config: 1 }, // everything's 15 (it offers more tools to a client that takes elicitation and roots, as Toolgate now does) + notes' 2
      })
    })

    it('GET /api/v1/servers lists each server with state, last_error and full counts', async () => {
      const r = await serve.api<{ servers: Array<Record<string, unknown>> }>('GET', '/api/v1/servers')
      expect(r.status).toBe(200)
      const byName = Object.fromEntries(r.json.servers.map((s) => [s.name, s]))
      expect(Object.keys(byName)).toEqual(['everything', 'notes'])
      expect(byName.everything).toMatchObject({ state: 'connected', last_error: null, counts: { callable: 15 } })
      expect(byName.notes).toMatchObject({ state: 'connected', last_error: null, counts: { callable: 2, disabled_by_config: 1 } })
    })

    it('GET /api/v1/servers/:name/tools lists every known tool with status and approval', async () => {
      const r = await serve.api<{ tools: Array<Record<string, unknown>> }>('GET', '/api/v1/servers/notes/tools')
      expect(r.status).toBe(200)
      expect(r.json.tools.map((t) => t.name).sort()).toEqual(['notes:note_secret', 'notes:read_notes', 'notes:write_note'])
      for (const t of r.json.tools) {
        expect(t.approval).toMatchObject({ status: 'approved', hash: expect.stringMatching(/^[0-9a-f]{64}$/) as string })
      }
      const secret = r.json.tools.find((t) => t.name === 'notes:note_secret')
      expect(secret).toMatchObject({ status: 'disabled_by_config', remediation: expect.stringMatching(/NOT user-overridable/) as string })
      expect(r.json.tools.find((t) => t.name === 'notes:read_notes')).toMatchObject({ status: 'callable', description: 'Read the notes in the notebook' })
      const every = await serve.api<{ tools: unknown[] }>('GET', '/api/v1/servers/everything/tools')
      expect(every.json.tools).toHaveLength(15)
    })

    it('GET /api/v1/stats counts include_disabled searches and locked-only searches', async () => {
      const before = (await serve.api<Record<string, number>>('GET', '/api/v1/stats')).json
      expect(before).toMatchObject({ include_disabled_calls: expect.any(Number) as number, locked_only_searches: expect.any(Number) as number })
      const admin = await mcpClient({ authorization: `Bearer ${serve.key}` })
      await admin.call('retrieve_tools', { query: 'echo', include_disabled: true })
      // only the config-locked notes:note_secret matches this
      const lockedOnly = jsonOf(await admin.call('retrieve_tools', { query: 'reveal secret' }))
      expect(lockedOnly).toMatchObject({ total: 0, notice: expect.stringMatching(/^1 relevant tool/) as string })
      const after = (await serve.api<Record<string, number>>('GET', '/api/v1/stats')).json
      expect(after.include_disabled_calls).toBe(before.include_disabled_calls + 1)
      expect(after.locked_only_searches).toBe(before.locked_only_searches + 1)
    })

    it('errors are {"error": {"code", "message"}} with a fitting status', async () => {
      const unknownServer = await serve.api<{ error: { code: string; message: string } }>('GET', '/api/v1/servers/nosuch/tools')
      expect(unknownServer.status).toBe(404)
      expect(unknownServer.json.error).toMatchObject({ code: expect.any(String) as string, message: expect.stringMatching(/nosuch/) as string })
      const unknownTool = await serve.api<{ error: { code: string } }>('POST', '/api/v1/servers/notes/tools/nosuch/disable')
      expect(unknownTool.status).toBe(404)
      const noRoute = await serve.api<{ error: { code: string } }>('GET', '/api/v1/nothing-here')
      expect(noRoute.status).toBe(404)
      expect(noRoute.json.error.code).toBeTruthy()
      const badSearch = await serve.api<{ error: { code: string; message: string } }>('GET', '/api/v1/search?q=echo&limit=0')
      expect(badSearch.status).toBe(400)
      expect(badSearch.json.error.message).toMatch(/limit must be an integer from 1 to 100/)
    })
  })
})
