// The change-event bus behind 2026-07-28 `subscriptions/listen` streams on /mcp (SDK v2's
// ServerEventBus), per credential: the SDK's own bus delivers every event to every open stream,
// but list_changed must reach only the agents whose view changed (docs/passthrough.md). Each stream
// is tagged with the credential of the request that opened it (AsyncLocalStorage around the
// handler: the SDK subscribes the stream while serving that request), and while a credential has
// a stream open, the list-changed hub watches its view for it. Events published without a
// credential go to every stream, but a resource update (which the SDK filters per URI itself)
// only to the streams whose agent may still read it (`mayHear`: its scope may have narrowed since
// it listened), each stream's updates of a URI folded to one per second (agent-server/update-fold.ts).
import { AsyncLocalStorage } from 'node:async_hooks'
import type { ServerEvent, ServerEventBus } from '@modelcontextprotocol/server'
import type { ListChangedHub, ListKind, ListWatch } from '../agent-server/list-changed'
import type { Scope } from '../access/scope'
import { UpdateFolder } from '../agent-server/update-fold'

interface Who {
  principal: string
  scope: Scope
}

const EVENT: Record<ListKind, ServerEvent> = {
  tools: { kind: 'tools_list_changed' },
  prompts: { kind: 'prompts_list_changed' },
  resources: { kind: 'resources_list_changed' },
}

export class ScopedEventBus implements ServerEventBus {
  private readonly current = new AsyncLocalStorage<Who>()
  private readonly listeners = new Map<(e: ServerEvent) => void, Who | null>()
  /** per stream: its resource updates, folded (made on its first update) */
  private readonly folders = new Map<(e: ServerEvent) => void, UpdateFolder>()
  /** per credential with streams open: how many, and the hub's watch of its view */
  private readonly watched = new Map<string, { streams: number; stop: () => void }>()

  constructor(
    private readonly hub?: ListChangedHub,
    private readonly mayHear?: (scope: Scope, uri: string) => boolean,
    /** what an agent of this endpoint lists, when not the default (the direct view) */
    private readonly views?: (scope: Scope) => ListWatch['views'],
  ) {}

  /** Serves `fn` (one /mcp request) as this credential: the streams it opens are its. */
  within<T>(who: Who, fn: () => Promise<T>): Promise<T> {
    return this.current.run(who, fn)
  }

  publish(event: ServerEvent): void {
    for (const [listener, who] of [...this.listeners]) {
      if (event.kind === 'resource_updated') this.folder(listener, who).push(event.uri)
      else this.deliver(listener, event)
    }
  }

  /** To the streams of one credential only. */
  publishTo(principal: string, event: ServerEvent): void {
    for (const [listener, who] of [...this.listeners]) if (who?.principal === principal) this.deliver(listener, event)
  }

  subscribe(listener: (event: ServerEvent) => void): () => void {
    const who = this.current.getStore() ?? null
    this.listeners.set(listener, who)
    if (who) this.opened(who)
    let done = false
    return () => {
      if (done) return
      done = true
      this.listeners.delete(listener)
      this.folders.get(listener)?.stop()
      this.folders.delete(listener)
      if (who) this.closed(who.principal)
    }
  }

  /** A stream's folder: gated for its agent when an update comes and again when a folded one is told. */
  private folder(listener: (e: ServerEvent) => void, who: Who | null): UpdateFolder {
    let f = this.folders.get(listener)
    if (!f) {
      const mayHear = this.mayHear
      f = new UpdateFolder(
        (uri) => !mayHear || (who !== null && mayHear(who.scope, uri)),
        (uri) => this.deliver(listener, { kind: 'resource_updated', uri }),
      )
      this.folders.set(listener, f)
    }
    return f
  }

  private deliver(listener: (e: ServerEvent) => void, event: ServerEvent): void {
    try {
      listener(event)
    } catch {
      // one broken stream must not keep the event from the others
    }
  }

  private opened(who: Who): void {
    const w = this.watched.get(who.principal)
    if (w) {
      w.streams++
      return
    }
    const views = this.views?.(who.scope)
    const stop = this.hub?.watch({ scope: who.scope, send: (kind) => this.publishTo(who.principal, EVENT[kind]), ...(views ? { views } : {}) }) ?? (() => {})
    this.watched.set(who.principal, { streams: 1, stop })
  }

  private closed(principal: string): void {
    const w = this.watched.get(principal)
    if (!w || --w.streams > 0) return
    this.watched.delete(principal)
    w.stop()
  }
}
