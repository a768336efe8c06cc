// A sessionless request (2026-07-28) reaches the SDK's createMcpHandler through Toolgate's view of
// the POST (web-bridge.ts postRequestView), after Toolgate's era shortcut (era-claim.ts), and its
// answer goes out through sendWebResponse, a JSON answer whole with its length. Before, the same
// request went as undici's Request (toWebRequest) after the SDK's isLegacyRequest, and the answer
// was streamed out chunked. Both paths run here side by side over the core's real agent server:
// the path of main (undici's Request, isLegacyRequest, the SDK's handler, the Response copied out
// as the runtime reads it) and McpEndpoint as it is. The same requests go to both, built from
// modern calls of every kind, malformed and refused ones, batches, legacy bodies, an oversized
// body, wrong and repeated content types, missing and repeated protocol-version and method headers,
// header names in other cases, values with trailing whitespace; status, headers and the JSON-RPC
// answer must be the same. Node's `req.headers` keeps only the first of a repeated Content-Type
// where undici's Headers joins them, so a view that read it would answer otherwise here.
// The one difference on purpose: a JSON answer now carries a Content-Length (it was chunked).
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CLIENT_CAPABILITIES_META_KEY, CLIENT_INFO_META_KEY, createMcpHandler, isLegacyRequest, PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server'
import { McpEndpoint } from '../../src/main/core/http/mcp-endpoint'
import { toWebRequest } from '../../src/main/core/http/web-bridge'
import { readJsonBody } from '../../src/main/core/http/body'
import { rpcError } from '../../src/main/core/http/mcp-endpoint'
import { createAgentServer } from '../../src/main/core/agent-server/mcp-server'
import { ApiError } from '../../src/shared/api'
import type { Principal } from '../../src/main/core/http/auth'
import { makeFixture, runServer, WORLD_CONFIG, WORLD_TOOLS } from '../helpers/catalog-fixture'

const ADMIN: Principal = { kind: 'admin' }
const LIMITS = { idleMs: 600_000, maxPerPrincipal: 10_000 }

type Side = 'sdk' | 'ours'
const ports: Partial<Record<Side, number>> = {}
/** whether the last request to main's path was answered by the SDK's handler (not a legacy path of Toolgate's) */
let sdkAnswered = false
const listeners: http.Server[] = []
let closeAll: () => Promise<void> = async () => {}

/** The body as server.ts reads it: invalid JSON is a JSON-RPC parse error, too large a 413. */
async function withBody(req: http.IncomingMessage, res: http.ServerResponse, then: (body: unknown) => Promise<void>): Promise<void> {
  let body: unknown
  try {
    if (req.method === 'POST' || req.method === 'PUT') body = await readJsonBody(req)
  } catch (e) {
    if (e instanceof ApiError && e.code === 'invalid_json') return rpcError(res, 400, -32700, `Parse error: ${e.message}`)
    if (e instanceof ApiError) return rpcError(res, e.status, -32000, e.message)
    throw e
  }
  return then(body)
}

