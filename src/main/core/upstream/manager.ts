// Keeps one Upstream per server that may run (enabled and not quarantined), in step with the
// config and the user's decisions: adding, removing or changing a server starts, stops or
// restarts just that upstream. When each runs is its lifecycle (docs/lifecycle.md):
// "always" runs while Toolgate runs; "on_demand" starts at its first use (acquire) or once to
// list tools it never listed, and stops after idle_stop_s without use. Tool lists flow into the
// catalog; connection states into `connections`, which never affect a tool's status.
import { launchCheck } from '../config/policy'
import type { ServerConfig } from '../../../shared/config-schema'
import type { Catalog } from '../catalog/catalog'
import { canonicalJson } from '../state/hash'
import type { Logger } from '../log'
import { Upstream, type UpstreamLimits } from './upstream'
import { ConnectionStates } from './states'
import type { SandboxContext } from './sandbox'
import type { ReferenceSource } from '../secrets/resolve'
import type { Secrets } from '../secrets/store'
import type { OAuthService } from '../oauth/service'
import { ResourceSubscriptions } from './resource-subscriptions'
import { idleStopSeconds } from '../../../shared/lifecycle'
import { launchKeyOf, type ServerSlot, type Lease, type LifecycleChange, type StartedBy, type StartReason, type StopReason } from './lifecycle'
import { DEFAULT_CONNECT_TIMEOUT_MS } from './types'
import { StartQueue } from './start-queue'
import { wireSlot } from './slot-events'
import { restartOnSecrets, restartOnSignIn } from './restarts'

export type { Lease, LifecycleChange, StartReason, StopReason } from './lifecycle'
import { ServerLogs } from './server-logs'

/** How long retrieve_tools, and a call to a tool of a server still starting, wait for it. */
export const STARTING_WAIT_MS = 3000
/** How long a request that starts a stopped server waits for it (spawn, sandbox, initialize, tools/list). */
export const ON_DEMAND_WAIT_MS = DEFAULT_CONNECT_TIMEOUT_MS

export class UpstreamManager {
  /** every server that may run (enabled, not quarantined), started or not */
  private readonly slots = new Map<string, ServerSlot>()
  /** servers whose start is scheduled (a few per event-loop turn, so the process stays responsive: start-queue.ts) */
  private readonly queued = new StartQueue(
    (slot, reason) => this.startNow(slot, reason),
    () => this.stopped,
  )
  /** servers that ran when they went back to review (quarantined): approved again, they start again */
  private readonly resumeAfterReview = new Set<string>()
  private stopped = false
  private inflight = 0
  /** the connection state of every server, as last seen */
  readonly connections = new ConnectionStates()
  /** agents' resource subscriptions, per server and its own URI; a subscribed server stays up */
  readonly subscriptions = new ResourceSubscriptions((server, uris) => this.subscriptionsChanged(server, uris))
  /** the servers' log messages: rate-limited, to Toolgate's log and the agents that asked */
  readonly logs: ServerLogs
  /** where servers' ${secret:…} / ${env:…} references are resolved */
  private references: ReferenceSource | undefined
  /** OAuth sign-in of HTTP servers (sessions per connection) */
  private oauth: OAuthService | undefined
  /** told of every start and stop (the activity record) */
  private onLifecycle: ((c: LifecycleChange) => void) | undefined
  /** told when a server says its resource list changed (agents' list_changed: agent-server/list-changed.ts) */
  private onResourcesListChanged: ((server: string) => void) | undefined

  constructor(
    private readonly catalog: Catalog,
    private readonly logger: Logger,
    /** what stdio upstreams must never see (docs/isolation.md) */
    private readonly sandbox?: SandboxContext,
    /**
     * offline: never start anything (operator commands while no owner runs); deferred: sync()
     * starts nothing until start() (a core built and not started yet)
     */
    private readonly opts: { offline?: boolean; deferred?: boolean } = {},
  ) {
    this.logs = new ServerLogs(logger)
    this.deferred = opts.deferred === true
  }

  /** sync() holds back until start() (deferred): a built core spawns nothing before it starts */
  private deferred: boolean

  /** Ends the deferral and brings the servers in line (the core's start, after it listens). */
  start(): void {
    this.deferred = false
    this.sync()
  }

