// The catalog: every known tool and the facts about it. It is the single source of truth that
// discovery, call enforcement, counts, the control API and the UI read; statuses come from
// classify() and nothing else keeps a copy. Derived views are rebuilt lazily once per change.
import { EventEmitter } from 'node:events'
import type { Config, ServerConfig } from '../../../shared/config-schema'
import type { QuarantineSource, StatusCounts } from '../../../shared/api'
import { LOCK_STATUSES, NAME_ONLY_STATUSES, type ToolStatus } from '../../../shared/statuses'
import { requiredVariant, variantRank, type ToolAnnotations, type Variant } from '../../../shared/call-variant'
import { toolId } from '../../../shared/ids'
import type { StateStore } from '../state/store'
import type { ApprovedTool, State } from '../state/schema'
import { ToolIndex, type IndexedTool } from '../search/tool-index'
import { classify, configDenies, type Approval, type ToolFacts } from './classify'
import { serverIdentity, toolHash } from './hash'

export interface ToolDef {
  name: string
  title?: string
  description: string
  inputSchema: Record<string, unknown>
  outputSchema?: Record<string, unknown>
  annotations?: ToolAnnotations
}

export interface CatalogEntry {
  id: string
  server: string
  name: string
  /** the current definition: the live one when the server listed it, else the approved record */
  def: ToolDef
  hash: string
  approval: Approval
  /** the approved definition when the live one differs from it (a "changed" tool) */
  previous?: ApprovedTool
  facts: ToolFacts
  status: ToolStatus
  variant: Variant
  /** CONTRACT §3 rule 6: on a quarantined server and denied by config → never surfaced by discovery */
  hidden: boolean
}

export interface RuntimeInfo {
  state: 'connecting' | 'connected' | 'stopped' | 'error'
  lastError: string | null
  attempt: number
}

interface Snapshot {
  byId: Map<string, CatalogEntry>
  byServer: Map<string, CatalogEntry[]>
  /** tools matched by name only (quarantined, pending, unknown), for discovery */
  nameOnly: CatalogEntry[]
}

export type CatalogChange = { servers: string[] }

export class Catalog extends EventEmitter {
  private config: Config
  private readonly live = new Map<string, { tools: Map<string, { def: ToolDef; hash: string }>; source: 'upstream' | 'inspect' }>()
  private readonly serverCache = new Map<string, CatalogEntry[]>()
  private readonly runtime = new Map<string, RuntimeInfo>()
  private snap: Snapshot | null = null
  private readonly byId = new Map<string, CatalogEntry>()
  private readonly published = new Map<string, CatalogEntry[]>()
  private readonly nameOnlyByServer = new Map<string, CatalogEntry[]>()
  private readonly stale = new Set<string>()
  private readonly indexed = new Map<string, string>()
  readonly index = new ToolIndex()

  constructor(
    config: Config,
    readonly store: StateStore,
  ) {
    super()
    this.config = config
    this.refresh(config.servers.map((s) => s.name))
  }

  get currentConfig(): Config {
    return this.config
  }

  serverConfig(name: string): ServerConfig | undefined {
    return this.config.servers.find((s) => s.name === name)
  }

  setConfig(config: Config): void {
    const before = new Set(this.config.servers.map((s) => s.name))
    this.config = config
    this.serverCache.clear()
    for (const name of before)
      if (!config.servers.some((s) => s.name === name)) {
        this.live.delete(name)
        this.runtime.delete(name)
        this.index.removeServer(name)
        this.indexed.delete(name)
      }
    this.refresh([...new Set([...before, ...config.servers.map((s) => s.name)])])
  }

  setLiveTools(server: string, tools: ToolDef[], source: 'upstream' | 'inspect'): void {
    this.live.set(server, { tools: new Map(tools.map((t) => [t.name, { def: t, hash: toolHash(t) }])), source })
    this.refresh([server])
  }

  liveTools(server: string): ToolDef[] | null {
    const l = this.live.get(server)
    return l ? [...l.tools.values()].map((t) => t.def) : null
  }