beforeAll(async () => {
  const fx = makeFixture(WORLD_CONFIG)
  await runServer(fx, 'gh', [WORLD_TOOLS.list_repos, WORLD_TOOLS.create_issue, WORLD_TOOLS.search_code])
  const deps = fx.core.agentDeps
  const scope = fx.core.scopeForAgent(undefined)
  const makeServer = (s: typeof scope, principal: string) => createAgentServer(deps, s, principal)
  const ours = new McpEndpoint(
    makeServer,
    () => scope,
    () => LIMITS,
    deps,
  )
  // main's path: the SDK's handler behind undici's Request, after the SDK's own isLegacyRequest;
  // what it calls legacy goes to an endpoint of its own (legacy requests take the same code in both)
  const sdkHandler = createMcpHandler(({ authInfo }) => makeServer(scope, authInfo?.clientId ?? ''), { legacy: 'reject' })
  const sdkLegacy = new McpEndpoint(
    makeServer,
    () => scope,
    () => LIMITS,
    deps,
  )
  const authInfo = { token: '', clientId: 'admin:', scopes: [], extra: { scope } }
  const routes: Record<Side, (req: http.IncomingMessage, res: http.ServerResponse, body: unknown) => Promise<void>> = {
    ours: (req, res, body) => ours.handle(req, res, ADMIN, body),
    sdk: async (req, res, body) => {
      const request = toWebRequest(req, res)
      if (req.headers['mcp-session-id'] === undefined && req.method === 'POST' && !(await isLegacyRequest(request, body))) {
        const response = await sdkHandler.fetch(request, { authInfo, parsedBody: body })
        sdkAnswered = true
        const headers: Record<string, string> = {}
        response.headers.forEach((v, k) => void (headers[k] = v))
        res.writeHead(response.status, headers)
        res.end(Buffer.from(await response.arrayBuffer()))
        return
      }
      return sdkLegacy.handle(req, res, ADMIN, body)
    },
  }
  for (const side of ['sdk', 'ours'] as const) {
    const listener = http.createServer((req, res) => {
      withBody(req, res, (body) => routes[side](req, res, body)).catch((e: unknown) => {
        if (!res.headersSent) res.writeHead(500).end(String(e))
        else res.end()
      })
    })
    await new Promise<void>((r) => listener.listen(0, '127.0.0.1', r))
    ports[side] = (listener.address() as AddressInfo).port
    listeners.push(listener)
  }
  closeAll = async () => {
    await Promise.all([ours.closeAll(), sdkLegacy.closeAll(), sdkHandler.close()])
    for (const l of listeners) {
      l.closeAllConnections()
      await new Promise<void>((r) => l.close(() => r()))
    }
  }
})

afterAll(() => closeAll())

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  /** JSON as parsed, SSE as its events' data, else the text */
  body: unknown
  raw: Buffer
}

/** Headers that say how the bytes travel, not what was answered. */
const FRAMING = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length'])

function send(side: Side, headers: Array<[string, string]>, body: string | Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const outgoing: Record<string, string | string[]> = {}
    for (const [k, v] of headers) {
      const had = outgoing[k]
      outgoing[k] = had === undefined ? v : [...(Array.isArray(had) ? had : [had]), v]
    }
    const req = http.request({ host: '127.0.0.1', port: ports[side], path: '/mcp', method: 'POST', headers: outgoing, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const raw = Buffer.concat(chunks)
        const text = raw.toString('utf8')
        const type = String(res.headers['content-type'] ?? '')
        let parsed: unknown = text
        if (type.startsWith('application/json')) parsed = JSON.parse(text)
        else if (type.startsWith('text/event-stream'))
          parsed = text
            .split('\n\n')
            .filter((e) => e.startsWith('event:') || e.startsWith('data:'))
            .map(
              (e) =>
                JSON.parse(
                  e
                    .split('\n')
                    .find((l) => l.startsWith('data: '))
                    ?.slice(6) ?? 'null',
                ) as unknown,
            )
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: parsed, raw })
      })
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(body)
  })
}

/** What an answer said: status, the headers that are not framing (a session id by presence only), the answer. */
function said(a: Answer): unknown {
  const headers = Object.fromEntries(
    Object.entries(a.headers)
      .filter(([k]) => !FRAMING.has(k))
      .map(([k, v]) => [k, k === 'mcp-session-id' ? 'present' : v]),
  )
  return { status: a.status, headers, body: a.body }
}

const META = { [PROTOCOL_VERSION_META_KEY]: '2026-07-28', [CLIENT_CAPABILITIES_META_KEY]: {}, [CLIENT_INFO_META_KEY]: { name: 'parity', version: '1' } }
const req = (id: unknown, method: string, params: Record<string, unknown> = {}, meta: unknown = META): Record<string, unknown> => ({
  jsonrpc: '2.0',
  id,
  method,
  params: { ...params, _meta: meta },
})
const call = (id: number, name: string, args: unknown): Record<string, unknown> => req(id, 'tools/call', { name, arguments: args })

