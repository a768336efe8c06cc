// Toolgate's 2025 session transport (http/session-transport.ts) answers as the SDK's own
// WebStandardStreamableHTTPServerTransport (2.4.0) did on the path it replaced (Toolgate's request
// view and response copy, web-bridge.ts): the same requests, malformed ones above all, go to one
// session on each, and status, the JSON-RPC error and the messages answered must be the same. The
// malformed ones must also be refused (4xx), so two transports that both accepted garbage would
// not pass. If a later SDK changes what its transport answers, this test fails and says where: the
// SDK is pinned exactly, and this is the check that the copy still matches it.
// One difference is on purpose: the SDK's transport (as Toolgate configured it) answers every POST
// with requests as an SSE stream; ours answers a POST of one request whose only message is its
// answer as plain JSON (Streamable HTTP lets the server pick either; clients must read both), and
// everything else as the same SSE stream. The framing is compared apart from the messages.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Server, WebStandardStreamableHTTPServerTransport, type CallToolResult } from '@modelcontextprotocol/server'
import { SessionHttpTransport } from '../../src/main/core/http/session-transport'
import { sendWebResponse, sessionRequestView } from '../../src/main/core/http/web-bridge'
import { readJsonBody } from '../../src/main/core/http/body'

function makeServer(): Server {
  const server = new Server({ name: 'parity', version: '1.0.0' }, { capabilities: { tools: {} } })
  server.setRequestHandler('tools/list', () => ({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }))
  server.setRequestHandler('tools/call', async (req, ctx): Promise<CallToolResult> => {
    // a progress notification before the result, on the request's own stream, when the caller asked for it
    const token = req.params._meta?.progressToken
    if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: 1, total: 2 } })
    return { content: [{ type: 'text', text: JSON.stringify(req.params.arguments ?? {}) }] }
  })
  return server
}

type Side = 'sdk' | 'ours'

/** One session per side, made on the first request that reaches it (so "not initialized" can be seen first). */
const sessions: { sdk?: WebStandardStreamableHTTPServerTransport; ours?: SessionHttpTransport } = {}
const servers: Partial<Record<Side, Server>> = {}

async function route(side: Side, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  let body: unknown
  try {
    body = req.method === 'POST' || req.method === 'PUT' ? await readJsonBody(req) : undefined
  } catch {
    body = undefined
  }
  if (side === 'sdk') {
    if (!sessions.sdk) {
      sessions.sdk = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => `sid-sdk` })
      servers.sdk = makeServer()
      await servers.sdk.connect(sessions.sdk)
    }
    // what McpEndpoint did before: the SDK's transport behind Toolgate's request view and response copy
    return sendWebResponse(res, await sessions.sdk.handleRequest(sessionRequestView(req), { parsedBody: body }))
  }
  if (!sessions.ours) {
    sessions.ours = new SessionHttpTransport(
      () => `sid-ours`,
      () => {},
    )
    servers.ours = makeServer()
    await servers.ours.connect(sessions.ours)
  }
  return sessions.ours.handle(req, res, body)
}

let base = ''
let listener: http.Server