  setRuntime(server: string, rt: RuntimeInfo): void {
    this.runtime.set(server, rt) // connection state never changes a tool's status
    this.emit('changed', { servers: [server] } satisfies CatalogChange)
  }

  runtimeOf(server: string): RuntimeInfo {
    return this.runtime.get(server) ?? { state: 'stopped', lastError: null, attempt: 0 }
  }

  /** Call after any state.json change that concerns these servers. */
  refresh(servers: string[]): void {
    for (const s of servers) {
      this.serverCache.delete(s)
      this.stale.add(s)
    }
    for (const s of servers) this.reindex(s)
    this.emit('changed', { servers } satisfies CatalogChange)
  }

  /** Why a server is quarantined, or null when it is not. */
  quarantineOf(s: ServerConfig): QuarantineSource | null {
    const rec = this.store.current.servers[s.name]
    if (s.quarantined === true) return 'config'
    if (rec?.user_quarantined) return 'user'
    if (s.quarantined === false) return null
    if (rec?.needs_review) return 'review'
    if (!this.config.quarantine_enabled || s.trust === 'auto') return null
    return rec?.approved_identity === serverIdentity(s) ? null : 'review'
  }

  /** The tools this server is known to have, with their facts and status. */
  private buildServer(s: ServerConfig): CatalogEntry[] {
    const cached = this.serverCache.get(s.name)
    if (cached) return cached
    const built = this.computeServer(s)
    this.serverCache.set(s.name, built)
    return built
  }

  private computeServer(s: ServerConfig): CatalogEntry[] {
    const state = this.store.current
    const quarantined = this.quarantineOf(s) !== null
    const srvRec = state.servers[s.name]
    const failClosed = isFailClosed(state, s.name)
    const live = this.live.get(s.name)
    const out: CatalogEntry[] = []
    const push = (def: ToolDef, approval: Approval, hash: string, previous?: ApprovedTool): void => {
      const id = toolId(s.name, def.name)
      const rec = state.tools[id]
      const facts: ToolFacts = {
        serverEnabled: s.enabled,
        configDenied: configDenies(def.name, s),
        serverQuarantined: quarantined,
        userDisabled: rec?.user_disabled === true,
        approval,
      }
      out.push({
        id,
        server: s.name,
        name: def.name,
        def,
        hash,
        approval,
        previous,
        facts,
        status: classify(facts),
        // a live annotation change never weakens the variant below what was approved
        variant: strictest(requiredVariant(def.annotations), rec?.approved ? requiredVariant(rec.approved.annotations as ToolAnnotations | undefined) : 'read'),
        hidden: facts.serverQuarantined && facts.configDenied,
      })
    }
    if (live) {
      for (const { def, hash } of live.tools.values()) {
        const approved = state.tools[toolId(s.name, def.name)]?.approved
        if (approved && approved.hash === hash) push(def, 'approved', hash)
        else if (approved) push(def, 'changed', hash, approved)
        else push(def, failClosed ? 'unknown' : 'pending', hash)
      }
    } else {
      const prefix = `${s.name}:`
      for (const [id, rec] of Object.entries(state.tools)) {
        if (!id.startsWith(prefix) || !rec.approved) continue
        const a = rec.approved
        const def: ToolDef = {
          name: id.slice(prefix.length),
          description: a.description,
          inputSchema: a.inputSchema,
          ...(a.title ? { title: a.title } : {}),
          ...(a.outputSchema ? { outputSchema: a.outputSchema } : {}),
          ...(a.annotations ? { annotations: a.annotations as ToolAnnotations } : {}),
        }
        push(def, 'approved', a.hash)
      }
    }
    out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    return out
  }