/** Bodies: what a 2026-07-28 client sends, what it may get wrong, and what is not 2026-07-28 at all. */
/** what the standard headers name of a body: its method and, for a call, its tool */
interface Named {
  method?: string
  name?: string
}
const BODIES: Array<[string, string | Buffer, Named]> = (
  [
    ['tools/list', req(1, 'tools/list')],
    ['call_tool_read of a listed tool', call(2, 'call_tool_read', { name: 'gh:list_repos', args: { owner: 'x' } })],
    [
      'call_tool_read with a progress token',
      req(3, 'tools/call', { name: 'call_tool_read', arguments: { name: 'gh:search_code', args: {} } }, { ...META, progressToken: 'p' }),
    ],
    ['call_tool_write of an unknown tool', call(4, 'call_tool_write', { name: 'gh:nope', args: {} })],
    ['retrieve_tools', call(5, 'retrieve_tools', { query: 'repositories' })],
    ['describe_tool', call(6, 'describe_tool', { name: 'gh:create_issue' })],
    ['an unknown tool', call(7, 'no_such_tool', {})],
    ['a call without a name', req(8, 'tools/call', { arguments: {} })],
    ['server/discover', req(9, 'server/discover')],
    ['prompts/list', req(10, 'prompts/list')],
    ['resources/list', req(11, 'resources/list')],
    ['resources/templates/list', req(12, 'resources/templates/list')],
    ['ping', req(13, 'ping')],
    ['an unknown method', req(14, 'no/such/method')],
    ['a string id', req('s-1', 'tools/list')],
    ['a fractional id', req(1.5, 'tools/list')],
    ['a null id', req(null, 'tools/list')],
    ['a notification with the claim', { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 99, _meta: META } }],
    ['an envelope with bad capabilities', req(15, 'tools/list', {}, { ...META, [CLIENT_CAPABILITIES_META_KEY]: 'all' })],
    ['an envelope without capabilities', req(16, 'tools/list', {}, { [PROTOCOL_VERSION_META_KEY]: '2026-07-28' })],
    ['a claim of an old revision', req(17, 'tools/list', {}, { ...META, [PROTOCOL_VERSION_META_KEY]: '2025-11-25' })],
    ['a claim of an unknown revision', req(18, 'tools/list', {}, { ...META, [PROTOCOL_VERSION_META_KEY]: '2099-01-01' })],
    ['a claim that is a number', req(19, 'tools/list', {}, { ...META, [PROTOCOL_VERSION_META_KEY]: 2026 })],
    ['a request with a member of its own', { ...req(20, 'tools/list'), extra: true }],
    ['params that are a string', { jsonrpc: '2.0', id: 21, method: 'tools/list', params: 'all' }],
    ['a batch of two modern requests', [req(22, 'tools/list'), req(23, 'ping')]],
    ['a batch of legacy requests', [{ jsonrpc: '2.0', id: 24, method: 'tools/list' }]],
    ['an empty batch', []],
    [
      'initialize (2025)',
      { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } },
    ],
    ['initialize with the claim', req(25, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } })],
    ['a claimless request', { jsonrpc: '2.0', id: 26, method: 'tools/list' }],
    ['a response', { jsonrpc: '2.0', id: 27, result: {} }],
    ['null', null],
    ['a number', 42],
    ['an object that is no message', { hello: 'world' }],
  ] as Array<[string, unknown]>
).map(([what, b]) => {
  const m = b as { method?: unknown; params?: { name?: unknown } } | null
  const named: Named = {
    ...(typeof m?.method === 'string' ? { method: m.method } : {}),
    ...(typeof m?.params?.name === 'string' ? { name: m.params.name } : {}),
  }
  return [what, JSON.stringify(b), named] as [string, string, Named]
})
BODIES.push(['not JSON', '{"jsonrpc": "2.0", ', { method: 'tools/list' }])
BODIES.push(['an oversized body', Buffer.alloc(1024 * 1024 + 10, 0x20), { method: 'tools/list' }])

