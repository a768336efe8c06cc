// list_changed for agents (docs/passthrough.md): an agent that can hear notifications (a 2025
// session, a 2026-07-28 connection or listen stream) is told `notifications/{tools,prompts,
// resources}/list_changed` when what it would list changed, and only then: its tools view (the
// meta-tools, or a view that lists upstream tools) and its prompts view are compared before and
// after each catalog change of a server in its scope. Resources: Toolgate keeps no copy of resource
// lists, so an agent hears resources/list_changed when a server it may read says its list changed,
// and when the set of servers whose resources it may read changed (one switched off, quarantined,
// approved). Each watcher hears at most one notification per kind per second, however many changes
// arrive (relist.ts does the coalescing).
import { createHash } from 'node:crypto'
import type { Catalog } from '../catalog/catalog'
import { Relister, RELIST_GAP_MS } from '../upstream/relist'
import { agentPrompts } from './prompts'
import type { Scope } from '../access/scope'
import { decideServer } from '../access/decide'
import { agentTools } from './tool-defs'

export type ListKind = 'tools' | 'prompts' | 'resources'

export interface ListWatch {
  scope: Scope
  /** sends notifications/<kind>/list_changed to this agent (never throws) */
  send(kind: ListKind): void
  /** what this agent lists, when it is not the default (the meta-tools; the callable prompts in scope) */
  views?: Partial<Record<'tools' | 'prompts', () => unknown>>
}

interface Watcher {
  w: ListWatch
  seen: Record<'tools' | 'prompts', string>
  /** the servers whose resources this agent may read, as last told */
  readable: string
  /** a server in scope said its resource list changed since the last flush */
  resources: boolean
  flush: Relister
}

const digest = (v: unknown): string => createHash('sha256').update(JSON.stringify(v)).digest('base64')

export class ListChangedHub {
  private readonly watchers = new Set<Watcher>()
  private readonly onCatalog: (c: { servers: string[] }) => void

  constructor(
    private readonly catalog: Catalog,
    private readonly gapMs = RELIST_GAP_MS,
  ) {
    this.onCatalog = ({ servers }) => {
      for (const x of this.watchers) if (servers.length === 0 || servers.some((s) => x.w.scope.allowsServer(s))) x.flush.request()
    }
    catalog.on('changed', this.onCatalog)
  }

  private view(w: ListWatch, kind: 'tools' | 'prompts'): string {
    const own = w.views?.[kind]
    if (own) return digest(own())
    if (kind === 'tools') return digest(agentTools(w.scope).map((t) => t.name))
    // the names too: a new prompt in scope can change another's name (agent-names.ts)
    const inScope = (s: string): boolean => w.scope.allowsServer(s)
    return digest(agentPrompts(this.catalog, w.scope).map((e) => [e.id, e.hash, this.catalog.prompts.agentName(e.id, inScope)]))
  }

  /** The servers whose resources this agent may read (in scope, read permission, not locked): who serves its resources/list. */
  private readable(w: ListWatch): string {
    return this.catalog.currentConfig.servers
      .filter((s) => decideServer(this.catalog, w.scope, s.name, 'read').kind === 'open')
      .map((s) => s.name)
      .join('\n')
  }

  /** Starts telling this agent about changes of its view (from what it would list now); returns the stop. */
  watch(w: ListWatch): () => void {
    const x: Watcher = {
      w,
      seen: { tools: this.view(w, 'tools'), prompts: this.view(w, 'prompts') },
      readable: this.readable(w),
      resources: false,
      flush: new Relister(
        async () => {
          if (!w.scope.active()) return
          for (const kind of ['tools', 'prompts'] as const) {
            const now = this.view(w, kind)
            if (now === x.seen[kind]) continue
            x.seen[kind] = now
            w.send(kind)
          }
          const readable = this.readable(w)
          if (x.resources || readable !== x.readable) {
            x.resources = false
            x.readable = readable
            w.send('resources')
          }
        },
        () => {},
        this.gapMs,
      ),
    }
    this.watchers.add(x)
    return () => {
      x.flush.stop()
      this.watchers.delete(x)
    }
  }

  /** A server said its resource list changed: agents that may read its resources hear it (coalesced); one without read permission, or while it is locked, hears nothing of it. */
  resourcesChanged(server: string): void {
    for (const x of this.watchers) {
      if (decideServer(this.catalog, x.w.scope, server, 'read').kind !== 'open') continue
      x.resources = true
      x.flush.request()
    }
  }

  /** How many agents listen (tests, diagnostics). */
  get size(): number {
    return this.watchers.size
  }

  close(): void {
    this.catalog.off('changed', this.onCatalog)
    for (const x of this.watchers) x.flush.stop()
    this.watchers.clear()
  }
}
