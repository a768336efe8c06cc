// The operator commands' view of Toolgate: the live owner's control API over HTTP when one
// owns the data dir, else an embedded core started just for this command.
import type { ActionResult, AppInfo, SearchArgs, ServerAction, ServerInfo, StatusInfo, ToolAction, ToolInfo } from '../../shared/api'
import { ApiError } from '../../shared/api'
import { loadConfigFile } from '../core/config/load'
import { instanceKey, readLiveInstance, type Instance } from '../core/state/lock'
import { resolveConfigPath, resolveDataDir } from '../core/paths'
import { startCore, type Core } from '../core/core'
import { createLogger } from '../core/log'

export interface Operator {
  servers(): Promise<{ servers: ServerInfo[] }>
  tools(server: string): Promise<{ tools: ToolInfo[] }>
  serverAction(server: string, action: ServerAction): Promise<ActionResult>
  toolAction(server: string, tool: string, action: ToolAction): Promise<ActionResult>
  approveAll(server: string): Promise<ActionResult>
  search(args: SearchArgs): Promise<string>
  status(): Promise<StatusInfo>
  info(): Promise<AppInfo>
  createAgentToken(agent: string): Promise<string>
  close(): Promise<void>
}

export interface Where {
  config?: string
  dataDir?: string
}

function httpOperator(inst: Instance, key: string): Operator {
  const base = inst.url as string
  const call = async (method: 'GET' | 'POST', p: string, raw = false): Promise<unknown> => {
    let res: Response
    try {
      res = await fetch(base + p, { method, headers: { authorization: `Bearer ${key}` } })
    } catch (e) {
      throw new ApiError('unreachable', `the running Toolgate (pid ${inst.pid}) at ${base} did not answer: ${(e as Error).message}`, 503)
    }
    const text = await res.text()
    if (!res.ok) {
      let msg = text
      let code = 'http_error'
      try {
        const body = JSON.parse(text) as { error?: { code?: string; message?: string } }
        msg = body.error?.message ?? text
        code = body.error?.code ?? code
      } catch {
        // not JSON
      }
      throw new ApiError(code, msg, res.status)
    }
    return raw ? text : JSON.parse(text)
  }
  const enc = encodeURIComponent
  return {
    servers: () => call('GET', '/api/v1/servers') as Promise<{ servers: ServerInfo[] }>,
    tools: (s) => call('GET', `/api/v1/servers/${enc(s)}/tools`) as Promise<{ tools: ToolInfo[] }>,
    serverAction: (s, a) => call('POST', `/api/v1/servers/${enc(s)}/${a}`) as Promise<ActionResult>,
    toolAction: (s, t, a) => call('POST', `/api/v1/servers/${enc(s)}/tools/${enc(t)}/${a}`) as Promise<ActionResult>,
    approveAll: (s) => call('POST', `/api/v1/servers/${enc(s)}/tools/approve-all`) as Promise<ActionResult>,
    search: (a) => {
      const q = new URLSearchParams({ q: a.query })
      if (a.limit !== undefined) q.set('limit', String(a.limit))
      if (a.include_disabled !== undefined) q.set('include_disabled', String(a.include_disabled))
      return call('GET', `/api/v1/search?${q}`, true) as Promise<string>
    },
    status: () => call('GET', '/api/v1/status') as Promise<StatusInfo>,
    info: () => call('GET', '/api/v1/info') as Promise<AppInfo>,
    createAgentToken: async (agent) => ((await call('POST', `/api/v1/agents/${enc(agent)}/token`)) as { token: string }).token,
    close: async () => {},
  }
}

function embeddedOperator(core: Core): Operator {
  return {
    servers: () => core.api.servers(),
    tools: (s) => core.api.tools(s),
    serverAction: (s, a) => core.api.serverAction(s, a),
    toolAction: (s, t, a) => core.api.toolAction(s, t, a),
    approveAll: (s) => core.api.approveAll(s),
    search: (a) => core.api.search(a),
    status: () => core.api.status(),
    info: () => core.api.info(),
    createAgentToken: (agent) => core.createAgentToken(agent),
    close: () => core.stop(),
  }
}

/**
 * Reaches Toolgate for one operator command. `needTools` waits until the upstreams have listed
 * their tools when no live instance exists (so tool names can be checked).
 */
export async function openOperator(where: Where, needTools: boolean): Promise<Operator> {
  const dataDir = resolveDataDir(where.dataDir)
  const configPath = resolveConfigPath(dataDir, where.config)
  const { config } = loadConfigFile(configPath)
  const live = readLiveInstance(dataDir)
  if (live?.url) {
    const key = instanceKey(live, dataDir, config.api_key)
    if (!key)
      throw new ApiError(
        'no_key',
        `cannot find the API key of the running Toolgate (looked at TOOLGATE_API_KEY, api_key in ${configPath}, ${dataDir}/api_key)`,
        401,
      )
    return httpOperator(live, key)
  }
  const core = await startCore({
    configPath,
    dataDir,
    serveHttp: false,
    kind: 'stdio',
    logger: createLogger({ dataDir, stderr: false }),
  })
  if (needTools) await core.settled(30000)
  return embeddedOperator(core)
}