  /** The caps of the current config (limits.*) for upstream tool lists and results. */
  limits(): UpstreamLimits {
    const l = this.catalog.currentConfig.limits
    return {
      maxTools: l.max_tools_per_server,
      maxDescriptionChars: l.max_description_chars,
      maxTitleChars: l.max_title_chars,
      maxAnnotationsBytes: l.max_annotations_bytes,
      maxResultBytes: l.max_result_bytes,
    }
  }

  /** The organisation's policy on a resolved launch (a start or an Inspect): why it may not run, or null. */
  launchCheck(resolved: ServerConfig): string | null {
    return launchCheck(this.catalog.currentConfig.organisation, resolved)
  }

  /** Starts and stops are told to `listener` (the activity record). */
  attachLifecycle(listener: (c: LifecycleChange) => void): void {
    this.onLifecycle = listener
  }

  /** A server's notifications/resources/list_changed is told to `listener`. */
  attachResourcesListChanged(listener: (server: string) => void): void {
    this.onResourcesListChanged = listener
  }

  private tell(c: LifecycleChange): void {
    try {
      this.onLifecycle?.(c)
    } catch (e) {
      this.logger.warn({ server: c.server, err: String(e) }, 'could not record a start or stop')
    }
  }

  private shouldRun(s: ServerConfig): boolean {
    return s.enabled && this.catalog.quarantineOf(s) === null
  }

  /** Its tools were listed by the server itself at some run (catalog.json keeps that across restarts of Toolgate). */
  private listedBefore(name: string): boolean {
    return this.catalog.liveSource(name) === 'upstream'
  }

  /** Brings the servers in line with the catalog's config and decisions. */
  sync(): void {
    if (this.stopped || this.opts.offline || this.deferred) return
    const wanted = new Map(this.catalog.currentConfig.servers.filter((s) => this.shouldRun(s)).map((s) => [s.name, s]))
    /** servers whose launch changed while they ran: they start again at once */
    const relaunch = new Set<string>()
    for (const [name, slot] of this.slots) {
      const cfg = wanted.get(name)
      if (cfg && launchKeyOf(cfg, canonicalJson) === slot.key) continue
      const wasActive = slot.active || this.queued.slot(name) === slot
      this.slots.delete(name)
      this.queued.delete(name)
      slot.clearIdle()
      if (slot.running) this.tell({ kind: 'stop', server: name, reason: 'config' })
      void slot.up.stop().catch((e: unknown) => this.logger.warn({ server: name, err: String(e) }, 'stop failed'))
      if (cfg && wasActive) relaunch.add(name)
      // running when it went back to review (a changed launch, the user's quarantine): it starts again once approved
      else if (!cfg && wasActive && this.catalog.serverConfig(name)?.enabled === true) this.resumeAfterReview.add(name)
      if (!cfg && this.catalog.serverConfig(name)) this.connections.set(name, { state: 'stopped', lastError: null, attempt: 0 })
      else if (!cfg) this.connections.forget(name)
    }
    for (const [name, cfg] of wanted) {
      let slot = this.slots.get(name)
      if (slot) slot.cfg = cfg
      else {
        slot = this.create(cfg)
        this.slots.set(name, slot)
      }
      if (slot.active || this.queued.has(name)) {
        this.armIdle(slot)
        continue
      }
      // stopped: "always" starts now, a changed launch that ran starts again, a server that never listed its tools starts once to list them
      const reason: StartReason | null =
        slot.lifecycle === 'always'
          ? 'always'
          : relaunch.has(name) || this.resumeAfterReview.delete(name)
            ? 'config'
            : this.listedBefore(name) || slot.up.state !== 'stopped'
              ? null
              : 'list'
      if (reason) this.enqueue(slot, reason)
    }
    this.queued.drain()
  }

  private enqueue(slot: ServerSlot, reason: StartReason): void {
    this.queued.add(slot, reason)
    this.connections.set(slot.cfg.name, { state: 'connecting', lastError: null, attempt: 0, protocolVersion: slot.up.protocolVersion })
  }

  private startNow(slot: ServerSlot, reason: StartReason, by?: StartedBy): void {
    const name = slot.cfg.name
    this.queued.delete(name)
    if (this.slots.get(name) !== slot || slot.active) return
    slot.ready = false
    slot.onDemandStart = reason === 'call' || reason === 'prompt' || reason === 'resource' || reason === 'inspect' || reason === 'restart'
    slot.clearIdle()
    const wanted = this.subscriptions.uris(name)
    if (wanted.size > 0) slot.up.setResourceSubscriptions(wanted)
    this.tell({ kind: 'start', server: name, reason, ...(by ? { by } : {}) })
    slot.up.start()
  }

