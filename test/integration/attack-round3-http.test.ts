// Round three attacks on `toolgate serve`'s HTTP listener from a hostile web page and a hostile
// agent, from outside: a real serve, raw HTTP requests. A page the user has open in a browser can
// send simple requests to 127.0.0.1 (no preflight) and rebind its own name to it; an agent holds a
// token of its own and may send any header. None of it must reach the control API, another
// agent's scope, or a file outside the web UI's folder.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rawRequest, ROOT, startServe, tempDir, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'

const HOSTILE = path.join(ROOT, 'test/fixtures/servers/hostile-server.mjs')
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }

useCleanup()

describe('attack: the HTTP listener from a web page and from an agent', () => {
  let serve: Serve
  let host: string
  let readerToken: string

  beforeAll(async () => {
    const tmp = tempDir('toolgate-attack-r3-http-')
    const tool = (name: string) => ({
      name,
      description: `The ${name} tool`,
      inputSchema: { type: 'object', properties: {} },
      annotations: { readOnlyHint: true },
    })
    const server = (name: string) => {
      const file = path.join(tmp, `${name}.json`)
      fs.writeFileSync(file, JSON.stringify({ tools: [tool(`${name}_tool`)] }))
      return { command: process.execPath, args: [HOSTILE], env: { HOSTILE_STATE: file }, sandbox: { fs_read: [tmp] }, quarantined: false }
    }
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { mine: server('mine'), theirs: server('theirs') },
      agents: [
        { name: 'reader', servers: ['mine'], permissions: ['read'] },
        { name: 'other', servers: ['theirs'], permissions: ['read'] },
      ],
    })
    // the key Toolgate writes itself (api_key in the data dir), as for a user
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data'), key: null })
    host = `127.0.0.1:${serve.port}`
    readerToken = (await serve.api<{ token: string }>('POST', '/api/v1/agents/reader/token')).json.token
    await waitForServerState(serve, 'mine', 'connected')
    await waitForServerState(serve, 'theirs', 'connected')
  }, 60_000)

  afterAll(() => stopServe(serve))

  /** A 2026-07-28 tools/list with these headers: the tool names it answers, or the HTTP status. */
  async function list(headers: Record<string, string>): Promise<{ status: number; names: string[]; body: string }> {
    const r = await rawRequest(`${serve.url}/mcp/direct`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
        ...headers,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: MODERN_META } }),
    })
    let names: string[] = []
    try {
      names = ((JSON.parse(r.body) as { result?: { tools?: Array<{ name: string }> } }).result?.tools ?? []).map((t) => t.name)
    } catch {
      // not JSON-RPC: the status says why
    }
    return { status: r.status, names, body: r.body }
  }

  it('a page from a sandboxed frame or a file (Origin: null), another local port, or a rebound name reaches neither the API nor /mcp, even with the key', async () => {
    const admin = { authorization: `Bearer ${serve.key}` }
    const refused: Array<Record<string, string>> = [
      { origin: 'null' },
      { origin: `http://localhost:${serve.port + 1}` },
      { origin: `http://127.0.0.1:${serve.port}.evil.example` },
      { origin: `http://127.0.0.1` },
      { host: `localhost.:${serve.port}` },
      { host: `127.0.0.1.nip.io:${serve.port}` },
      { host: `evil.example:${serve.port}` },
      { host: `127.0.0.1` },
      { host: `0.0.0.0:${serve.port}` },
      { host: `127.1:${serve.port}` },
    ]
    for (const h of refused) {
      const headers = { host, ...h, ...admin }
      // a simple request (text/plain body, no preflight) as a page's fetch or form would send it
      const approve = await rawRequest(`${serve.url}/api/v1/servers/theirs/disable`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'text/plain' },
        body: '{}',
      })
      expect(approve.status, `${JSON.stringify(h)}: ${approve.body}`).toBe(403)
      const events = await rawRequest(`${serve.url}/api/v1/status`, { headers })
      expect(events.status, JSON.stringify(h)).toBe(403)
      expect((await list(headers)).status, JSON.stringify(h)).toBe(403)
    }
    // nothing was switched off
    const s = await serve.api<{ servers: Array<{ name: string; state: string }> }>('GET', '/api/v1/servers')
    expect(s.json.servers.find((x) => x.name === 'theirs')?.state).toBe('connected')
  })

  it('the key is taken from headers only: in the query string (where a page could put it, and logs and Referer keep it) it opens nothing', async () => {
    for (const q of [`key=${serve.key}`, `api_key=${serve.key}`, `token=${serve.key}`, `access_token=${serve.key}`]) {
      const r = await rawRequest(`${serve.url}/api/v1/status?${q}`, { headers: { host } })
      expect(r.status, q).toBe(401)
    }
  })

  it('an agent token names its own agent whatever X-Toolgate-Agent says; the admin key as an unknown agent gets no scope at all', async () => {
    const own = await list({ authorization: `Bearer ${readerToken}` })
    expect(own.names).toContain('mine__mine_tool')
    expect(own.names).not.toContain('theirs__theirs_tool')
    for (const claimed of ['other', '', 'admin', 'reader, other']) {
      const r = await list({ authorization: `Bearer ${readerToken}`, 'x-toolgate-agent': claimed })
      expect(r.names, claimed).toEqual(own.names)
    }
    // the admin key asking to be an agent that is not configured: refused, never the full scope
    const ghost = await list({ authorization: `Bearer ${serve.key}`, 'x-toolgate-agent': 'ghost' })
    expect(ghost.names).not.toContain('theirs__theirs_tool')
    expect(ghost.names).not.toContain('mine__mine_tool')
    // an agent token is no key for the control API, whatever it claims to be
    for (const p of ['/api/v1/status', '/api/v1/agents/reader/token', '/api/v1/events']) {
      const r = await rawRequest(`${serve.url}${p}`, {
        method: p.endsWith('token') ? 'POST' : 'GET',
        headers: { host, authorization: `Bearer ${readerToken}`, 'x-toolgate-agent': 'admin', 'x-toolgate-client': 'ui' },
      })
      expect(r.status, p).toBe(403)
    }
  })

  it("a 2025 session is its credential's: another agent's token, the admin key as another agent, or a 2026-07-28 request cannot use or end it", async () => {
    const init = await rawRequest(`${serve.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${serve.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'admin', version: '1' } },
      }),
    })
    const sid = init.headers['mcp-session-id']
    expect(typeof sid, init.body).toBe('string')
    const listIn = (headers: Record<string, string>, modernEra = false) =>
      rawRequest(`${serve.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': String(sid),
          ...(modernEra ? { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' } : { 'mcp-protocol-version': '2025-11-25' }),
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: modernEra ? { _meta: MODERN_META } : {} }),
      })
    for (const [who, headers] of [
      ['reader token', { authorization: `Bearer ${readerToken}` }],
      ['admin key as reader', { authorization: `Bearer ${serve.key}`, 'x-toolgate-agent': 'reader' }],
    ] as const) {
      expect((await listIn(headers)).status, who).toBe(403)
      expect((await listIn(headers, true)).status, `${who}, 2026-07-28`).toBe(403)
      const end = await rawRequest(`${serve.url}/mcp`, { method: 'DELETE', headers: { ...headers, 'mcp-session-id': String(sid) } })
      expect(end.status, `${who} DELETE`).toBe(403)
    }
    // the session still serves its own credential
    const own = await listIn({ authorization: `Bearer ${serve.key}` })
    expect(own.status, own.body).toBe(200)
    expect(own.body).toContain('retrieve_tools')
  })

  it('the web UI serves files of its own folder only: encoded dots and slashes, absolute paths and NUL bytes reach no file outside', async () => {
    const keyFile = path.join(serve.dataDir, 'api_key')
    expect(fs.existsSync(keyFile)).toBe(true)
    const abs = keyFile.replace(/^\//, '')
    const up = '..%2F'.repeat(12)
    for (const p of [
      `/${up}${abs.split('/').join('%2F')}`,
      `/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/${abs}`,
      `/..%5C..%5C..%5C..%5C..%5C${abs}`,
      `//${abs}`,
      `/${up}${abs}%00.html`,
      `/${up}etc/passwd`,
    ]) {
      const r = await rawRequest(`${serve.url}${p}`, { headers: { host } })
      expect(r.body, p).not.toContain(serve.key)
      expect(r.body, p).not.toMatch(/root:.*:0:0:/)
    }
  })
})
