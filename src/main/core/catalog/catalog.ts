// The catalog: every known tool with its facts and its status from classify(), per server, and
// the search index of the approved definitions. Discovery, call enforcement, counts, the control
// API and the UI read it; nothing else keeps a status. A decision changes state.json and the
// catalog together through decide(); snapshot() is an immutable view.
import { EventEmitter } from 'node:events'
import path from 'node:path'
import type { Config, ServerConfig } from '../../../shared/config-schema'
import type { QuarantineSource, StatusCounts } from '../../../shared/api'
import { LOCK_STATUSES, NAME_ONLY_STATUSES, type ToolStatus } from '../../../shared/statuses'
import { hasVariantHints, type Classification, type ToolAnnotations, type Variant, type VariantSource } from '../../../shared/call-variant'
import { toolId } from '../../../shared/ids'
import { organisationDenies } from '../../../shared/policy'
import type { ToolDefinition } from '../../../shared/tool-definition'
import type { StateStore } from '../state/store'
import type { ApprovedTool, State } from '../state/schema'
import { ToolIndex, type IndexedTool } from '../search/tool-index'
import { classify, type Approval, type ToolFacts } from './classify'
import { approvalOf, classificationFor, configDenies, effectiveVariant, isFailClosed, quarantineOf, rejectionOf, serverLockOf, userLocked } from './facts'
import { launchHash, serverIdentity, toolHash } from '../state/hash'
import { reviewKey } from '../state/data-keys'
import { EntriesById, ReadonlyMapView, type FlatIndex } from './readonly-maps'
import { PromptCatalog } from './prompts'
import { TemplateCatalog } from './templates'
import type { TemplateDefinition } from '../../../shared/resources'
import type { PromptDefinition } from '../../../shared/prompts'

export interface CatalogEntry {
  readonly id: string
  readonly server: string
  readonly name: string
  /** the current definition: the live one when the server listed it, else the approved record */
  readonly def: Readonly<ToolDefinition>
  readonly hash: string
  readonly approval: Approval
  /** the approved definition when the live one differs from it (a "changed" tool) */
  readonly previous?: Readonly<ApprovedTool>
  /** when the user rejected exactly this definition (it stays disabled_by_user without asking again) */
  readonly rejectedAt?: string
  readonly facts: ToolFacts
  readonly status: ToolStatus
  /** the call_tool_* variant a call needs (call-variant.ts decideVariant, facts.ts effectiveVariant) */
  readonly variant: Variant
  /** where the variant comes from: the tool's hints, the spec's defaults (no hints), or a classification */
  readonly variantSource: VariantSource
  /** the definition gives neither readOnlyHint nor destructiveHint: the spec's defaults apply unless it is classified */
  readonly annotationsMissing: boolean
  /** the operator's or the user's class for this definition, when there is one (it decides only where the server's hints are not stricter) */
  readonly classification?: Classification
  /** docs/contract.md §3 rule 6: on a quarantined server and denied by config → never surfaced by discovery */
  readonly hidden: boolean
  /** the server is held in quarantine by the operator (config "quarantined": true) or the organisation: its own remediation */
  readonly operatorHold: boolean
  /** the lock that decides its status is the organisation's policy (a server it blocks or holds, a tool its lists deny): "set by your organisation" */
  readonly organisation: boolean
}

/** One server's classified tools, built once per change of that server and never mutated after. */
interface ServerEntries {
  /** sorted by tool name */
  readonly entries: readonly CatalogEntry[]
  /** locked tools matched by name only (quarantined, pending, unknown), for discovery */
  readonly nameOnly: readonly CatalogEntry[]
}

/** The classified view of every tool at one moment. Immutable: later changes build a new one. */
export interface CatalogSnapshot {
  readonly byId: ReadonlyMap<string, CatalogEntry>
  readonly byServer: ReadonlyMap<string, readonly CatalogEntry[]>
  /** tools matched by name only (quarantined, pending, unknown), for discovery */
  readonly nameOnly: readonly CatalogEntry[]
}

export type CatalogChange = { servers: string[] }

/** A server's listed tools; an Inspect also keeps the server identity it ran (approval baselines exactly that list). */
type LiveTools = { tools: Map<string, { def: ToolDefinition; hash: string }>; source: 'upstream' | 'inspect'; identity: string | null }

const NONE: readonly CatalogEntry[] = Object.freeze([])

