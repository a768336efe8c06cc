// An agent's request that needs its upstream running (a prompt read, a resource read, a completion,
// a subscription) holds the server for as long as it works (docs/lifecycle.md): a stopped on-demand server
// starts, the request waits for its tools to be listed, and idleness cannot stop it meanwhile.
import type { StartReason, UpstreamManager } from '../upstream/manager'
import type { Scope } from '../access/scope'

/** Runs `work` while `server` is held for the agent of `scope`; a server that may not run is not held (the gate answers). */
export async function withServer<T>(
  manager: Pick<UpstreamManager, 'acquire'>,
  server: string,
  scope: Scope,
  reason: StartReason,
  signal: AbortSignal | undefined,
  work: () => Promise<T>,
): Promise<T> {
  const lease = scope.allowsServer(server)
    ? await manager.acquire(server, { reason, by: { agent: scope.agent, client: null }, ...(signal ? { signal } : {}) })
    : null
  try {
    return await work()
  } finally {
    lease?.release()
  }
}
