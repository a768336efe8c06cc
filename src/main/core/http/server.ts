// One loopback HTTP listener for an owner of the data dir: MCP at /mcp, the control API at
// /api/v1/*, and the web UI at /. Host/Origin checked on every request; /mcp and /api need a key.
import fs from 'node:fs'
import http, { type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { ApiError, type Api } from '../../../shared/api'
import { CSP } from '../../../shared/csp'
import type { Logger } from '../log'
import { allowedHostsFor, authenticate, hostAllowed, type Principal } from './auth'
import { readJsonBody } from './body'
import { handleControl, sendError, sendJson } from './control-routes'
import { rpcError, type McpEndpoint } from './mcp-endpoint'
import type { DecisionOrigin } from '../../../shared/activity'
import { CALLBACK_PATH } from '../oauth/client-info'
import { sendCallbackPage } from '../oauth/callback-page'
import type { CallbackAnswer } from '../oauth/service'

export interface HttpOptions {
  host: string
  port: number
  api: Api
  /** the Api recording decisions as made from `origin` */
  apiFor?(origin: DecisionOrigin): Api
  mcp: McpEndpoint
  /** POST /mcp/direct: the direct view (every callable tool as its own tool) */
  mcpDirect?: McpEndpoint
  apiKeys: () => string[]
  /** the agent (and token id) a presented token belongs to */
  agentToken: (presented: string) => { agent: string; tokenId: string } | null
  staticDir: string | null
  createAgentToken(agent: string): Promise<string>
  forgetLearned(): Promise<number>
  /** GET /oauth/callback: the browser back from an authorization server (no API key; the OAuth state is the credential) */
  oauthCallback?: (params: URLSearchParams) => Promise<CallbackAnswer>
  logger: Logger
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
}

function serveStatic(dir: string | null, url: URL, res: ServerResponse): void {
  if (!dir || !fs.existsSync(path.join(dir, 'index.html'))) {
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' })
    res.end('Toolgate is running. The web UI is not built; run `npm run build` and restart.\n')
    return
  }
  let decoded: string
  try {
    decoded = decodeURIComponent(url.pathname)
  } catch {
    return sendJson(res, 400, { error: { code: 'bad_path', message: 'malformed percent-encoding in the path' } })
  }
  const rel = path.normalize(decoded).replace(/^([/\\])+/, '')
  let file = path.join(dir, rel)
  if (!file.startsWith(dir) || !fs.existsSync(file) || fs.statSync(file).isDirectory()) file = path.join(dir, 'index.html')
  res.writeHead(200, {
    'content-type': TYPES[path.extname(file)] ?? 'application/octet-stream',
    'content-security-policy': CSP,
    'x-content-type-options': 'nosniff',
    'cache-control': file.endsWith('index.html') ? 'no-store' : 'public, max-age=3600',
  })
  fs.createReadStream(file).pipe(res)
}

/**
 * Where a control-API request says it comes from: `X-Toolgate-Client: ui` (the web UI) or `cli`.
 * Only a label on the activity record, after authentication: it grants nothing.
 */
export function originOf(req: IncomingMessage): DecisionOrigin {
  const c = req.headers['x-toolgate-client']
  return { by: 'user', via: c === 'ui' ? 'ui' : c === 'cli' ? 'cli' : 'api' }
}

/**
 * Whether a request declares a body (a length other than 0, or chunked). The listener has no
 * request timeout (long calls, event streams), so a body it answers without reading (a 401, the
 * wrong Host, a static file, one over the limit) was read and thrown away by Node for as long as
 * it came: anyone able to connect, without a key, held connections open for good by trickling a
 * declared 100 MB body, and enough of them exhaust the process's file descriptors. Such an answer
 * closes the connection instead.
 */
function declaresBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length']
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0')
}

export interface RunningHttp {
  url: string
  port: number
  close(): Promise<void>
}

