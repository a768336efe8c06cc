// MCP over Streamable HTTP at /mcp, both protocol eras on one endpoint (SDK v2):
// - 2025 clients (initialize): stateful sessions (on session-transport.ts), one agent server per session, each bound to the
//   principal (admin key or agent token) that opened it. Sessions are live:
//   every request re-checks the principal's agent, idle sessions expire (limits.session_idle_s) and
//   each principal may hold at most limits.max_sessions_per_principal.
// - 2026-07-28 clients (server/discover, the per-request envelope): stateless; every request is
//   served by a fresh agent server built for the scope of the request's credential, so what an
//   agent sees depends on its credential, never on a connection. Each credential may hold at most
//   limits.max_sessions_per_principal open subscriptions/listen streams.
// The SDK's own classification (isLegacyRequest) decides the era of a request without a session;
// a request that carries the 2026-07-28 envelope claim is one it never calls legacy (era-claim.ts).
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createMcpHandler, isInitializeRequest, isLegacyRequest, type AuthInfo, type McpHttpHandler, type Server } from '@modelcontextprotocol/server'
import { claimsModernEra } from './era-claim'
import type { Principal } from './auth'
import type { Scope } from '../access/scope'
import { postRequestView, sendWebResponse, toWebRequest } from './web-bridge'
import { SessionHttpTransport } from './session-transport'
import { ListenSubscriptions, mayHear } from '../agent-server/resource-subscribe'
import type { ResourceDeps } from '../agent-server/resources'
import { ScopedEventBus } from './scoped-bus'
import type { ListWatch } from '../agent-server/list-changed'
import type { ListChangedHub } from '../agent-server/list-changed'
import { SessionCancels } from './session-cancel'

interface Session {
  transport: SessionHttpTransport
  /** closes the answer stream of a request the client cancelled (session-cancel.ts) */
  cancels: SessionCancels
  server: Server
  scope: Scope
  principal: string
  lastSeen: number
}

export interface SessionLimits {
  idleMs: number
  maxPerPrincipal: number
}

/** One credential: the admin key (per agent it acts as), or one agent token. */
const principalKey = (p: Principal): string => (p.kind === 'admin' ? `admin:${p.asAgent ?? ''}` : `agent:${p.agent}:${p.tokenId}`)

/** What a 2026-07-28 request's factory gets: the scope of the credential it came with. */
interface RequestAuth extends AuthInfo {
  extra: { scope: Scope }
}

/**
 * The client's connection closed before the answer was written (its process died, or it dropped
 * the stream without notifications/cancelled): nobody can receive the answer any more (no event
 * store, so no resumption), so the requests of that POST are cancelled as if the client had sent
 * notifications/cancelled. A call waiting for the user's OK withdraws its question; an upstream
 * call in flight is cancelled upstream. (2026-07-28 requests get the same from the SDK: the
 * request's abort signal ends the exchange.)
 */
function cancelOnDisconnect(transport: SessionHttpTransport, req: IncomingMessage, res: ServerResponse, body: unknown): void {
  if (req.method !== 'POST') return
  const ids = (Array.isArray(body) ? body : [body]).filter(isPlainRequest).map((m) => m.id)
  if (ids.length === 0) return
  res.once('close', () => {
    if (res.writableFinished) return
    for (const requestId of ids)
      transport.onmessage?.({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId, reason: 'the client closed the connection before the answer' },
      })
  })
}

/** A 2026-07-28 subscriptions/listen request (the only one that subscribes to the event bus). */
function isListen(m: unknown): boolean {
  return typeof m === 'object' && m !== null && (m as { method?: unknown }).method === 'subscriptions/listen'
}

/** A JSON-RPC request other than initialize (a cheap look: the SDK validates the message itself). */
function isPlainRequest(m: unknown): m is { id: string | number; method: string } {
  const r = m as { method?: unknown; id?: unknown } | null
  return (
    typeof r === 'object' && r !== null && typeof r.method === 'string' && r.method !== 'initialize' && (typeof r.id === 'string' || typeof r.id === 'number')
  )
}

export function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }))
}

export class McpEndpoint {
  private readonly sessions = new Map<string, Session>()
  private sweeper: NodeJS.Timeout | null = null
  /** 2026-07-28: stateless, one agent server per request; 2025 traffic never reaches it */
  private readonly modern: McpHttpHandler
  /** 2026-07-28 resource subscriptions (subscriptions/listen), through the resource gate */
  private readonly listens: ListenSubscriptions | null
  /** 2026-07-28 listen streams, each tagged with its credential (list_changed per agent view) */
  private readonly bus: ScopedEventBus
  /** open 2026-07-28 listen streams per credential (principal key): at most limits.max_sessions_per_principal */
  private readonly listening = new Map<string, number>()

