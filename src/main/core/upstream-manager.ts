// Keeps one Upstream per server that should run (enabled and not quarantined), in step with the
// config and the user's decisions: adding, removing or changing a server starts, stops or
// restarts just that upstream. Tool lists flow into the catalog; connection states into
// `connections`, which never affect a tool's status.
import { launchCheck } from './config/policy'
import type { ServerConfig } from '../../shared/config-schema'
import type { Catalog } from './catalog/catalog'
import { ingestTools } from './catalog/decisions'
import { ingestPrompts } from './catalog/prompt-decisions'
import type { PromptDefinition } from '../../shared/prompts'
import { canonicalJson } from './catalog/hash'
import type { Logger } from './log'
import type { ToolDefinition } from '../../shared/tool-definition'
import { Upstream, type UpstreamLimits } from './upstream/upstream'
import { ConnectionStates } from './upstream/states'
import type { SandboxContext } from './upstream/sandbox'
import type { ReferenceSource } from './secrets/resolve'
import type { Secrets } from './secrets/store'
import { secretsUsedBy } from '../../shared/secret-refs'
import type { OAuthService } from './oauth/service'
import { ResourceSubscriptions } from './upstream/resource-subscriptions'

/** How long retrieve_tools, and a call to a tool of a server still starting, wait for it. */
export const STARTING_WAIT_MS = 3000

export class UpstreamManager {
  private readonly running = new Map<string, { up: Upstream; key: string; ready: boolean }>()
  /** servers whose start is scheduled (one per event-loop turn, so the process stays responsive) */
  private readonly queued = new Map<string, ServerConfig>()
  private draining = false
  private stopped = false
  private inflight = 0
  /** the connection state of every server, as last seen */
  readonly connections = new ConnectionStates()
  /** agents' resource subscriptions, per server and its own URI (issue 27) */
  readonly subscriptions = new ResourceSubscriptions((server, uris) => this.running.get(server)?.up.setResourceSubscriptions(uris))
  /** where servers' ${secret:…} / ${env:…} references are resolved */
  private references: ReferenceSource | undefined
  /** OAuth sign-in of HTTP servers (sessions per connection) */
  private oauth: OAuthService | undefined

  constructor(
    private readonly catalog: Catalog,
    private readonly logger: Logger,
    /** what stdio upstreams must never see (docs/isolation.md) */
    private readonly sandbox?: SandboxContext,
    /** offline: never start anything (operator commands while no owner runs) */
    private readonly opts: { offline?: boolean } = {},
  ) {}

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

  private shouldRun(s: ServerConfig): boolean {
    return s.enabled && this.catalog.quarantineOf(s) === null
  }

  /** Brings the running set in line with the catalog's config and decisions. */
  sync(): void {
    if (this.stopped || this.opts.offline) return
    const wanted = new Map(this.catalog.currentConfig.servers.filter((s) => this.shouldRun(s)).map((s) => [s.name, s]))
    for (const [name, { up, key }] of this.running) {
      const cfg = wanted.get(name)
      if (!cfg || canonicalJson(cfg) !== key) {
        this.running.delete(name)
        void up.stop().catch((e: unknown) => this.logger.warn({ server: name, err: String(e) }, 'stop failed'))
        if (!cfg && this.catalog.serverConfig(name)) this.connections.set(name, { state: 'stopped', lastError: null, attempt: 0 })
        else if (!cfg) this.connections.forget(name)
      }
    }
    for (const name of this.queued.keys()) if (!wanted.has(name)) this.queued.delete(name)
    for (const [name, cfg] of wanted) {
      if (this.running.has(name)) continue
      this.queued.set(name, cfg)
      this.connections.set(name, { state: 'connecting', lastError: null, attempt: 0 })
    }
    this.drain()
  }

  /**
   * Starts the queued servers, one per turn of the event loop (setImmediate): spawning a process
   * blocks for a few ms, and 70 spawns in one go kept the process from answering `initialize`
   * for seconds. All of them still start at once: none waits for another to connect.
   */
  private drain(): void {
    if (this.draining || this.stopped) return
    const next = this.queued.entries().next()
    if (next.done) return
    this.draining = true
    setImmediate(() => {
      this.draining = false
      const [name, cfg] = next.value
      if (this.stopped || this.queued.get(name) !== cfg) return this.drain()
      this.queued.delete(name)
      this.start(cfg)
      this.drain()
    })
  }

  /**
   * Servers resolve their secrets from `secrets` when they start; a secret that is set, changed
   * or removed restarts the running servers that use it (one waiting in `error` for it too).
   */
  attachSecrets(secrets: Secrets): () => void {
    this.references = { secret: (name) => secrets.get(name), env: process.env }
    return secrets.onChange((names) => {
      for (const [name, { up }] of this.running) {
        if (!secretsUsedBy(up.config).some((n) => names.includes(n))) continue
        this.logger.info({ server: name, secrets: names }, 'a secret it uses changed; restarting')
        void up.restart().catch((e: unknown) => this.logger.warn({ server: name, err: String(e) }, 'restart failed'))
      }
    })
  }

