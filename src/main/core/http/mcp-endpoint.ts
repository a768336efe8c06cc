// MCP over Streamable HTTP at /mcp: stateful sessions, one agent server per session, each bound
// to the principal (admin key or agent token) that opened it. Sessions are live (issue 11,
// point 5): every request re-checks the principal's agent, idle sessions expire
// (limits.session_idle_s) and each principal may hold at most limits.max_sessions_per_principal.
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isInitializeRequest, isJSONRPCRequest } from '@modelcontextprotocol/sdk/types.js'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Principal } from './auth'
import type { Scope } from '../agent/scope'

interface Session {
  transport: StreamableHTTPServerTransport
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

/**
 * The client's connection closed before the answer was written (its process died, or it dropped
 * the stream without notifications/cancelled): nobody can receive the answer any more (no event
 * store, so no resumption), so the requests of that POST are cancelled as if the client had sent
 * notifications/cancelled. A call waiting for the user's OK withdraws its question; an upstream
 * call in flight is cancelled upstream.
 */
function cancelOnDisconnect(transport: StreamableHTTPServerTransport, req: IncomingMessage, res: ServerResponse, body: unknown): void {
  if (req.method !== 'POST') return
  const ids = (Array.isArray(body) ? body : [body]).filter((m) => isJSONRPCRequest(m) && !isInitializeRequest(m)).map((m) => (m as { id: string | number }).id)
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

function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }))
}

export class McpEndpoint {
  private readonly sessions = new Map<string, Session>()
  private sweeper: NodeJS.Timeout | null = null

  constructor(
    private readonly makeServer: (scope: Scope) => Server,
    private readonly scopeFor: (p: Principal) => Scope | null,
    private readonly limits: () => SessionLimits,
  ) {}

  /** Open sessions (all, or of one principal). */
  count(p?: Principal): number {
    if (!p) return this.sessions.size
    const key = principalKey(p)
    return [...this.sessions.values()].filter((s) => s.principal === key).length
  }

  async handle(req: IncomingMessage, res: ServerResponse, principal: Principal, body: unknown): Promise<void> {
    const sid = req.headers['mcp-session-id']
    const sessionId = typeof sid === 'string' ? sid : undefined
    if (sessionId) {
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
      await live.transport.handleRequest(req, res, body)
      return
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return rpcError(res, 400, -32000, 'no mcp-session-id header: send an initialize request first')
    }
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
    const server = this.makeServer(scope)
    const key = principalKey(principal)
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // Every answer is an SSE stream (the SDK's default), never `enableJsonResponse: true`:
      // - a call made with a progress token gets the upstream's notifications/progress on that
      //   stream before its result (JSON mode drops everything but the result);
      // - SDK 1.32.2 (the latest) leaks in JSON mode: WebStandardStreamableHTTPServerTransport.send()
      //   resolves the JSON answer but never deletes the request's `_streamMapping` entry (only the
      //   SSE path calls `cleanup()`), so a long-lived session grew by one entry per request.
      // Measured: same server CPU per request either way; test/integration/protocol-passthrough.
      onsessioninitialized: (id) => {
        this.sessions.set(id, { transport, server, scope, principal: key, lastSeen: Date.now() })
        this.startSweeper()
      },
    })
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId)
    }
    await server.connect(transport)
    await transport.handleRequest(req, res, body)
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
    await Promise.allSettled(all.map((s) => s.server.close()))
  }
}
