// The agent side of `toolgate stdio` (embedded): one connection, its era decided by its first
// message. A 2026-07-28 client sends the per-request envelope from its first message on
// (server/discover, or any request claiming the version): SDK v2's serveStdio serves it (era
// pinning, subscriptions/listen, the fallback of a client that probes and then initializes).
// Anything else (initialize, or a ping before it) is a 2025 client: the agent server is connected
// to the line transport directly, as the SDK's entry would pin it, without the entry's per-message
// layer (it re-checked every message with schema-based guards: ~15 µs of CPU per request, most of
// what SDK v2 added to a stdio request; measured with `npm run bench`, docs/benchmarks.md).
import type { JSONRPCMessage, Server } from '@modelcontextprotocol/server'
import { serveStdio } from '@modelcontextprotocol/server/stdio'
import type { LineStdioTransport } from './stdio-transport'
import { ListenSubscriptions, mayHear } from './resource-subscribe'
import { UpdateFolder } from './update-fold'
import type { ResourceDeps } from './resources'
import type { Scope } from '../access/scope'

const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion'

/** Does this message claim a protocol version in its _meta envelope (2026-07-28 and later)? */
export function claimsEnvelope(m: JSONRPCMessage): boolean {
  const params = 'method' in m ? (m as { params?: { _meta?: Record<string, unknown> } }).params : undefined
  return typeof params?._meta?.[PROTOCOL_VERSION_KEY] === 'string'
}

export interface StdioEntry {
  /** closes the agent server and the transport */
  close(): Promise<void>
}

/**
 * A 2026-07-28 connection's subscriptions/listen naming resources: only the URIs the agent may
 * read stay in it, the servers are subscribed while the stream is open (until its
 * notifications/cancelled or the end of the connection), and a change reaches the stream through
 * the pinned server instance.
 */
function tapListens(transport: LineStdioTransport, resources: { deps: ResourceDeps; scope: Scope }, instance: () => Server | undefined): () => void {
  // the gate again when an update comes and when told (the agent's scope may have narrowed since
  // it listened), a URI's updates folded to one per second
  const folder = new UpdateFolder(
    (uri) => mayHear(resources.deps, resources.scope, uri),
    (uri) =>
      void instance()
        ?.sendResourceUpdated({ uri })
        .catch(() => {}),
  )
  const listens = new ListenSubscriptions(resources.deps, (uri) => folder.push(uri))
  const open = new Map<string | number, () => void>()
  const inner = transport.onmessage
  transport.onmessage = (m: JSONRPCMessage) => {
    const msg = m as { id?: string | number; method?: string; params?: Record<string, unknown> }
    const n = msg.params?.notifications as Record<string, unknown> | undefined
    if (msg.method === 'subscriptions/listen' && msg.id !== undefined && Array.isArray(n?.resourceSubscriptions)) {
      const { allowed, release } = listens.open(resources.scope, n.resourceSubscriptions)
      open.set(msg.id, release)
      m = { ...m, params: { ...msg.params, notifications: { ...n, resourceSubscriptions: allowed } } } as JSONRPCMessage
    } else if (msg.method === 'notifications/cancelled') {
      const id = msg.params?.requestId as string | number | undefined
      if (id !== undefined) open.get(id)?.()
      if (id !== undefined) open.delete(id)
    }
    inner?.call(transport, m)
  }
  return () => {
    for (const release of open.values()) release()
    open.clear()
    folder.stop()
  }
}

/**
 * `hear`: a 2026-07-28 connection hears list_changed on its listen streams through the instance
 * pinned to it (a 2025 session watches its own lists once initialized, mcp-server.ts); returns the stop.
 */
export function serveAgentStdio(
  makeServer: () => Server,
  transport: LineStdioTransport,
  onerror: (e: Error) => void,
  resources?: { deps: ResourceDeps; scope: Scope },
  hear?: (instance: () => Server | undefined) => () => void,
): StdioEntry {
  let close: () => Promise<void> = () => transport.close()
  transport.onmessage = (first: JSONRPCMessage) => {
    // what arrives while the era is decided waits, in order, behind the first message
    transport.hold()
    transport.onmessage = undefined
    void (async () => {
      if (claimsEnvelope(first)) {
        let pinned: Server | undefined
        const handle = serveStdio(
          () => {
            pinned = makeServer()
            return pinned
          },
          { transport, onerror },
        )
        const untap = resources ? tapListens(transport, resources, () => pinned) : () => undefined
        const stop = hear?.(() => pinned) ?? (() => {})
        close = async () => {
          untap()
          stop()
          await handle.close()
        }
      } else {
        const server = makeServer()
        server.onerror = onerror
        await server.connect(transport)
        close = () => server.close()
      }
      // the entry (or the server) took transport.onmessage over
      transport.onmessage?.(first)
      transport.release()
    })().catch(onerror)
  }
  void transport.start()
  return { close: () => close() }
}
