// MCP over Streamable HTTP at /mcp: stateful sessions, one agent server per session, each bound
// to the principal (admin key or agent token) that opened it.
import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js'
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import type { Principal } from './auth'
import type { Scope } from '../agent/scope'

interface Session {
  transport: StreamableHTTPServerTransport
  server: Server
  principal: string
}

const principalKey = (p: Principal): string => (p.kind === 'admin' ? `admin:${p.asAgent ?? ''}` : `agent:${p.agent}`)

function rpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }))
}

export class McpEndpoint {
  private readonly sessions = new Map<string, Session>()

  constructor(
    private readonly makeServer: (scope: Scope) => Server,
    private readonly scopeFor: (p: Principal) => Scope | null,
  ) {}

  async handle(req: IncomingMessage, res: ServerResponse, principal: Principal, body: unknown): Promise<void> {
    const sid = req.headers['mcp-session-id']
    const sessionId = typeof sid === 'string' ? sid : undefined
    if (sessionId) {
      const session = this.sessions.get(sessionId)
      if (!session) return rpcError(res, 404, -32001, 'unknown or expired MCP session; initialize a new session')
      if (session.principal !== principalKey(principal)) return rpcError(res, 403, -32003, 'this session belongs to another credential')
      await session.transport.handleRequest(req, res, body)
      return
    }
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return rpcError(res, 400, -32000, 'no mcp-session-id header: send an initialize request first')
    }
    const scope = this.scopeFor(principal)
    if (!scope) return rpcError(res, 403, -32003, 'this agent is no longer configured; ask the operator')
    const server = this.makeServer(scope)
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // Plain JSON answers instead of an SSE stream per POST: Toolgate sends nothing to the agent
      // while a request runs (no progress relay, no server-to-client requests), and JSON framing
      // costs the proxy and the stdio bridge much less CPU per request.
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        this.sessions.set(id, { transport, server, principal: principalKey(principal) })
      },
    })
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId)
    }
    await server.connect(transport)
    await transport.handleRequest(req, res, body)
  }

  async closeAll(): Promise<void> {
    const all = [...this.sessions.values()]
    this.sessions.clear()
    await Promise.allSettled(all.map((s) => s.server.close()))
  }
}