beforeAll(async () => {
  listener = http.createServer((req, res) => {
    const side: Side = req.url?.startsWith('/sdk') ? 'sdk' : 'ours'
    route(side, req, res).catch((e: unknown) => {
      res.writeHead(500).end(String(e))
    })
  })
  await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(listener.address() as AddressInfo).port}`
})

afterAll(async () => {
  await sessions.sdk?.close()
  await sessions.ours?.close()
  listener.closeAllConnections()
  await new Promise<void>((r) => listener.close(() => r()))
})

interface Answer {
  status: number
  contentType: string | undefined
  contentLength?: string
  hasSessionHeader: boolean
  allow: string | undefined
  /** a JSON body as parsed; an SSE body as the list of its messages; else the text */
  body: unknown
}

const ACCEPT = 'application/json, text/event-stream'

async function send(side: Side, method: string, opts: { headers?: Record<string, string>; body?: string; session?: boolean | string } = {}): Promise<Answer> {
  const headers: Record<string, string> = { accept: ACCEPT, 'content-type': 'application/json', ...opts.headers }
  if (opts.session === true) headers['mcp-session-id'] = `sid-${side}`
  else if (typeof opts.session === 'string') headers['mcp-session-id'] = opts.session
  const r = await fetch(`${base}/${side}`, { method, headers, ...(opts.body !== undefined ? { body: opts.body } : {}) })
  const text = await r.text()
  const contentType = r.headers.get('content-type') ?? undefined
  let body: unknown = text
  if (contentType?.startsWith('application/json')) body = JSON.parse(text)
  else if (contentType?.startsWith('text/event-stream')) {
    body = text
      .split('\n\n')
      .filter((e) => e.trim() !== '')
      .map((e) => e.split('\n'))
      .map((lines) => ({
        event: lines.find((l) => l.startsWith('event: '))?.slice(7),
        data: JSON.parse(lines.find((l) => l.startsWith('data: '))?.slice(6) ?? 'null') as unknown,
      }))
  }
  return {
    status: r.status,
    contentType,
    contentLength: r.headers.get('content-length') ?? undefined,
    hasSessionHeader: r.headers.has('mcp-session-id'),
    allow: r.headers.get('allow') ?? undefined,
    body,
  }
}

/** The JSON-RPC messages of a 200 answer, however framed (one JSON message, or SSE `message` events). */
function messagesOf(a: Answer): unknown[] {
  if (a.contentType?.startsWith('application/json')) return Array.isArray(a.body) ? (a.body as unknown[]) : [a.body]
  return (a.body as Array<{ event?: string; data: unknown }>).map((e) => {
    expect(e.event).toBe('message')
    return e.data
  })
}

/** Answers with the framing of a 200 with messages taken apart: what each side said, whatever the content type. */
function comparable(a: Answer): unknown {
  if (a.status !== 200 || a.contentType === undefined || !/^(application\/json|text\/event-stream)/.test(a.contentType)) return a
  return { ...a, contentType: 'json or SSE', body: messagesOf(a) }
}

/** The framing ours picks: plain JSON (with its length) for one request answered alone, SSE for a batch. */
function expectFraming(ours: Answer, single: boolean): void {
  if (ours.status !== 200) return
  if (single) {
    expect(ours.contentType).toBe('application/json')
    expect(ours.contentLength).toBe(String(Buffer.byteLength(JSON.stringify(ours.body))))
  } else expect(ours.contentType).toBe('text/event-stream')
}

/** Sends the same request to both and expects the same answer; returns ours. */
async function same(
  method: string,
  opts: { headers?: Record<string, string>; body?: unknown; raw?: string; session?: boolean | string } = {},
): Promise<Answer> {
  const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body))
  const wire = {
    ...(opts.headers ? { headers: opts.headers } : {}),
    ...(opts.session !== undefined ? { session: opts.session } : {}),
    ...(body !== undefined ? { body } : {}),
  }
  const sdk = await send('sdk', method, wire)
  const ours = await send('ours', method, wire)
  const { contentLength: _s, ...sdkSaid } = sdk
  const { contentLength: _o, ...oursSaid } = ours
  expect(comparable(oursSaid as Answer)).toEqual(comparable(sdkSaid as Answer))
  // a 200 with messages: the SDK's is always an SSE stream
  if (sdk.status === 200 && sdk.contentType?.startsWith('text/event-stream')) {
    const requests = (Array.isArray(opts.body) ? opts.body : [opts.body]).filter((m) => (m as { id?: unknown } | undefined)?.id !== undefined)
    expectFraming(ours, !Array.isArray(opts.body) && requests.length === 1 && messagesOf(sdk).length === 1)
  }
  return ours
}

const call = (id: number | string, params: unknown): unknown => ({ jsonrpc: '2.0', id, method: 'tools/call', params })
const initialize = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
}

describe('the 2025 session transport answers as the SDK transport it replaced', () => {
  it('refuses requests before initialize, then initializes', async () => {
    const early = await same('POST', { body: call(1, { name: 'echo' }), session: true })
    expect(early.status).toBe(400)
    const get = await same('GET', { session: true })
    expect(get.status).toBe(400)
    const init = await same('POST', { body: initialize })
    expect(init.status).toBe(200)
    expect(init.hasSessionHeader).toBe(true)
    expect(JSON.stringify(init.body)).toContain('"protocolVersion":"2025-06-18"')
    await same('POST', { body: { jsonrpc: '2.0', method: 'notifications/initialized' }, session: true })
  })

  it('refuses malformed requests with the same status and JSON-RPC error', async () => {
    const cases: Array<[string, Parameters<typeof same>[1]]> = [
      ['initialize again', { body: initialize, session: true }],
      ['initialize in a batch of two', { body: [initialize, { jsonrpc: '2.0', method: 'notifications/initialized' }], session: true }],
      ['no event-stream in Accept', { body: call(2, { name: 'echo' }), session: true, headers: { accept: 'application/json' } }],
      ['no JSON in Accept', { body: call(2, { name: 'echo' }), session: true, headers: { accept: 'text/event-stream' } }],
      ['not JSON content', { body: call(2, { name: 'echo' }), session: true, headers: { 'content-type': 'text/plain' } }],
      ['an empty body', { raw: '', session: true }],
      ['not JSON', { raw: '{"jsonrpc": "2.0", ', session: true }],
      ['a batch of 101', { body: Array.from({ length: 101 }, (_, i) => call(i + 10, { name: 'echo' })), session: true }],
      ['jsonrpc 1.0', { body: { jsonrpc: '1.0', id: 3, method: 'tools/list' }, session: true }],
      ['no jsonrpc member', { body: { id: 3, method: 'tools/list' }, session: true }],
      ['a number', { body: 42, session: true }],
      ['null', { raw: 'null', session: true }],
      ['a string', { body: 'tools/list', session: true }],
      ['an id that is an object', { body: { jsonrpc: '2.0', id: { a: 1 }, method: 'tools/list' }, session: true }],
      ['a method that is a number', { body: { jsonrpc: '2.0', id: 4, method: 7 }, session: true }],
      // a method and an id, and still no request: ours tells a request by its members after the
      // parse, so these must be stopped by the parse itself (a permissive parse would hand them on)
      ['a request with a member of its own', { body: { jsonrpc: '2.0', id: 40, method: 'tools/list', extra: true }, session: true }],
      ['a request with a fractional id', { body: { jsonrpc: '2.0', id: 4.5, method: 'tools/list' }, session: true }],
      ['a request whose params are a string', { body: { jsonrpc: '2.0', id: 41, method: 'tools/list', params: 'all' }, session: true }],
      ['a request that carries a result', { body: { jsonrpc: '2.0', id: 42, method: 'tools/list', result: {} }, session: true }],
      [
        'a batch with a request with a member of its own',
        { body: [call(43, { name: 'echo' }), { jsonrpc: '2.0', id: 44, method: 'tools/list', x: 1 }], session: true },
      ],
      ['a batch with one bad message', { body: [call(5, { name: 'echo' }), { jsonrpc: '2.0', id: 6 }], session: true }],
      ['no session id', { body: call(7, { name: 'echo' }) }],
      ['another session id', { body: call(7, { name: 'echo' }), session: 'sid-other' }],
      ['an unsupported protocol version', { body: call(7, { name: 'echo' }), session: true, headers: { 'mcp-protocol-version': '1999-01-01' } }],
      ['a 2026-07-28 version header in a 2025 session', { body: call(7, { name: 'echo' }), session: true, headers: { 'mcp-protocol-version': '2026-07-28' } }],
    ]
    for (const [what, opts] of cases) {
      const a = await same('POST', opts).catch((e: unknown) => {
        throw new Error(`${what}: ${(e as Error).message}`)
      })
      if (what === 'a 2026-07-28 version header in a 2025 session') continue // which versions a session takes is the SDK's list
      expect(a.status, what).toBeGreaterThanOrEqual(400)
      expect(a.status, what).toBeLessThan(500)
    }
    const put = await same('PUT', { body: call(8, { name: 'echo' }), session: true })
    expect(put.status).toBe(405)
    expect(put.allow).toBe('GET, POST, DELETE')
    const getNoAccept = await same('GET', { session: true, headers: { accept: 'application/json' } })
    expect(getNoAccept.status).toBe(406)
  })

  it('answers requests the agent server refuses with the same JSON-RPC errors on the stream', async () => {
    const cases: unknown[] = [
      call(20, {}),
      call(21, { name: 7 }),
      call(22, { name: 'echo', arguments: 'not an object' }),
      call(23, { name: 'echo', arguments: [1, 2] }),
      { jsonrpc: '2.0', id: 24, method: 'tools/call' },
      { jsonrpc: '2.0', id: 25, method: 'no/such/method', params: {} },
      { jsonrpc: '2.0', id: 26, method: 'tools/call', params: { name: 'echo', _meta: { progressToken: { bad: true } } } },
    ]
    for (const body of cases) {
      const a = await same('POST', { body, session: true })
      // refused by the transport's own parse (400) or by the agent server on the answer stream
      const error = a.status === 200 ? (messagesOf(a)[0] as { error?: { code: number } }).error : (a.body as { error?: { code: number } }).error
      expect([200, 400], JSON.stringify(body)).toContain(a.status)
      expect(error?.code, JSON.stringify(body)).toBeLessThan(0)
    }
  })

  it('answers well-formed requests alike: one, a batch, notifications only', async () => {
    const one = await same('POST', { body: call(30, { name: 'echo', arguments: { id: 'x' } }), session: true })
    expect(JSON.stringify(one.body)).toContain('{\\"id\\":\\"x\\"}')
    await same('POST', { body: { jsonrpc: '2.0', id: 31, method: 'tools/list' }, session: true, headers: { 'mcp-protocol-version': '2025-06-18' } })
    const batch = await same('POST', {
      body: [call(32, { name: 'echo' }), { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 999 } }, call(33, { name: 'echo' })],
      session: true,
    })
    expect(messagesOf(batch)).toHaveLength(2)
    // a message before the answer (progress): the answer goes on an SSE stream after it, as the SDK's does
    const progress = await same('POST', { body: call(34, { name: 'echo', _meta: { progressToken: 'p1' } }), session: true })
    expect(progress.contentType).toBe('text/event-stream')
    expect(messagesOf(progress).map((m) => (m as { method?: string; id?: number }).method ?? (m as { id?: number }).id)).toEqual(['notifications/progress', 34])
    const notes = await same('POST', { body: { jsonrpc: '2.0', method: 'notifications/roots/list_changed' }, session: true })
    expect(notes.status).toBe(202)
    await same('POST', { body: [], session: true })
  })

  it("opens the session's GET stream alike: one at a time, the server's own messages on it", async () => {
    const open = async (side: Side): Promise<{ status: number; type: string | null; first: string; abort: () => void }> => {
      const ctl = new AbortController()
      const pending = fetch(`${base}/${side}`, { headers: { accept: 'text/event-stream', 'mcp-session-id': `sid-${side}` }, signal: ctl.signal })
      // a second stream while one is open: 409 (the first one's headers come with its first event)
      await new Promise((r) => setTimeout(r, 50))
      const second = await send(side, 'GET', { session: true })
      expect(second.status).toBe(409)
      await servers[side]?.sendToolListChanged()
      const r = await pending
      const reader = (r.body as ReadableStream<Uint8Array>).getReader()
      let first = ''
      while (!first.includes('\n\n')) first += new TextDecoder().decode((await reader.read()).value)
      return { status: r.status, type: r.headers.get('content-type'), first, abort: () => ctl.abort() }
    }
    const sdk = await open('sdk')
    const ours = await open('ours')
    sdk.abort()
    ours.abort()
    expect(ours.status).toBe(200)
    expect({ ...ours, abort: null }).toEqual({ ...sdk, abort: null })
    expect(ours.first).toContain('notifications/tools/list_changed')
  })

  it('ends a session alike: DELETE, then every request is refused', async () => {
    expect((await same('DELETE', { session: 'sid-other' })).status).toBe(404)
    expect((await same('DELETE', { session: true })).status).toBe(200)
    expect((await same('POST', { body: call(40, { name: 'echo' }), session: true })).status).toBe(404)
    expect((await same('GET', { session: true })).status).toBe(404)
  })
})