export async function startHttpServer(o: HttpOptions): Promise<RunningHttp> {
  let allowed = new Set<string>()
  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    // a body is read only once the request is authenticated: answered without reading it, the
    // connection is closed (see declaresBody)
    const unread = declaresBody(req)
    if (unread) res.setHeader('connection', 'close')
    // the target every MCP client posts to, `/mcp` as it is, is its own path: no URL parse for it
    // (one a call); any other target is parsed, and read through `parsed()`
    let url: URL | undefined
    const parsed = (): URL => (url ??= new URL(req.url ?? '/', 'http://localhost'))
    const pathname = req.url === '/mcp' ? '/mcp' : parsed().pathname
    if (!hostAllowed(req, allowed)) {
      return sendJson(res, 403, { error: { code: 'forbidden_host', message: 'Host or Origin header is not this loopback listener (DNS-rebinding defense)' } })
    }
    // Not the UI's HTML for discovery documents: Toolgate has no OAuth metadata to offer, and an
    // MCP client probing /.well-known/oauth-protected-resource must see a plain 404.
    if (pathname === '/.well-known' || pathname.startsWith('/.well-known/')) {
      return sendJson(res, 404, { error: { code: 'not_found', message: `${pathname}: Toolgate serves no /.well-known documents` } })
    }
    if (pathname === CALLBACK_PATH && o.oauthCallback) {
      if (req.method !== 'GET') return sendJson(res, 405, { error: { code: 'method_not_allowed', message: 'the sign-in callback is GET only' } })
      return sendCallbackPage(res, await o.oauthCallback(parsed().searchParams))
    }
    const isDirect = pathname === '/mcp/direct' && o.mcpDirect !== undefined
    const isMcp = pathname === '/mcp' || isDirect
    const isApi = pathname === '/api/v1' || pathname.startsWith('/api/v1/')
    if (!isMcp && !isApi) {
      if (req.method !== 'GET' && req.method !== 'HEAD')
        return sendJson(res, 405, { error: { code: 'method_not_allowed', message: 'only GET is served here' } })
      return serveStatic(o.staticDir, parsed(), res)
    }
    const principal: Principal | null = authenticate(req, o.apiKeys(), o.agentToken)
    if (!principal) {
      // MCP authorization spec: a 401 names the scheme (no resource metadata: none is served)
      res.setHeader('www-authenticate', 'Bearer realm="toolgate"')
      return sendJson(res, 401, {
        error: {
          code: 'unauthorized',
          message:
            'missing or wrong API key or agent token: send "Authorization: Bearer <key>" or "X-API-Key: <key>" (the key is in <data-dir>/api_key). An agent token stops working once revoked or once its agent leaves the config.',
        },
      })
    }
    let body: unknown
    try {
      if (req.method === 'POST' || req.method === 'PUT') {
        body = await readJsonBody(req)
        // read whole: the connection may serve the next request
        if (unread) res.removeHeader('connection')
      }
    } catch (e) {
      // MCP speaks JSON-RPC even about a body that is not JSON (as stdio does): -32700, id null
      if (isMcp && e instanceof ApiError && e.code === 'invalid_json') return rpcError(res, 400, -32700, `Parse error: ${e.message}`)
      throw e
    }
    if (isMcp) return (isDirect && o.mcpDirect ? o.mcpDirect : o.mcp).handle(req, res, principal, body)
    if (principal.kind !== 'admin') throw new ApiError('forbidden', 'agent tokens may use /mcp only; the control API needs the admin key', 403)
    return handleControl(o.apiFor ? o.apiFor(originOf(req)) : o.api, o, req, res, parsed(), body)
  }
  const server = http.createServer((req, res) => {
    handler(req, res).catch((err: unknown) => {
      if (!(err instanceof ApiError)) o.logger.error({ err: String((err as Error)?.stack ?? err) }, 'HTTP request failed')
      if (!res.headersSent) sendError(res, err)
      else res.end()
    })
  })
  server.requestTimeout = 0
  server.headersTimeout = 30_000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(o.port, o.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const port = (server.address() as AddressInfo).port
  allowed = allowedHostsFor(o.host.includes(':') ? `[${o.host}]` : o.host, port)
  const hostForUrl = o.host === '0.0.0.0' || o.host === '::' ? '127.0.0.1' : o.host.includes(':') ? `[${o.host}]` : o.host
  return {
    url: `http://${hostForUrl}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
