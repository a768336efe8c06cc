// The wire of both protocol eras, checked from outside, with a real
// `toolgate serve`, raw HTTP requests and real upstreams of both eras:
// - Mcp-Method / Mcp-Name on /mcp under 2026-07-28 are checked against the body: a request whose
//   headers are missing or name another method or tool (what a proxy in front would route or log
//   on) is refused and reaches no upstream.
// - Cache hints: every list answer of 2026-07-28 says ttlMs and cacheScope private (the lists are
//   scoped to the credential), the same for the same token; 2025 answers carry none.
// - JSON-RPC batches in a 2025-03-26 session over HTTP are answered.
// - Upstreams: Toolgate chooses the era by what the server answers and sends a 2026-07-28 server
//   MCP-Protocol-Version, Mcp-Method and Mcp-Name (no session); a 2025 server gets a session.
//   Seen on the wire by a recording proxy in front of each server. The window (the built web UI in
//   Debian's Chromium) says on each server's card which protocol it speaks.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import path from 'node:path'
import { chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  EVERYTHING,
  ROOT,
  assertBuilt,
  fixtureEntry,
  freePort,
  logLines,
  rawRequest,
  runCli,
  startServe,
  tempDir,
  track,
  waitFor,
  waitForServerState,
  writeJson,
  type FixtureTool,
  type RawResponse,
  type Serve,
} from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'

const V2 = path.join(ROOT, 'test/fixtures/servers/v2-server.mjs')
const TOOLS: FixtureTool[] = [
  { name: 'read_notes', description: 'Read the notes in the notebook', annotations: { readOnlyHint: true } },
  { name: 'burn_notes', description: 'Burn every note in the notebook', annotations: { destructiveHint: true } },
]
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'raw-wire', version: '1' },
}

interface Seen {
  method: string
  headers: http.IncomingHttpHeaders
}

/** A recording proxy in front of an MCP server over HTTP: every POST's JSON-RPC method and headers. */
function recordingProxy(target: number): Promise<{ port: number; seen: Seen[]; close: () => void }> {
  const seen: Seen[] = []
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      if (req.method === 'POST') {
        try {
          const m = JSON.parse(body.toString('utf8')) as { method?: string }
          seen.push({ method: m.method ?? '(answer)', headers: req.headers })
        } catch {
          seen.push({ method: '(unparsable)', headers: req.headers })
        }
      }
      const up = http.request({ host: '127.0.0.1', port: target, path: req.url, method: req.method, headers: req.headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers)
        r.pipe(res)
      })
      up.on('error', () => res.destroy())
      res.on('close', () => up.destroy())
      up.end(body)
    })
  })
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const a = server.address() as net.AddressInfo
      resolve({ port: a.port, seen, close: () => server.close() })
    }),
  )
}

async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.destroy()
      resolve(true)
    })
    s.once('error', () => resolve(false))
  })
}

/** The JSON-RPC messages of an answer, whether plain JSON or an SSE stream. */
function messagesOf(r: RawResponse): unknown[] {
  if (String(r.headers['content-type']).includes('text/event-stream')) {
    return r.body
      .split('\n')
      .filter((l) => l.startsWith('data: ') && l.length > 6)
      .map((l) => JSON.parse(l.slice(6)) as unknown)
  }
  return [JSON.parse(r.body) as unknown]
}

useCleanup()

