// `toolgate stdio`: MCP over stdin/stdout for Claude Desktop, Cursor and friends. Bridges to the
// live owner of the data dir when there is one (one shared state), else runs the core embedded
// and becomes the owner. Nothing but JSON-RPC is ever written to stdout.
import { startCore, OwnerExistsError } from '../core/core'
import { createAgentServer } from '../core/agent/mcp-server'
import { LineStdioTransport } from '../core/agent/stdio-transport'
import { instanceKey, readLiveInstance } from '../core/state/lock'
import { resolveConfigPath, resolveDataDir } from '../core/paths'
import { loadConfigFile } from '../core/config/load'
import { UsageError } from './errors'
import { runBridge } from './bridge'
import { onShutdown } from './shutdown'

export async function stdio(o: { config?: string; dataDir?: string; agent?: string }): Promise<void> {
  const dataDir = resolveDataDir(o.dataDir)
  const configPath = resolveConfigPath(dataDir, o.config)
  const { config } = loadConfigFile(configPath)
  if (o.agent && !config.agents.some((a) => a.name === o.agent)) {
    throw new UsageError(
      `${configPath}: at $.agents: no agent named "${o.agent}"; add {"name": "${o.agent}", "servers": [...], "permissions": [...]} to "agents"`,
    )
  }
  // Clients often start several `toolgate stdio` at once: one becomes the owner, the others wait
  // for its instance.json (written once its listener is up) and bridge to it.
  const deadline = Date.now() + 20_000
  while (Date.now() < deadline) {
    const live = readLiveInstance(dataDir)
    if (live?.mcp_url) {
      const key = instanceKey(live, dataDir, config.api_key)
      if (key) return runBridge({ instance: live, key, agent: o.agent, dataDir })
    }
    try {
      const core = await startCore({ configPath, dataDir, serveHttp: true, ephemeralPort: true, kind: 'stdio' })
      const server = createAgentServer(core.agentDeps, core.scopeForAgent(o.agent))
      const transport = new LineStdioTransport()
      const stop = async (): Promise<void> => {
        await server.close().catch(() => {})
        await core.stop()
      }
      transport.onclose = () => {
        void stop().finally(() => process.exit(0))
      }
      onShutdown(stop)
      await server.connect(transport)
      return
    } catch (e) {
      if (!(e instanceof OwnerExistsError)) throw e
      // another process holds the lock: wait for its instance.json, then bridge to it
      await new Promise((r) => setTimeout(r, 100))
    }
  }
  throw new Error(`could not become or reach the owner of ${dataDir} within 20 s (a process holds ${dataDir}/toolgate.lock but never published instance.json)`)
}
