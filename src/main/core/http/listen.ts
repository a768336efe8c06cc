// The loopback listener of a started core: /mcp and /mcp/direct (each request served with the
// scope its agent has now), the control API and the web UI. A listen address that is not loopback
// is warned about; a taken one falls back to an ephemeral loopback port when asked (an embedded
// stdio owner: instance.json records where it listens).
import { isLoopback, parseListen } from '../paths'
import type { Scope } from '../access/scope'
import { createAgentServer, type AgentDeps } from '../agent-server/mcp-server'
import { directListViews } from '../agent-server/direct-view'
import type { ListChangedHub } from '../agent-server/list-changed'
import type { Principal } from './auth'
import { McpEndpoint, type SessionLimits } from './mcp-endpoint'
import { startHttpServer, type HttpOptions, type RunningHttp } from './server'

export interface ListenOptions extends Omit<HttpOptions, 'host' | 'port' | 'mcp' | 'mcpDirect'> {
  /** host:port */
  listen: string
  /** a taken address: listen on an ephemeral loopback port instead of failing */
  fallbackPort: boolean
  agentDeps: AgentDeps
  listChanged: ListChangedHub
  /** the live scope of an agent of the config (undefined: the full scope); throws for an agent no longer there */
  scopeForAgent(name: string | undefined): Scope
  sessionLimits(): SessionLimits
}

export async function listenHttp(o: ListenOptions): Promise<RunningHttp> {
  const { listen, fallbackPort, agentDeps, listChanged, scopeForAgent, sessionLimits, ...rest } = o
  const { host, port } = parseListen(listen)
  if (!isLoopback(host)) {
    o.logger.warn(
      `LISTENING ON ${host}, NOT LOOPBACK: anyone who can reach this address and has the API key can use every tool. Bind 127.0.0.1 unless you really mean it.`,
    )
  }
  const scopeFor = (p: Principal): Scope | null => {
    try {
      if (p.kind === 'agent') return scopeForAgent(p.agent)
      return scopeForAgent(p.asAgent)
    } catch {
      return null
    }
  }
  const mcp = new McpEndpoint((scope, principal) => createAgentServer(agentDeps, scope, principal), scopeFor, sessionLimits, agentDeps, listChanged)
  // the direct view: the same endpoint, its servers listing every callable tool too
  const mcpDirect = new McpEndpoint(
    (scope, principal) => createAgentServer(agentDeps, scope, principal, 'direct'),
    scopeFor,
    sessionLimits,
    agentDeps,
    listChanged,
    (scope) => directListViews(agentDeps.catalog, scope),
  )
  const httpOptions: HttpOptions = { ...rest, host, port, mcp, mcpDirect }
  let http: RunningHttp
  try {
    http = await startHttpServer(httpOptions)
  } catch (e) {
    if (!fallbackPort || (e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e
    o.logger.info(`${listen} is in use; listening on an ephemeral loopback port instead (recorded in instance.json; \`toolgate open\` finds it)`)
    http = await startHttpServer({ ...httpOptions, host: '127.0.0.1', port: 0 })
  }
  o.logger.info({ url: http.url }, 'listening')
  return http
}
