// `toolgate stdio`: MCP over stdin/stdout for Claude Desktop, Cursor and friends. Bridges to the
// live owner of the data dir when there is one (one shared state), else runs the core embedded
// and becomes the owner. A bridge whose owner goes away takes over: it bridges to whichever
// process owns the data dir next, or becomes the owner itself (and relays to its own listener).
// Nothing but JSON-RPC is ever written to stdout.
import { startCore, OwnerExistsError, type Core } from '../core/core'
import { createAgentServer, sendListChanged } from '../core/agent-server/mcp-server'
import { LineStdioTransport } from '../core/agent-server/stdio-transport'
import { serveAgentStdio } from '../core/agent-server/stdio-entry'
import { directListViews } from '../core/agent-server/direct-view'
import { instanceKey, readLiveInstance } from '../core/state/lock'
import { resolveConfigPath, resolveDataDir } from '../core/paths'
import { loadConfigFile } from '../core/config/load'
import { UsageError } from './errors'
import { runBridge, type Target } from './bridge'
import { onShutdown } from './shutdown'

/** How long a stdio waits to reach or become the owner (another may be starting). */
const REACH_MS = 20_000

type Reached = { target: Target } | { core: Core }

/**
 * Bridges to the live owner, or becomes the owner. Several processes may race: the data dir lock
 * picks one owner; the others wait for its instance.json (written once its listener is up).
 */
async function reachOwner(o: { configPath: string; dataDir: string; configKey: string | undefined }): Promise<Reached> {
  const deadline = Date.now() + REACH_MS
  while (Date.now() < deadline) {
    const live = readLiveInstance(o.dataDir)
    if (live?.mcp_url) {
      const key = instanceKey(live, o.dataDir, o.configKey)
      if (key) return { target: { mcpUrl: live.mcp_url, key, pid: live.pid } }
    }
    try {
      return {
        core: await startCore({ configPath: o.configPath, dataDir: o.dataDir, serveHttp: true, fallbackPort: true, kind: 'stdio', lenientConfig: true }),
      }
    } catch (e) {
      if (!(e instanceof OwnerExistsError)) throw e
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  throw new Error(
    `could not become or reach the owner of ${o.dataDir} within ${REACH_MS / 1000} s (a process holds ${o.dataDir}/toolgate.lock but never published instance.json)`,
  )
}

export async function stdio(o: { config?: string; dataDir?: string; agent?: string; direct?: boolean }): Promise<void> {
  const dataDir = resolveDataDir(o.dataDir)
  const configPath = resolveConfigPath(dataDir, o.config)
  // A mistake inside a server entry must not cost the client every tool: that entry is left out
  // and the agent and the window are told (docs/config.md); a file that does not parse exits 2.
  const { config } = loadConfigFile(configPath, { lenient: true })
  if (o.agent && !config.agents.some((a) => a.name === o.agent)) {
    throw new UsageError(
      `${configPath}: at $.agents: no agent named "${o.agent}"; add {"name": "${o.agent}", "servers": [...], "permissions": [...]} to "agents"`,
    )
  }
  const where = { configPath, dataDir, configKey: config.api_key }
  const first = await reachOwner(where)

  if ('core' in first) {
    // The owner: the agent's session runs in this process, in the era of its first message
    // (initialize: 2025; the per-request envelope: 2026-07-28), over our line transport.
    const core = first.core
    const scope = core.scopeForAgent(o.agent)
    const transport = new LineStdioTransport()
    const handle = serveAgentStdio(
      () => createAgentServer(core.agentDeps, scope, `stdio:${process.pid}`, o.direct ? 'direct' : 'meta'),
      transport,
      (e) => core.logger.debug({ err: e.message }, 'stdio MCP'),
      { deps: core.agentDeps, scope },
      (instance) =>
        core.agentDeps.listChanged?.watch({
          scope,
          ...(o.direct ? { views: directListViews(core.agentDeps.catalog, scope) } : {}),
          send: (kind) => {
            const server = instance()
            if (server) sendListChanged(server, kind)
          },
        }) ?? (() => {}),
    )
    const stop = async (): Promise<void> => {
      await handle.close().catch(() => {})
      await core.stop()
    }
    transport.onEnded = () => {
      void stop().finally(() => process.exit(0))
    }
    onShutdown(stop)
    return
  }

  // A bridge. If it has to take the data dir over, it keeps relaying, to its own listener.
  let owned: Core | null = null
  const stopOwned = async (): Promise<void> => {
    await owned?.stop()
  }
  onShutdown(stopOwned)
  // the direct view is the owner's /mcp/direct
  const view = (t: Target): Target => (o.direct ? { ...t, mcpUrl: `${t.mcpUrl}/direct` } : t)
  await runBridge({
    first: view(first.target),
    agent: o.agent,
    dataDir,
    reconnect: async () => {
      const next = await reachOwner(where)
      if ('target' in next) return view(next.target)
      owned = next.core
      next.core.logger.info({ pid: process.pid }, 'took over the data dir from an owner that went away')
      return view({ mcpUrl: `${next.core.url}/mcp`, key: next.core.instanceKey, pid: process.pid })
    },
    onClose: stopOwned,
  })
}