  /**
   * Servers resolve their secrets from `secrets` when they start; a secret that is set, changed
   * or removed restarts the running servers that use it (one waiting in `error` for it too).
   */
  attachSecrets(secrets: Secrets): () => void {
    this.references = { secret: (name) => secrets.get(name), env: process.env }
    return restartOnSecrets(secrets, () => this.slots, this.logger)
  }

  /**
   * HTTP servers sign in through `oauth`: a completed sign-in or a sign-out restarts the server,
   * which then connects with its new tokens (or finds it needs sign-in again).
   */
  attachOAuth(oauth: OAuthService): () => void {
    this.oauth = oauth
    return restartOnSignIn(oauth, (server) => {
      const slot = this.slots.get(server)
      if (!slot) return
      this.logger.info({ server }, 'sign-in changed; reconnecting')
      void this.restartSlot(slot).catch((e: unknown) => this.logger.warn({ server, err: String(e) }, 'restart failed'))
    })
  }

  /** The OAuth sessions for Inspect (a quarantined HTTP server is listed only after sign-in). */
  get authSessions(): OAuthService | undefined {
    return this.oauth
  }

  private create(cfg: ServerConfig): ServerSlot {
    const up = new Upstream(cfg, {
      logger: this.logger.child({ server: cfg.name }),
      limits: this.limits(),
      references: this.references,
      ...(this.oauth ? { oauth: this.oauth } : {}),
      ...(this.sandbox ? { sandbox: { ctx: this.sandbox, mode: 'run' as const } } : {}),
      launchCheck: (resolved) => this.launchCheck(resolved),
    })
    return wireSlot(cfg, up, {
      catalog: this.catalog,
      logger: this.logger,
      connections: this.connections,
      subscriptions: this.subscriptions,
      logs: this.logs,
      current: (slot) => this.slots.get(cfg.name) === slot,
      queued: (name) => this.queued.has(name),
      armIdle: (slot) => this.armIdle(slot),
      batching: () => this.starting().length > 1,
      ingest: (work) => {
        this.inflight++
        void work().finally(() => this.inflight--)
      },
      resourcesListChanged: (server) => this.onResourcesListChanged?.(server),
    })
  }

  // ---- on demand ----------------------------------------------------------------------------

  /**
   * A user of the server (an agent's call, prompt or resource read; an Inspect) needs it: a
   * stopped server that may run is started, and the lease waits until its tools are listed (the
   * gate then decides on what the server lists now, not on the last known list). Until released,
   * the lease keeps the server from being stopped for idleness. Null when the server may not run
   * (off, quarantined, unknown) or Toolgate stops.
   */
  async acquire(name: string, o: { reason: StartReason; by?: StartedBy; signal?: AbortSignal; waitMs?: number } = { reason: 'call' }): Promise<Lease | null> {
    const slot = this.slots.get(name)
    if (!slot || this.stopped) return null
    slot.holds++
    // the idle clock stops while the server is used; its timer stays (when it fires it finds the server in use)
    slot.idleStopAt = null
    slot.announce?.()
    let released = false
    const release = (): void => {
      if (released) return
      released = true
      slot.holds--
      slot.up.touch()
      if (this.slots.get(name) === slot) this.armIdle(slot)
    }
    // a server that failed (error, needs sign-in) is not started again by a use: restart or sign-in does that
    if (slot.up.state === 'stopped') this.startNow(slot, o.reason, o.by)
    let stillStarting = false
    if (this.isStarting(name)) {
      slot.waiters++
      try {
        const bound = o.waitMs ?? (slot.onDemandStart ? ON_DEMAND_WAIT_MS : STARTING_WAIT_MS)
        stillStarting = (await this.waitStarted([name], bound, o.signal)).length > 0
      } finally {
        slot.waiters--
      }
    }
    return { up: slot.up, stillStarting, release }
  }

  /** The idle clock of an on-demand server that may stop when nobody uses it (ServerSlot.armIdle). */
  private armIdle(slot: ServerSlot): void {
    const idleS = idleStopSeconds(this.catalog.currentConfig, slot.cfg)
    const ready = slot.ready && slot.up.state === 'connected'
    const mayIdle = !this.stopped && slot.lifecycle === 'on_demand' && idleS > 0 && ready && this.subscriptions.uris(slot.cfg.name).size === 0
    slot.armIdle(idleS, mayIdle, () => this.idleCheck(slot))
  }