  private reindex(server: string): void {
    const s = this.serverConfig(server)
    if (!s) return
    // Only approved (trusted) definitions are indexed by their text; status is applied per request,
    // so a status change (disable, quarantine, ...) leaves the index alone. The approved hashes
    // cover name, description and schema: same ids and hashes, same documents.
    const trusted = this.buildServer(s).filter((e) => e.approval === 'approved')
    const signature = trusted.map((e) => `${e.id}\u0000${e.hash}`).join('\u0001')
    if (this.indexed.get(server) === signature) return
    this.indexed.set(server, signature)
    const docs: IndexedTool[] = trusted.map((e) => ({
      id: e.id,
      server: e.server,
      name: e.name,
      description: e.def.description,
      paramNames: Object.keys((e.def.inputSchema.properties as Record<string, unknown> | undefined) ?? {}),
      paramText: paramText(e.def.inputSchema),
    }))
    this.index.setServerTools(server, docs)
  }

  /**
   * The classified view of every tool. Rebuilt per changed server only: a change to one server
   * re-classifies that server's tools and leaves the others' entries in place.
   */
  snapshot(): Snapshot {
    if (this.snap && this.stale.size === 0) return this.snap
    const everything = this.config.servers.every((x) => this.stale.has(x.name))
    if (everything) this.byId.clear() // a config reload: start over instead of deleting one by one
    for (const name of this.stale) {
      if (!everything) for (const e of this.published.get(name) ?? []) this.byId.delete(e.id)
      const cfg = this.serverConfig(name)
      if (!cfg) {
        this.published.delete(name)
        this.nameOnlyByServer.delete(name)
        continue
      }
      const entries = this.buildServer(cfg)
      for (const e of entries) this.byId.set(e.id, e)
      this.published.set(name, entries)
      this.nameOnlyByServer.set(
        name,
        entries.filter((e) => e.status !== 'callable' && isNameOnly(e) && !e.hidden),
      )
    }
    this.stale.clear()
    const servers = this.config.servers
    this.snap = {
      byId: this.byId,
      byServer: new Map(servers.map((x) => [x.name, this.published.get(x.name) ?? []])),
      nameOnly: servers.flatMap((x) => this.nameOnlyByServer.get(x.name) ?? []),
    }
    return this.snap
  }

  entry(id: string): CatalogEntry | undefined {
    return this.snapshot().byId.get(id)
  }

  entries(server: string): CatalogEntry[] {
    return this.snapshot().byServer.get(server) ?? []
  }

  /** `{callable, <status>: n}` over the given entries; zero statuses omitted unless `full`. */
  static counts(entries: Iterable<CatalogEntry>, full = false): StatusCounts {
    const c: Record<string, number> = { callable: 0 }
    if (full) for (const s of LOCK_STATUSES) c[s] = 0
    for (const e of entries) c[e.status] = (c[e.status] ?? 0) + 1
    const ordered: Record<string, number> = { callable: c.callable }
    for (const s of LOCK_STATUSES) if (c[s] !== undefined && (full || c[s] > 0)) ordered[s] = c[s]
    return ordered as StatusCounts
  }
}

/** Locked tools whose text is untrusted: matched by name only and returned without description. */
export function isNameOnly(e: CatalogEntry): boolean {
  return e.approval !== 'approved' || (e.status !== 'callable' && NAME_ONLY_STATUSES.has(e.status))
}

/** Fail closed (CONTRACT §4, issue 3): after an unreadable state file, servers that existed then take no baseline until reviewed. */
export function isFailClosed(state: Readonly<State>, server: string): boolean {
  const fc = state.fail_closed
  if (!fc || state.servers[server]?.baseline_taken) return false
  return !fc.servers || fc.servers.includes(server)
}

function strictest(a: Variant, b: Variant): Variant {
  return variantRank(a) >= variantRank(b) ? a : b
}

function paramText(schema: Record<string, unknown>): string {
  const props = schema.properties
  if (!props || typeof props !== 'object') return ''
  return Object.values(props as Record<string, unknown>)
    .map((p) =>
      p && typeof p === 'object' && typeof (p as { description?: unknown }).description === 'string' ? (p as { description: string }).description : '',
    )
    .filter(Boolean)
    .join(' ')
}