  /**
   * HTTP servers sign in through `oauth`: a completed sign-in or a sign-out restarts the server,
   * which then connects with its new tokens (or finds it needs sign-in again).
   */
  attachOAuth(oauth: OAuthService): () => void {
    this.oauth = oauth
    const restart = (server: string): void => {
      const r = this.running.get(server)
      if (!r) return
      this.logger.info({ server }, 'sign-in changed; reconnecting')
      void r.up.restart().catch((e: unknown) => this.logger.warn({ server, err: String(e) }, 'restart failed'))
    }
    oauth.on('signedIn', restart)
    oauth.on('signedOut', restart)
    return () => {
      oauth.off('signedIn', restart)
      oauth.off('signedOut', restart)
    }
  }

  /** The OAuth sessions for Inspect (a quarantined HTTP server is listed only after sign-in). */
  get authSessions(): OAuthService | undefined {
    return this.oauth
  }

  private start(cfg: ServerConfig): void {
    const up = new Upstream(cfg, {
      logger: this.logger.child({ server: cfg.name }),
      limits: this.limits(),
      references: this.references,
      ...(this.oauth ? { oauth: this.oauth } : {}),
      ...(this.sandbox ? { sandbox: { ctx: this.sandbox, mode: 'run' as const } } : {}),
      launchCheck: (resolved) => this.launchCheck(resolved),
    })
    const entry = { up, key: canonicalJson(cfg), ready: false }
    this.running.set(cfg.name, entry)
    const current = (): boolean => this.running.get(cfg.name)?.up === up
    up.on('state', () => {
      if (current()) this.connections.set(cfg.name, { state: up.state, lastError: up.lastError, attempt: up.attempt, protocolVersion: up.protocolVersion })
    })
    up.on('tools', (tools: ToolDefinition[]) => {
      if (!current()) return
      this.inflight++
      ingestTools(this.catalog, cfg.name, tools)
        .catch((e: unknown) => this.logger.error({ server: cfg.name, err: String(e) }, 'could not record tool approvals'))
        .finally(() => this.inflight--)
      // ingestTools puts the tools (and their baseline approval) into the catalog before its first
      // await; only the state file write is still running: callers need not wait for the disk.
      entry.ready = true
    })
    up.on('prompts', (prompts: PromptDefinition[]) => {
      if (!current()) return
      this.inflight++
      ingestPrompts(this.catalog, cfg.name, prompts)
        .catch((e: unknown) => this.logger.error({ server: cfg.name, err: String(e) }, 'could not record prompt approvals'))
        .finally(() => this.inflight--)
    })
    up.on('resourceUpdated', (uri: string) => {
      if (current()) this.subscriptions.deliver(cfg.name, uri)
    })
    const wanted = this.subscriptions.uris(cfg.name)
    if (wanted.size > 0) up.setResourceSubscriptions(wanted)
    this.connections.set(cfg.name, { state: 'connecting', lastError: null, attempt: 0 })
    up.start()
  }

  /**
   * True while a server that should run has not finished its first start: queued, or connecting
   * for the first time and its tools not yet in the catalog. A server whose first attempt failed
   * (reconnecting, or in error) is not starting: callers do not wait for it.
   */
  isStarting(name: string): boolean {
    if (this.queued.has(name)) return true
    const r = this.running.get(name)
    if (!r || r.ready) return false
    return r.up.state === 'connecting' ? r.up.attempt === 0 : r.up.state === 'connected'
  }

  /** The servers (of `names`, default all) still starting. */
  starting(names?: Iterable<string>): string[] {
    const all = names ? [...names] : [...this.queued.keys(), ...this.running.keys()]
    return all.filter((n) => this.isStarting(n))
  }

  /** Waits until none of `names` is starting, at most `boundMs`; returns those still starting. */
  async waitStarted(names: Iterable<string>, boundMs = STARTING_WAIT_MS): Promise<string[]> {
    const list = [...names]
    const deadline = Date.now() + boundMs
    let left = this.starting(list)
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20))
      left = this.starting(left)
    }
    return left
  }

  get(name: string): Upstream | undefined {
    return this.running.get(name)?.up
  }

  async restart(name: string): Promise<boolean> {
    const r = this.running.get(name)
    if (!r) return false
    await r.up.restart()
    return true
  }

  /** Resolves when every running upstream is connected or has failed (or the timeout passes). */
  async settled(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      const pending =
        this.queued.size > 0 || [...this.running.values()].some(({ up }) => up.state === 'connecting' || (up.state === 'connected' && up.tools === null))
      if (!pending && this.inflight === 0) return
      await new Promise((r) => setTimeout(r, 25))
    }
  }

  async stopAll(): Promise<void> {
    this.stopped = true
    this.queued.clear()
    const all = [...this.running.values()]
    this.running.clear()
    await Promise.allSettled(all.map(({ up }) => up.stop()))
  }
}