  private idleCheck(slot: ServerSlot): void {
    slot.idleTimer = undefined
    const name = slot.cfg.name
    // in use now, or no longer one that stops when idle: the end of the use arms the clock again
    if (this.slots.get(name) !== slot || slot.idleStopAt === null) return
    if (Date.now() < slot.idleStopAt) return this.armIdle(slot)
    const idleS = idleStopSeconds(this.catalog.currentConfig, slot.cfg)
    slot.clearIdle()
    slot.ready = false
    this.logger.info({ server: name, idle_stop_s: idleS }, 'stopping upstream: unused for its idle time; it starts again on first use')
    this.tell({ kind: 'stop', server: name, reason: 'idle', idleS })
    void slot.up.stop().catch((e: unknown) => this.logger.warn({ server: name, err: String(e) }, 'stop failed'))
  }

  private subscriptionsChanged(server: string, uris: ReadonlySet<string>): void {
    const slot = this.slots.get(server)
    if (!slot) return
    slot.up.setResourceSubscriptions(uris)
    // a subscription needs the server running to hear its changes: it starts (if stopped) and stays up while someone listens
    if (uris.size > 0 && slot.up.state === 'stopped') this.startNow(slot, 'resource')
    this.armIdle(slot)
  }

  /** When the idle clock stops a running on-demand server (Date.now() ms), or null. */
  idleStopAt(name: string): number | null {
    return this.slots.get(name)?.idleStopAt ?? null
  }

  // ---- waiting ------------------------------------------------------------------------------

  /**
   * True while a server that should run has not finished its start: queued, or connecting for
   * the first time since its start and its tools not yet in the catalog. A server whose first
   * attempt failed (reconnecting, or in error) is not starting: callers do not wait for it.
   */
  isStarting(name: string): boolean {
    if (this.queued.has(name)) return true
    const slot = this.slots.get(name)
    if (!slot || slot.ready) return false
    return slot.up.state === 'connecting' ? slot.up.attempt === 0 : slot.up.state === 'connected'
  }

  /** The servers (of `names`, default all) still starting. */
  starting(names?: Iterable<string>): string[] {
    const all = names ? [...names] : [...this.slots.keys()]
    return all.filter((n) => this.isStarting(n))
  }

  /** Waits until none of `names` is starting, at most `boundMs` (or until `signal` aborts); returns those still starting. */
  async waitStarted(names: Iterable<string>, boundMs = STARTING_WAIT_MS, signal?: AbortSignal): Promise<string[]> {
    const list = [...names]
    const deadline = Date.now() + boundMs
    let left = this.starting(list)
    while (left.length > 0 && Date.now() < deadline && !signal?.aborted) {
      await new Promise((r) => setTimeout(r, 10))
      left = this.starting(left)
    }
    return left
  }

  /** The server's Upstream, started or not; undefined when it may not run (off, quarantined, unknown). */
  get(name: string): Upstream | undefined {
    return this.slots.get(name)?.up
  }

  /** Restarts the server (a stopped on-demand server starts); false when it may not run. */
  async restart(name: string): Promise<boolean> {
    const slot = this.slots.get(name)
    if (!slot) return false
    await this.restartSlot(slot)
    return true
  }

  private async restartSlot(slot: ServerSlot): Promise<void> {
    const name = slot.cfg.name
    this.queued.delete(name)
    slot.clearIdle()
    if (slot.active) await slot.up.stop()
    if (this.slots.get(name) !== slot || this.stopped) return
    this.startNow(slot, 'restart')
  }

  /** Resolves when every started upstream is connected or has failed (or the timeout passes). */
  async settled(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      const pending =
        this.queued.size > 0 || [...this.slots.values()].some(({ up }) => up.state === 'connecting' || (up.state === 'connected' && up.tools === null))
      if (!pending && this.inflight === 0) return
      await new Promise((r) => setTimeout(r, 25))
    }
  }

  async stopAll(): Promise<void> {
    this.stopped = true
    this.queued.clear()
    const all = [...this.slots.values()]
    this.slots.clear()
    for (const slot of all) {
      slot.clearIdle()
      if (slot.running) this.tell({ kind: 'stop', server: slot.cfg.name, reason: 'shutdown' })
    }
    await Promise.allSettled(all.map(({ up }) => up.stop()))
  }
}