export class Catalog extends EventEmitter<{ changed: [CatalogChange] }> {
  private config: Config
  private readonly live = new Map<string, LiveTools>()
  /** per configured server, its entries as of the last refresh */
  private readonly built = new Map<string, ServerEntries>()
  /** per server, the approved documents last given to the index (ids and hashes) */
  private readonly indexed = new Map<string, string>()
  /**
   * Every current entry by id, kept in step by refresh(), and its generation (bumped by every
   * refresh). Read only through a snapshot of the same generation; older snapshots use their parts.
   */
  private readonly flat: { byId: Map<string, CatalogEntry>; generation: number } = { byId: new Map(), generation: 0 }
  private snap: CatalogSnapshot | null = null
  readonly index = new ToolIndex()
  /** every known prompt of every server, classified by the same facts */
  readonly prompts = new PromptCatalog()
  /** every known resource template of every server, classified by the same facts */
  readonly templates = new TemplateCatalog()

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
    for (const name of before)
      if (!config.servers.some((s) => s.name === name)) {
        this.live.delete(name)
        this.index.removeServer(name)
        this.indexed.delete(name)
        this.prompts.forget(name)
        this.templates.forget(name)
      }
    this.refresh([...new Set([...before, ...config.servers.map((s) => s.name)])])
  }

  /**
   * A server listed its tools (or an Inspect did). `decision`, when given, is the state change
   * that goes with the list (baseline, auto approval): it lands in the same step. `batch`: its
   * write may wait for those of other servers listing now (StateStore.update).
   */
  setLiveTools(
    server: string,
    tools: readonly ToolDefinition[],
    source: 'upstream' | 'inspect',
    decision?: (s: State) => void,
    o: { batch?: boolean } = {},
  ): Promise<void> {
    const written = decision ? this.store.update(decision, o) : Promise.resolve()
    const cfg = this.serverConfig(server)
    const identity = source === 'inspect' && cfg ? serverIdentity(cfg) : null
    this.live.set(server, { tools: new Map(tools.map((t) => [t.name, { def: t, hash: toolHash(t) }])), source, identity })
    this.refresh([server])
    return written
  }

  /**
   * A server listed its prompts (or an Inspect did: `source`); `decision` is the state change that
   * goes with the list (baseline, auto approval); `batch` as for tools.
   */
  setLivePrompts(
    server: string,
    prompts: readonly PromptDefinition[],
    decision?: (s: State) => void,
    o: { batch?: boolean; source?: 'upstream' | 'inspect' } = {},
  ): Promise<void> {
    const written = decision ? this.store.update(decision, o) : Promise.resolve()
    const cfg = this.serverConfig(server)
    this.prompts.setLive(server, prompts, o.source === 'inspect' && cfg ? serverIdentity(cfg) : undefined)
    this.refresh([server])
    return written
  }

  /**
   * A server listed its resource templates (or an Inspect did: `source`); `decision` is the state
   * change that goes with the list (baseline, auto approval).
   */
  setLiveTemplates(
    server: string,
    templates: readonly TemplateDefinition[],
    decision?: (s: State) => void,
    source: 'upstream' | 'inspect' = 'upstream',
  ): Promise<void> {
    const written = decision ? this.store.update(decision) : Promise.resolve()
    const cfg = this.serverConfig(server)
    this.templates.setLive(server, templates, source === 'inspect' && cfg ? serverIdentity(cfg) : undefined)
    this.refresh([server])
    return written
  }

  /** Resolves once every state change made so far is on disk (StateStore.settle: a batched one is written now). */
  stateOnDisk(): Promise<void> {
    return this.store.settle()
  }

  liveTools(server: string): ToolDefinition[] | null {
    const l = this.live.get(server)
    return l ? [...l.tools.values()].map((t) => t.def) : null
  }

  /** Where the server's tool list came from: its running upstream, or an Inspect (null: none yet). */
  liveSource(server: string): 'upstream' | 'inspect' | null {
    return this.live.get(server)?.source ?? null
  }

  /** The tools the last Inspect showed, while the server still has the identity it had then (else null). */
  inspectedTools(server: string): Array<{ def: ToolDefinition; hash: string }> | null {
    const l = this.live.get(server)
    const cfg = this.serverConfig(server)
    if (!l || l.source !== 'inspect' || !cfg || l.identity !== serverIdentity(cfg)) return null
    return [...l.tools.values()]
  }

  /**
   * The identity of the server as configured now while the window shows what its Inspect listed
   * besides tools (control/resource-view.ts, the prompts view: a server on and in quarantine; a
   * server switched off shows none, so approving it then approves none); else null.
   */
  private inspectedShown(cfg: ServerConfig): string | null {
    return this.serverLock(cfg)?.status === 'server_quarantined' ? serverIdentity(cfg) : null
  }

  /** The templates the last Inspect listed, while they are shown (inspectedShown; else null). */
  inspectedTemplates(server: string): readonly TemplateDefinition[] | null {
    const cfg = this.serverConfig(server)
    const shownAs = cfg ? this.inspectedShown(cfg) : null
    return shownAs === null ? null : this.templates.inspected(server, shownAs)
  }

  /** The prompts the last Inspect listed, while they are shown (inspectedShown; else null). */
  inspectedPrompts(server: string): readonly PromptDefinition[] | null {
    const cfg = this.serverConfig(server)
    const shownAs = cfg ? this.inspectedShown(cfg) : null
    return shownAs === null ? null : this.prompts.inspected(server, shownAs)
  }

  /**
   * The one way a decision lands: change state.json and re-classify the servers it concerns in
   * the same step, so no reader sees one without the other. Resolves once the state is on disk.
   */
  decide(servers: readonly string[], mutate: (s: State) => void): Promise<void> {
    const written = this.store.update(mutate)
    this.refresh(servers)
    return written
  }

  /** Re-classify these servers (after a config or live-tool change; decisions use decide()). */
  refresh(servers: readonly string[]): void {
    const all = this.built.size > 0 && [...this.built.keys()].every((name) => servers.includes(name))
    if (all) this.flat.byId.clear() // a config reload: start over instead of deleting one by one
    for (const name of servers) {
      if (!all) for (const e of this.built.get(name)?.entries ?? NONE) this.flat.byId.delete(e.id)
      const cfg = this.serverConfig(name)
      if (!cfg) {
        this.built.delete(name)
        this.prompts.rebuild(name, undefined, undefined, undefined)
        this.templates.rebuild(name, undefined, undefined, undefined)
        continue
      }
      const serverFacts = { quarantine: this.quarantineOf(cfg), failClosed: isFailClosed(this.store.current, name) }
      this.prompts.rebuild(name, cfg, this.store.current, serverFacts, this.inspectedShown(cfg))
      this.templates.rebuild(name, cfg, this.store.current, serverFacts)
      const part = this.computeServer(cfg)
      this.built.set(name, part)
      for (const e of part.entries) this.flat.byId.set(e.id, e)
      this.reindex(name, part.entries)
    }
    this.flat.generation++
    this.snap = null
    this.emit('changed', { servers: [...servers] })
  }

  /** Why a server is quarantined, or null when it is not. */
  quarantineOf(s: ServerConfig): QuarantineSource | null {
    return quarantineOf(this.config, this.store.current, s)
  }

  /** The review token of the server's launch as configured now (hash.ts launchHash, keyed by the data dir's review key). */
  launchHash(s: ServerConfig): string {
    return launchHash(reviewKey(path.dirname(this.store.file)), s)
  }

  /** A lock on the whole server (off or quarantined), which covers every tool name on it, known or not. */
  serverLock(s: ServerConfig): ReturnType<typeof serverLockOf> {
    return serverLockOf(this.config, this.store.current, s)
  }

  private computeServer(s: ServerConfig): ServerEntries {
    const state = this.store.current
    const quarantine = this.quarantineOf(s)
    const quarantined = quarantine !== null
    const failClosed = isFailClosed(state, s.name)
    const live = this.live.get(s.name)
    const out: CatalogEntry[] = []
    const push = (def: ToolDefinition, hash: string, approved: ApprovedTool | undefined): void => {
      const id = toolId(s.name, def.name)
      const approval = approvalOf(hash, approved, failClosed)
      const rec = state.tools[id]
      const orgDenied = organisationDenies(def.name, s.organisation)
      const facts: ToolFacts = Object.freeze({
        serverEnabled: s.enabled,
        configDenied: configDenies(def.name, s) || orgDenied,
        serverQuarantined: quarantined,
        userDisabled: userLocked(rec, hash),
        approval,
      })
      const rejected = rejectionOf(rec, hash)
      const classFor = classificationFor(s, def.name, rec)
      const classification = classFor(hash)
      const decision = effectiveVariant({ annotations: def.annotations, hash }, approved, classFor)
      const status = classify(facts)
      out.push(
        Object.freeze({
          id,
          server: s.name,
          name: def.name,
          def,
          hash,
          approval,
          previous: approval === 'changed' && approved ? Object.freeze({ ...approved }) : undefined,
          ...(rejected ? { rejectedAt: rejected.at } : {}),
          facts,
          status,
          variant: decision.variant,
          variantSource: decision.source,
          annotationsMissing: !hasVariantHints(def.annotations),
          ...(classification ? { classification } : {}),
          hidden: facts.serverQuarantined && facts.configDenied,
          operatorHold: quarantine === 'config' || quarantine === 'organisation',
          organisation:
            (status === 'server_disabled' && s.organisation?.blocked !== undefined) ||
            (status === 'disabled_by_config' && orgDenied) ||
            (status === 'server_quarantined' && quarantine === 'organisation'),
        }),
      )
    }
    if (live) {
      for (const { def, hash } of live.tools.values()) push(def, hash, state.tools[toolId(s.name, def.name)]?.approved)
    } else {
      // not listed (yet): what was approved, as approved
      const prefix = `${s.name}:`
      for (const [id, rec] of Object.entries(state.tools)) {
        if (!id.startsWith(prefix) || !rec.approved) continue
        const a = rec.approved
        const def: ToolDefinition = {
          name: id.slice(prefix.length),
          description: a.description,
          inputSchema: a.inputSchema,
          ...(a.title ? { title: a.title } : {}),
          ...(a.outputSchema ? { outputSchema: a.outputSchema } : {}),
          ...(a.annotations ? { annotations: a.annotations as ToolAnnotations } : {}),
          ...(a.ui ? { ui: a.ui } : {}),
        }
        push(def, a.hash, a)
      }
    }
    out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    return Object.freeze({
      entries: Object.freeze(out),
      nameOnly: Object.freeze(out.filter((e) => e.status !== 'callable' && isNameOnly(e) && !e.hidden)),
    })
  }

  private reindex(server: string, entries: readonly CatalogEntry[]): void {
    // Only approved (trusted) definitions are indexed by their text; status is applied per request,
    // so a status change (disable, quarantine, ...) leaves the index alone. The approved hashes
    // cover name, description and schema: same ids and hashes, same documents.
    const trusted = entries.filter((e) => e.approval === 'approved')
    const signature = trusted.map((e) => `${e.id}\u0000${e.hash}\u0000${e.variant}`).join('\u0001')
    if (this.indexed.get(server) === signature) return
    this.indexed.set(server, signature)
    const docs: IndexedTool[] = trusted.map((e) => ({
      id: e.id,
      server: e.server,
      name: e.name,
      description: e.def.description,
      paramNames: Object.keys((e.def.inputSchema.properties as Record<string, unknown> | undefined) ?? {}),
      paramText: paramText(e.def.inputSchema),
      // ranking by what a request means to do (search/intent.ts) uses the gate's variant
      variant: e.variant,
      // a variant from the spec's defaults (no hints, nobody classified the tool) says nothing about what it does
      hinted: e.variantSource !== 'no_annotations',
    }))
    this.index.setServerTools(server, docs)
  }

  /**
   * The classified view of every tool. Each server's part is rebuilt only when that server
   * changed; the snapshot itself only assembles the parts, so it stays cheap to rebuild.
   */
  snapshot(): CatalogSnapshot {
    if (this.snap) return this.snap
    const byServer = new Map<string, readonly CatalogEntry[]>()
    const nameOnly: CatalogEntry[] = []
    for (const s of this.config.servers) {
      const part = this.built.get(s.name)
      byServer.set(s.name, part?.entries ?? NONE)
      for (const e of part?.nameOnly ?? NONE) nameOnly.push(e)
    }
    this.snap = Object.freeze({
      byId: new EntriesById(byServer, this.flat as FlatIndex, this.flat.generation),
      byServer: new ReadonlyMapView(byServer),
      nameOnly: Object.freeze(nameOnly),
    })
    return this.snap
  }

  entry(id: string): CatalogEntry | undefined {
    return this.snapshot().byId.get(id)
  }

  entries(server: string): readonly CatalogEntry[] {
    return this.snapshot().byServer.get(server) ?? []
  }

  /** `{callable, <status>: n}` over the given entries; zero statuses omitted unless `full`. */
  static counts(entries: Iterable<Pick<CatalogEntry, 'status'>>, full = false): StatusCounts {
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
