// The stdio bridge: a transparent JSON-RPC relay from stdin/stdout to the live owner's /mcp,
// with its own session (and agent scope). If the owner goes away, every request answers with
// an error that says so; a restarted `toolgate stdio` takes over the data dir.
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { LineStdioTransport } from '../core/agent/stdio-transport'
import type { Instance } from '../core/state/lock'

export async function runBridge(o: { instance: Instance; key: string; agent?: string; dataDir: string }): Promise<void> {
  const local = new LineStdioTransport()
  const headers: Record<string, string> = { authorization: `Bearer ${o.key}` }
  if (o.agent) headers['x-toolgate-agent'] = o.agent
  const remote = new StreamableHTTPClientTransport(new URL(o.instance.mcp_url as string), { requestInit: { headers } })
  const initIds = new Set<string | number>()
  // Until the initialize response has given us a session id, later messages wait for it.
  let sessionReady: Promise<void> = Promise.resolve()
  let markReady: () => void = () => {}
  const gone = (): string =>
    `Toolgate's owner process (pid ${o.instance.pid}, ${o.instance.url}) for ${o.dataDir} is gone or not answering. Restart this MCP client (or start \`toolgate serve\` / the Toolgate app) to reconnect; a restarted \`toolgate stdio\` takes over on its own.`

  remote.onmessage = (m: JSONRPCMessage) => {
    if ('id' in m && m.id !== undefined && ('result' in m || 'error' in m) && initIds.has(m.id)) {
      initIds.delete(m.id)
      if ('result' in m) {
        const v = (m.result as { protocolVersion?: unknown }).protocolVersion
        if (typeof v === 'string') remote.setProtocolVersion(v)
      }
      markReady()
    }
    void local.send(m)
  }
  remote.onerror = () => {}
  local.onmessage = (m: JSONRPCMessage) => {
    const initId = 'method' in m && m.method === 'initialize' && 'id' in m && m.id !== undefined ? m.id : undefined
    const isInit = initId !== undefined
    const wait = isInit ? Promise.resolve() : sessionReady
    if (isInit) {
      initIds.add(initId)
      sessionReady = new Promise<void>((resolve) => {
        markReady = resolve
      })
    }
    wait.then(() => remote.send(m)).catch((err: unknown) => {
      if (isInit) markReady()
      if ('method' in m && 'id' in m && m.id !== undefined) {
        void local.send({ jsonrpc: '2.0', id: m.id, error: { code: -32000, message: `${gone()} (${(err as Error).message})` } } as JSONRPCMessage)
      }
    })
  }
  local.onclose = () => {
    void remote
      .terminateSession()
      .catch(() => {})
      .finally(() => process.exit(0))
  }
  await remote.start()
  await local.start()
}