describe('the wire of both eras', () => {
  let serve: Serve
  let notesLog: string
  const proxies: Array<{ seen: Seen[]; close: () => void }> = []
  let newProxy: { seen: Seen[] }
  let oldProxy: { seen: Seen[] }

  beforeAll(async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-wire-')
    notesLog = path.join(tmp, 'logs', 'notes.log')
    fs.mkdirSync(path.dirname(notesLog), { recursive: true })
    const toolsFile = writeJson(path.join(tmp, 'tools.json'), TOOLS)
    const [v2Port, oldPort] = [await freePort(), await freePort()]
    const v2 = spawn(process.execPath, [V2, 'http', String(v2Port)], { stdio: ['ignore', 'ignore', 'ignore'] })
    const old = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { ...process.env, PORT: String(oldPort) },
      stdio: ['ignore', 'ignore', 'ignore'],
    })
    track(v2.pid)
    track(old.pid)
    await waitFor(async () => (await listening(v2Port)) && (await listening(oldPort)), 20_000, 'both HTTP servers listening')
    const [np, op] = [await recordingProxy(v2Port), await recordingProxy(oldPort)]
    proxies.push(np, op)
    ;[newProxy, oldProxy] = [np, op]
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {
        notes: { ...fixtureEntry(toolsFile, notesLog), quarantined: false },
        new_http: { url: `http://127.0.0.1:${np.port}/mcp`, quarantined: false },
        old_http: { url: `http://127.0.0.1:${op.port}/mcp`, quarantined: false },
      },
      agents: [{ name: 'reader', servers: ['notes'], permissions: ['read'] }],
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    for (const s of ['notes', 'new_http', 'old_http']) await waitForServerState(serve, s, 'connected', 40_000)
  }, 90_000)

  afterAll(async () => {
    await stopServe(serve)
    for (const p of proxies) p.close()
  })

  /** One 2026-07-28 request to /mcp with the given standard headers (undefined leaves one out). */
  const modern = async (bearer: string, body: { method: string; params?: Record<string, unknown> }, headers: Record<string, string | undefined>) => {
    const h: Record<string, string> = {
      authorization: `Bearer ${bearer}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    }
    for (const [k, v] of Object.entries({ 'mcp-protocol-version': '2026-07-28', ...headers })) if (v !== undefined) h[k] = v
    const r = await rawRequest(`${serve.url}/mcp`, {
      method: 'POST',
      headers: h,
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: body.method, params: { ...body.params, _meta: MODERN_META } }),
    })
    return { status: r.status, message: messagesOf(r).at(-1) as { result?: Record<string, unknown>; error?: { code: number; message: string } } }
  }
  const call = (name: string, args: Record<string, unknown>) => ({ method: 'tools/call', params: { name, arguments: args } })

  it('2026-07-28 on /mcp: Mcp-Method and Mcp-Name must match the body; a mismatch is refused and reaches no upstream', async () => {
    const ok = await modern(serve.key, call('call_tool_read', { name: 'notes:read_notes', args: {} }), {
      'mcp-method': 'tools/call',
      'mcp-name': 'call_tool_read',
    })
    expect(ok.status).toBe(200)
    expect(ok.message.result?.isError).not.toBe(true)
    expect(logLines(notesLog).map((l) => l.tool)).toEqual(['read_notes'])

    const refusals = [
      // no Mcp-Method at all
      await modern(serve.key, call('call_tool_read', { name: 'notes:read_notes', args: {} }), { 'mcp-name': 'call_tool_read' }),
      // Mcp-Method names a harmless list while the body calls
      await modern(serve.key, call('call_tool_read', { name: 'notes:read_notes', args: {} }), { 'mcp-method': 'tools/list', 'mcp-name': 'call_tool_read' }),
      // Mcp-Name names the read variant while the body calls the destructive one (a proxy routing on the header would be fooled)
      await modern(serve.key, call('call_tool_destructive', { name: 'notes:burn_notes', args: {} }), {
        'mcp-method': 'tools/call',
        'mcp-name': 'call_tool_read',
      }),
      // no Mcp-Name on a tools/call
      await modern(serve.key, call('call_tool_destructive', { name: 'notes:burn_notes', args: {} }), { 'mcp-method': 'tools/call' }),
    ]
    for (const r of refusals) {
      expect(r.status, JSON.stringify(r.message)).toBe(400)
      expect(r.message.result).toBeUndefined()
      expect(r.message.error?.code).toBe(-32020)
      expect(r.message.error?.message).toMatch(/Mcp-Method|Mcp-Name/)
    }
    expect(logLines(notesLog).map((l) => l.tool)).toEqual(['read_notes'])
  })

  it('2026-07-28 list answers say ttlMs and cacheScope private, the same for the same token; 2025 answers carry no hints', async () => {
    const token = (await runCli(['agents', 'token', 'reader', ...serve.flags])).stdout.trim().split('\n')[0].trim()
    const lists = ['tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']
    for (const method of lists) {
      const a = await modern(token, { method }, { 'mcp-method': method })
      const b = await modern(token, { method }, { 'mcp-method': method })
      expect(a.status, `${method}: ${JSON.stringify(a.message)}`).toBe(200)
      // tools/list (Toolgate's own tools for this credential) may be kept a minute; the others follow the upstreams
      expect(a.message.result, method).toMatchObject({ cacheScope: 'private', ttlMs: method === 'tools/list' ? 60_000 : 0 })
      expect(b.message.result, method).toEqual(a.message.result)
    }
    // the reader's list is not the admin's: scoped to the credential, hence private
    const reader = (await modern(token, { method: 'tools/list' }, { 'mcp-method': 'tools/list' })).message.result as { tools: Array<{ name: string }> }
    const admin = (await modern(serve.key, { method: 'tools/list' }, { 'mcp-method': 'tools/list' })).message.result as { tools: Array<{ name: string }> }
    expect(reader.tools.map((t) => t.name)).not.toContain('call_tool_destructive')
    expect(admin.tools.map((t) => t.name)).toContain('call_tool_destructive')

    const session = await open2025(serve, '2025-11-25')
    const old = await session.send({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
    const result = (old[0] as { result: Record<string, unknown> }).result
    expect(result.tools).toBeDefined()
    expect(result).not.toHaveProperty('cacheScope')
    expect(result).not.toHaveProperty('ttlMs')
  })

  it('a JSON-RPC batch in a 2025-03-26 session over HTTP is answered, each request once', async () => {
    const session = await open2025(serve, '2025-03-26')
    const answers = (
      await session.send([
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'describe_tool', arguments: { name: 'notes:read_notes' } } },
        { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'x', progress: 1 } },
      ])
    ).flat() as Array<{ id: number; result?: Record<string, unknown>; error?: unknown }>
    expect(answers.map((a) => a.id).sort()).toEqual([2, 3])
    const list = answers.find((a) => a.id === 2)?.result as { tools: Array<{ name: string }> }
    expect(list.tools.map((t) => t.name)).toContain('retrieve_tools')
    const described = answers.find((a) => a.id === 3)?.result as { content: Array<{ text: string }> }
    expect(JSON.parse(described.content[0].text)).toMatchObject({ name: 'notes:read_notes', call_with: 'call_tool_read' })
  })

  it('upstreams: a 2026-07-28 server gets MCP-Protocol-Version, Mcp-Method and Mcp-Name and no session; a 2025 server a session', async () => {
    const key = serve.key
    const v2 = await modern(key, call('call_tool_read', { name: 'new_http:echo', args: { text: 'wire' } }), {
      'mcp-method': 'tools/call',
      'mcp-name': 'call_tool_read',
    })
    expect(((v2.message.result?.content as Array<{ text: string }>) ?? [])[0]?.text).toBe('echo (modern): wire')
    const toNew = newProxy.seen.filter((s) => s.method === 'tools/call')
    expect(toNew.length).toBe(1)
    expect(toNew[0].headers).toMatchObject({ 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'echo' })
    expect(toNew[0].headers['mcp-session-id']).toBeUndefined()
    expect(newProxy.seen.some((s) => s.method === 'server/discover')).toBe(true)
    expect(newProxy.seen.some((s) => s.method === 'initialize')).toBe(false)

    const v1 = await modern(key, call('call_tool_destructive', { name: 'old_http:echo', args: { message: 'wire' } }), {
      'mcp-method': 'tools/call',
      'mcp-name': 'call_tool_destructive',
    })
    expect(((v1.message.result?.content as Array<{ text: string }>) ?? [])[0]?.text).toBe('Echo: wire')
    const toOld = oldProxy.seen.filter((s) => s.method === 'tools/call')
    expect(toOld.length).toBe(1)
    expect(toOld[0].headers['mcp-session-id']).toEqual(expect.any(String))
    expect(toOld[0].headers['mcp-protocol-version']).toBe('2025-11-25')
    expect(oldProxy.seen.some((s) => s.method === 'initialize')).toBe(true)
  })

  it('the window says on each server card which protocol the server speaks (real Chromium)', async () => {
    const api = (await serve.api<{ servers: Array<{ name: string; protocol_version: string | null }> }>('GET', '/api/v1/servers')).json.servers
    const byApi = Object.fromEntries(api.map((s) => [s.name, s.protocol_version]))
    expect(byApi.new_http).toBe('2026-07-28')
    expect(byApi.old_http).toBe('2025-11-25')
    const browser = await chromium.launch({
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update'],
    })
    try {
      const page = await browser.newPage()
      await page.goto(`${serve.url}/#key=${serve.key}`)
      const version = (name: string) => page.locator(`[data-server="${name}"] [data-protocol-version]`)
      await version('old_http').waitFor({ timeout: 20_000 })
      expect(await version('new_http').getAttribute('data-protocol-version')).toBe('2026-07-28')
      expect(await version('new_http').textContent()).toBe('MCP 2026-07-28 (stateless)')
      expect(await version('old_http').getAttribute('data-protocol-version')).toBe('2025-11-25')
      expect(await version('old_http').textContent()).toBe('MCP 2025-11-25')
      expect(await version('notes').getAttribute('data-protocol-version')).toBe(byApi.notes)
    } finally {
      await browser.close()
    }
  }, 60_000)
})

/** A 2025 session on /mcp opened with raw requests: initialize in `version`, then send() posts in it. */
async function open2025(serve: Serve, version: string): Promise<{ send: (body: unknown) => Promise<unknown[]> }> {
  const base = { authorization: `Bearer ${serve.key}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
  const init = await rawRequest(`${serve.url}/mcp`, {
    method: 'POST',
    headers: base,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  })
  expect(init.status, init.body).toBe(200)
  expect(messagesOf(init)[0]).toMatchObject({ result: { protocolVersion: version } })
  const sid = String(init.headers['mcp-session-id'])
  const headers = { ...base, 'mcp-session-id': sid, 'mcp-protocol-version': version }
  await rawRequest(`${serve.url}/mcp`, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })
  return {
    send: async (body) => {
      const r = await rawRequest(`${serve.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(body) })
      expect(r.status, r.body).toBe(200)
      return messagesOf(r)
    },
  }
}