  constructor(
    /** an agent server for this scope, answering this credential (principal key) */
    private readonly makeServer: (scope: Scope, principal: string) => Server,
    private readonly scopeFor: (p: Principal) => Scope | null,
    private readonly limits: () => SessionLimits,
    resources?: ResourceDeps,
    listChanged?: ListChangedHub,
    /** what an agent of this endpoint lists, when not the default (the direct view): list_changed compares it */
    views?: (scope: Scope) => ListWatch['views'],
  ) {
    this.bus = new ScopedEventBus(listChanged, resources ? (scope, uri) => mayHear(resources, scope, uri) : undefined, views)
    this.modern = createMcpHandler(({ authInfo }) => makeServer((authInfo as RequestAuth).extra.scope, (authInfo as RequestAuth).clientId), {
      legacy: 'reject',
      bus: this.bus,
    })
    this.listens = resources ? new ListenSubscriptions(resources, (uri) => this.modern.notify.resourceUpdated(uri)) : null
  }

  /** Open sessions (all, or of one principal). */
  count(p?: Principal): number {
    if (!p) return this.sessions.size
    const key = principalKey(p)
    return [...this.sessions.values()].filter((s) => s.principal === key).length
  }

  async handle(req: IncomingMessage, res: ServerResponse, principal: Principal, body: unknown): Promise<void> {
    const sid = req.headers['mcp-session-id']
    const sessionId = typeof sid === 'string' ? sid : undefined
    if (sessionId) return this.inSession(req, res, principal, body, sessionId)
    // a POST with a parsed body, to a plain path, gets the light view of itself (web-bridge.ts);
    // anything else undici's Request (an empty body, a query, another method)
    const viewed = req.method === 'POST' && body !== undefined && (req.url === '/mcp' || req.url === '/mcp/direct')
    const request = viewed ? postRequestView(req, res) : toWebRequest(req, res)
    if (req.method === 'POST' && (claimsModernEra(body) || !(await isLegacyRequest(request, body)))) return this.stateless(request, res, principal, body)
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return rpcError(
        res,
        400,
        -32000,
        'no mcp-session-id header: send an initialize request first (or, with protocol 2026-07-28, the per-request _meta envelope)',
      )
    }
    return this.open(req, res, principal, body)
  }

  /** A 2026-07-28 request: served by a fresh agent server for the scope of this credential. */
  private async stateless(request: Request, res: ServerResponse, principal: Principal, body: unknown): Promise<void> {
    const scope = this.scopeFor(principal)
    if (!scope || !scope.active()) return rpcError(res, 403, -32003, 'this agent is no longer configured; ask the operator')
    const authInfo: RequestAuth = { token: '', clientId: principalKey(principal), scopes: [], extra: { scope } }
    if (isListen(body) && !this.holdListen(authInfo.clientId, res)) {
      const max = this.limits().maxPerPrincipal
      return rpcError(
        res,
        429,
        -32000,
        `too many open subscriptions/listen streams for this credential (${max}, limits.max_sessions_per_principal in the Toolgate config). Close a stream you no longer use, or listen to more URIs on one.`,
      )
    }
    const listen = this.listenThrough(scope, body)
    if (listen) res.once('close', listen.release)
    const parsedBody = listen ? listen.body : body
    const serve = (): Promise<Response> => this.modern.fetch(request, { authInfo, parsedBody })
    // only a subscriptions/listen request opens a stream on the bus (the SDK's listen router): it alone
    // runs as its credential (an AsyncLocalStorage, which on Node 20 hooks every promise while in use)
    const response = isListen(body) ? await this.bus.within({ principal: authInfo.clientId, scope }, serve) : await serve()
    await sendWebResponse(res, response)
  }

  /**
   * Counts one more open listen stream of `key` until `res` closes; false when it holds
   * limits.max_sessions_per_principal already. Each stream holds its own subscriptions and bus
   * listener (one naming 27,000 URIs: ≈ 0.3 s of the main thread and ≈ 5 MB while open), and
   * 2025 sessions had a limit per credential where these had none.
   */
  private holdListen(key: string, res: ServerResponse): boolean {
    const open = this.listening.get(key) ?? 0
    if (open >= this.limits().maxPerPrincipal) return false
    this.listening.set(key, open + 1)
    res.once('close', () => {
      const now = (this.listening.get(key) ?? 1) - 1
      if (now > 0) this.listening.set(key, now)
      else this.listening.delete(key)
    })
    return true
  }

  /**
   * A subscriptions/listen naming resources: only the URIs this agent may read stay in it, and
   * the servers are subscribed while the stream is open (released when the response closes).
   */
  private listenThrough(scope: Scope, body: unknown): { body: unknown; release: () => void } | null {
    const m = body as { method?: unknown; params?: { notifications?: { resourceSubscriptions?: unknown } } } | null
    const uris = m?.method === 'subscriptions/listen' ? m.params?.notifications?.resourceSubscriptions : undefined
    if (!this.listens || !Array.isArray(uris)) return null
    const { allowed, release } = this.listens.open(scope, uris)
    const params = m?.params as Record<string, unknown>
    const notifications = params.notifications as Record<string, unknown>
    return { body: { ...m, params: { ...params, notifications: { ...notifications, resourceSubscriptions: allowed } } }, release }
  }

  private async inSession(req: IncomingMessage, res: ServerResponse, principal: Principal, body: unknown, sessionId: string): Promise<void> {
    const session = this.sessions.get(sessionId)
    if (session && Date.now() - session.lastSeen > this.limits().idleMs) this.close(sessionId)
    const live = this.sessions.get(sessionId)
    if (!live) return rpcError(res, 404, -32001, 'unknown or expired MCP session; initialize a new session')
    if (live.principal !== principalKey(principal)) return rpcError(res, 403, -32003, 'this session belongs to another credential')
    if (!live.scope.active()) {
      this.close(sessionId)
      return rpcError(res, 403, -32003, `agent "${live.scope.agent}" is no longer configured in Toolgate; this session is closed. Ask the operator.`)
    }
    live.lastSeen = Date.now()
    cancelOnDisconnect(live.transport, req, res, body)
    live.cancels.track(res, body)
    await live.transport.handle(req, res, body)
    live.cancels.afterPost(body)
  }

  /** A 2025 initialize: a new session for this principal. */
  private async open(req: IncomingMessage, res: ServerResponse, principal: Principal, body: unknown): Promise<void> {
    const scope = this.scopeFor(principal)
    if (!scope) return rpcError(res, 403, -32003, 'this agent is no longer configured; ask the operator')
    this.sweep()
    const { maxPerPrincipal, idleMs } = this.limits()
    if (this.count(principal) >= maxPerPrincipal) {
      return rpcError(
        res,
        429,
        -32000,
        `too many open MCP sessions for this credential (${maxPerPrincipal}, limits.max_sessions_per_principal in the Toolgate config). ` +
          `Close sessions you no longer use (HTTP DELETE /mcp with their mcp-session-id) or wait: idle sessions expire after ${Math.round(idleMs / 1000)} s (limits.session_idle_s).`,
      )
    }
    const key = principalKey(principal)
    const server = this.makeServer(scope, key)
    // Every answer is an SSE stream (as the SDK's own session transport answers): a call made with a
    // progress token gets the upstream's notifications/progress on that stream before its result.
    const transport: SessionHttpTransport = new SessionHttpTransport(
      () => randomUUID(),
      (id) => {
        this.sessions.set(id, { transport, cancels: new SessionCancels(transport), server, scope, principal: key, lastSeen: Date.now() })
        this.startSweeper()
      },
    )
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId)
    }
    await server.connect(transport)
    cancelOnDisconnect(transport, req, res, body)
    await transport.handle(req, res, body)
  }

  private close(id: string): void {
    const s = this.sessions.get(id)
    if (!s) return
    this.sessions.delete(id)
    void s.server.close().catch(() => {})
  }

  /** Closes idle sessions and sessions of agents that left the config. */
  sweep(): void {
    const idleMs = this.limits().idleMs
    const now = Date.now()
    for (const [id, s] of this.sessions) if (now - s.lastSeen > idleMs || !s.scope.active()) this.close(id)
    if (this.sessions.size === 0 && this.sweeper) {
      clearInterval(this.sweeper)
      this.sweeper = null
    }
  }

  private startSweeper(): void {
    if (this.sweeper) return
    const every = Math.max(250, Math.min(60_000, this.limits().idleMs / 2))
    this.sweeper = setInterval(() => this.sweep(), every)
    this.sweeper.unref()
  }

  async closeAll(): Promise<void> {
    if (this.sweeper) clearInterval(this.sweeper)
    this.sweeper = null
    const all = [...this.sessions.values()]
    this.sessions.clear()
    await Promise.allSettled([...all.map((s) => s.server.close()), this.modern.close()])
  }
}
