// Resource subscriptions of agents (docs/passthrough.md), in both eras. A 2025 session subscribes
// with resources/subscribe and hears notifications/resources/updated on its session; a
// 2026-07-28 agent names the URIs in subscriptions/listen and hears them on that stream (the SDK
// filters each stream by the URIs it honored). Either way every URI passes the resource gate
// first, a URI the agent may not read is left out of what it hears, and the server is subscribed
// (once per URI however many agents want it) under its own URI for as long as someone listens.
import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server'
import { toAgentUri } from '../../../shared/resource-uri'
import { gateResource, withServerOfUri, type AgentUriResolver, type ResourceDeps } from './resources'
import type { Scope } from '../access/scope'
import { UpdateFolder } from './update-fold'

/** Whether an agent may hear a change of one of its URIs now: the gate again (its scope may have narrowed, the server been locked since it subscribed). */
export function mayHear(deps: ResourceDeps, scope: Scope, agentUri: string): boolean {
  try {
    gateResource(deps, scope, agentUri)
    return true
  } catch {
    return false
  }
}

/** Subscribes the server of an agent's URI (gated for `scope` once); `hear` gets the agent's URI on each change. Throws the gate's error. */
function subscribeServer(deps: ResourceDeps, scope: Scope, agentUri: string, hear: (agentUri: string) => void): () => void {
  const g = gateResource(deps, scope, agentUri)
  if (!g.up.capabilities?.resources?.subscribe)
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, `server "${g.server.name}" does not offer resource subscriptions.`)
  const name = g.server.name
  return deps.manager.subscriptions.add(name, g.uri, (uri) => hear(toAgentUri(name, uri) ?? agentUri))
}

/**
 * Subscribes an agent to one of its URIs; `hear` gets the agent's URI on each change it may still
 * hear (the gate on every change, and again when a folded one is told), at most once per
 * UPDATE_EVERY_MS (update-fold.ts). Throws the gate's error.
 */
export function subscribeAgent(deps: ResourceDeps, scope: Scope, agentUri: string, hear: (agentUri: string) => void): () => void {
  const folder = new UpdateFolder((uri) => mayHear(deps, scope, uri), hear)
  const release = subscribeServer(deps, scope, agentUri, (changed) => folder.push(changed, agentUri))
  return () => {
    folder.stop()
    release()
  }
}

/** resources/subscribe and resources/unsubscribe of a 2025 session; its subscriptions end with the session. */
export function registerSubscribeHandlers(
  server: Server,
  deps: ResourceDeps,
  scope: Scope,
  gone: () => string,
  resolve: AgentUriResolver = async (uri) => uri,
): void {
  const held = new Map<string, () => void>()
  const previous = server.onclose
  server.onclose = () => {
    previous?.()
    for (const release of held.values()) release()
    held.clear()
  }
  server.setRequestHandler('resources/subscribe', async (req) => {
    if (!scope.active()) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, gone())
    const uri = req.params.uri
    if (held.has(uri)) return {}
    const gated = await resolve(uri)
    // a stopped on-demand server starts for it; the subscription then keeps it running
    await withServerOfUri(deps, scope, gated, undefined, async () => {
      if (held.has(uri)) return
      // a server's own URI (the direct view) is told back as the agent subscribed it
      held.set(
        uri,
        subscribeAgent(deps, scope, gated, (changed) => void server.sendResourceUpdated({ uri: gated === uri ? changed : uri }).catch(() => {})),
      )
    })
    return {}
  })
  server.setRequestHandler('resources/unsubscribe', async (req) => {
    held.get(req.params.uri)?.()
    held.delete(req.params.uri)
    return {}
  })
}

/**
 * The resource URIs of a 2026-07-28 subscriptions/listen, through the gate: the ones the agent
 * may hear (the request goes on with only those), subscribed for as long as the stream is open
 * (call `release` when it ends). Every change is published once per URI (`publish`), whatever
 * number of streams listen to it: the SDK delivers it to each stream that honored the URI, and
 * whoever delivers it checks each stream's agent again (mayHear): the scope may have narrowed,
 * and folds each stream's updates of a URI to one per UPDATE_EVERY_MS (UpdateFolder).
 */
export class ListenSubscriptions {
  private readonly shared = new Map<string, { count: number; release: () => void }>()

  constructor(
    private readonly deps: ResourceDeps,
    private readonly publish: (agentUri: string) => void,
  ) {}

  open(scope: Scope, uris: readonly unknown[]): { allowed: string[]; release: () => void } {
    const allowed: string[] = []
    const taken: string[] = []
    const seen = new Set<string>()
    for (const uri of uris) {
      if (typeof uri !== 'string' || seen.has(uri)) continue
      seen.add(uri)
      const held = this.shared.get(uri)
      try {
        if (held) {
          // the gate again for this agent, then share the one subscription
          gateResource(this.deps, scope, uri)
          held.count++
        } else {
          this.shared.set(uri, { count: 1, release: subscribeServer(this.deps, scope, uri, (changed) => this.publish(changed)) })
        }
        allowed.push(uri)
        taken.push(uri)
      } catch {
        // not this agent's to hear: left out of its stream
      }
    }
    let released = false
    return {
      allowed,
      release: () => {
        if (released) return
        released = true
        for (const uri of taken) {
          const held = this.shared.get(uri)
          if (!held) continue
          if (--held.count > 0) continue
          this.shared.delete(uri)
          held.release()
        }
      },
    }
  }
}