type Headers = Array<[string, string]>
/** The headers a 2026-07-28 client sends with a body: the protocol version, the method and the tool it names. */
const usual = (b: Named): Headers => [
  ['accept', 'application/json, text/event-stream'],
  ['content-type', 'application/json'],
  ['mcp-protocol-version', '2026-07-28'],
  ...(b.method !== undefined ? ([['mcp-method', b.method]] as Headers) : []),
  ...(b.name !== undefined ? ([['mcp-name', b.name]] as Headers) : []),
]
const without = (h: Headers, name: string): Headers => h.filter(([k]) => k.toLowerCase() !== name)
/** Header sets: the right ones, and each way of getting them wrong. */
const HEADERS: Array<[string, (b: Named) => Headers]> = [
  ['the usual headers', usual],
  ['no protocol-version header', (b) => without(usual(b), 'mcp-protocol-version')],
  ['an old protocol-version header', (b) => [...without(usual(b), 'mcp-protocol-version'), ['mcp-protocol-version', '2025-11-25']]],
  ['the protocol-version header twice', (b) => [...usual(b), ['mcp-protocol-version', '2026-07-28']]],
  ['its name in capitals, a value with trailing whitespace', (b) => [...without(usual(b), 'mcp-protocol-version'), ['MCP-Protocol-Version', '2026-07-28 \t']]],
  ['text/plain', (b) => [...without(usual(b), 'content-type'), ['content-type', 'text/plain']]],
  ['no content type', (b) => without(usual(b), 'content-type')],
  ['a content type twice, JSON first', (b) => [...usual(b), ['content-type', 'text/plain']]],
  ['a content type twice, JSON second', (b) => [...without(usual(b), 'content-type'), ['content-type', 'text/plain'], ['Content-Type', 'application/json']]],
  ['JSON in capitals with a charset', (b) => [...without(usual(b), 'content-type'), ['content-type', 'Application/JSON; charset=utf-8']]],
  ['no method header', (b) => without(usual(b), 'mcp-method')],
  [
    'a method header that is not the body’s',
    (b) => [...without(usual(b), 'mcp-method'), ['mcp-method', b.method === 'tools/call' ? 'tools/list' : 'tools/call']],
  ],
  ['the method header twice', (b) => [...usual(b), ...(b.method !== undefined ? ([['Mcp-Method', b.method]] as Headers) : [])]],
  ['no name header', (b) => without(usual(b), 'mcp-name')],
  ['a name header that is not the body’s', (b) => [...without(usual(b), 'mcp-name'), ['mcp-name', 'other_tool']]],
  ['the name header twice', (b) => [...usual(b), ['mcp-name', b.name ?? 'x']]],
  ['no accept header', (b) => without(usual(b), 'accept')],
]

describe('a 2026-07-28 request through the view answers as through undici’s Request', () => {
  it('gives the same status, headers and answer for every request, refused ones too', async () => {
    const statuses = new Map<number, number>()
    let answered = 0
    let viaHandler = 0
    for (const [bodyWhat, body, named] of BODIES) {
      for (const [headersWhat, headersOf] of HEADERS) {
        const hs = headersOf(named)
        sdkAnswered = false
        const sdk = await send('sdk', hs, body)
        const ours = await send('ours', hs, body)
        const what = `${bodyWhat}, ${headersWhat}`
        expect(said(ours), what).toEqual(said(sdk))
        // the one difference: a JSON answer of the SDK's handler goes with its length, not chunked
        if (sdkAnswered && String(ours.headers['content-type']).startsWith('application/json')) {
          viaHandler++
          expect(ours.headers['content-length'], what).toBe(String(ours.raw.length))
          expect(ours.headers['transfer-encoding'], what).toBeUndefined()
        }
        statuses.set(sdk.status, (statuses.get(sdk.status) ?? 0) + 1)
        if (sdk.status === 200 && typeof sdk.body === 'object' && sdk.body !== null && 'result' in sdk.body) answered++
      }
    }
    // it looked at answers of every kind: results, 202s, refusals by the SDK's ladder and by Toolgate
    expect(answered).toBeGreaterThan(50)
    expect(viaHandler).toBeGreaterThan(200)
    for (const status of [200, 202, 400, 413, 415]) expect(statuses.get(status) ?? 0, `answers with ${status}`).toBeGreaterThan(0)
  })
})
