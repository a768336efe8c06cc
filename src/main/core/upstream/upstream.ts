// Upstream: one configured MCP server, supervised. Connects in the background, re-lists tools on
// list_changed, restarts with exponential backoff after a crash/exit/close, and trips a
// crash-loop breaker (state 'error') after too many consecutive failures. An HTTP server that
// needs the user to sign in (OAuth) waits in 'needs_auth' without retrying.
import { EventEmitter } from 'node:events'
import type { CallToolResult, Progress } from '@modelcontextprotocol/client'
import type { ServerConfig } from '../../../shared/config-schema'
import type { Logger } from '../log'
import { Backoff } from './backoff'
import type { ConnectionHooks, UpstreamConnection } from './connection'
import { openConnection } from './open'
import { errorText } from './sdk-errors'
import { Relister } from './relist'
import { ListedOn } from './listed-on'
import { describeTarget, makeRedactor } from '../masking/target'
import { launchSecrets, SecretMask } from '../masking/secret-mask'
import { resolveReferences } from '../secrets/resolve'
import { serverLogger } from './log'
import type { ToolListing } from './tools'
import type { CallAsker } from './server-requests'
import { DEFAULT_BACKOFF, DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_PING_INTERVAL_MS, DEFAULT_STABLE_MS, UpstreamCallError } from './types'
import type { BackoffOptions, TransportKind, UpstreamOptions, UpstreamState } from './types'
import type { ToolDefinition } from '../../../shared/tool-definition'
import type { PromptDefinition } from '../../../shared/prompts'
import type { RelayMethod } from './calls'
import type { LogOwner } from './request-logs'
import type { ServerCapabilities } from '@modelcontextprotocol/client'
import { signInMessage } from '../../../shared/statuses'
import { refusal } from '../oauth/errors'
import type { UpstreamAuth } from '../oauth/session'

export type { UpstreamLimits, UpstreamOptions, UpstreamState } from './types'
export { UpstreamCallError } from './types'

export interface UpstreamEvents {
  /** state, lastError or attempt changed */
  state: []
  /** a tools/list finished (on connect and after notifications/tools/list_changed) */
  tools: [tools: ToolDefinition[]]
  /** a prompts/list finished (after connect and after notifications/prompts/list_changed) */
  prompts: [prompts: PromptDefinition[]]
  /** the server said a resource Toolgate subscribed to changed (its own URI) */
  resourceUpdated: [uri: string]
  /** the server said its list of resources changed (notifications/resources/list_changed) */
  resourcesListChanged: []
  /** the last request in flight (a call, a relayed request) finished: the idle clock starts again */
  used: []
  /** the server sent a log message (notifications/message), masked */
  log: [params: { level?: unknown; logger?: unknown; data?: unknown }, request: object | null]
}

/** Upper bound for a health ping of an HTTP upstream. */
const MAX_PING_TIMEOUT_MS = 10_000

export class Upstream extends EventEmitter<UpstreamEvents> {
  readonly name: string
  private readonly log: Logger
  private readonly connectTimeoutMs: number
  private readonly backoffOpts: BackoffOptions
  private readonly backoff: Backoff
  private readonly stableMs: number
  private readonly pingIntervalMs: number
  private redact: (text: string) => string
  private _mask: SecretMask

  private _state: UpstreamState = 'stopped'
  private _lastError: string | null = null
  private _attempt = 0
  private _tools: ToolDefinition[] | null = null
  private _protocolVersion: string | null = null

  /** bumped by start/stop: work started under an older generation is abandoned */
  private gen = 0
  private running = false
  /** the live connection (state 'connected') */
  private conn: UpstreamConnection | null = null
  /** a connection being opened (state 'connecting') */
  private opening: UpstreamConnection | null = null
  /** once `auto` found a working transport, reconnects use it */
  private kinds: TransportKind[] | undefined
  private relistOnOpen = false
  /** tools/list and prompts/list after list_changed, coalesced (relist.ts); one pair per live connection */
  private relists: { conn: UpstreamConnection; tools: Relister; prompts: Relister } | null = null
  private _prompts: PromptDefinition[] | null = null
  /** which connection's prompts were listed (promptsListed) */
  private readonly promptsListedOn = new ListedOn<UpstreamConnection>()
  /** the server's URIs agents subscribed to (through Toolgate), applied in order */
  private resourceSubscriptions = new Set<string>()
  private subscribing: Promise<void> = Promise.resolve()
  private pinging = false
  private retryTimer: NodeJS.Timeout | undefined
  private stableTimer: NodeJS.Timeout | undefined
  private pingTimer: NodeJS.Timeout | undefined
  /** state/attempt/lastError as last announced, to emit 'state' only on change */
  private emitted = ''
  /** agents' requests in flight (calls and relayed requests): a server busy with one is never idle */
  private _busy = 0
  /** when the last request finished, or the server started (Date.now()) */
  private _lastUsedAt = Date.now()

  constructor(
    readonly config: ServerConfig,
    private readonly opts: UpstreamOptions,
  ) {
    super()
    this.name = config.name
    this.log = serverLogger(opts.logger, config.name)
    this.connectTimeoutMs = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS
    this.backoffOpts = opts.backoff ?? DEFAULT_BACKOFF
    this.backoff = new Backoff(this.backoffOpts)
    this.stableMs = opts.stableMs ?? DEFAULT_STABLE_MS
    this.pingIntervalMs = opts.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS
    this._mask = new SecretMask(launchSecrets(config))
    this.redact = makeRedactor(config)
  }

  /** This server's secrets (resolved references and OAuth tokens included), to mask them in what agents and files get. */
  get mask(): SecretMask {
    return this._mask
  }

  get state(): UpstreamState {
    return this._state
  }

  get lastError(): string | null {
    return this._lastError
  }

  /** Reconnect attempt number while reconnecting; 0 when connected or on the first connect. */
  get attempt(): number {
    return this._attempt
  }

  /** The protocol version the server last agreed to ("2025-11-25", "2026-07-28"); kept while reconnecting and after stop(). */
  get protocolVersion(): string | null {
    return this._protocolVersion
  }

  /** The last tool list received; kept while reconnecting and after stop(). */
  get tools(): ToolDefinition[] | null {
    return this._tools
  }

  /** The last prompt list received (null before the first one). */
  get prompts(): PromptDefinition[] | null {
    return this._prompts
  }

  /** What the connected server declared it offers; undefined when not connected. */
  get capabilities(): ServerCapabilities | undefined {
    return this.conn?.capabilities
  }

  /** Relays an agent's request to the connected server (see UpstreamConnection.relay). */
  async relay(
    method: RelayMethod,
    params: Record<string, unknown>,
    opts: { timeoutMs: number; signal?: AbortSignal; label: string; owner?: LogOwner },
  ): Promise<Record<string, unknown>> {
    const conn = this.conn
    if (this._state === 'needs_auth') throw new UpstreamCallError('needs_auth', signInMessage(this.name), this.name, opts.label)
    if (this._state !== 'connected' || conn === null || !conn.isOpen) {
      throw new UpstreamCallError('not_connected', `server "${this.name}" is not connected (${this.whyNotConnected()})`, this.name, opts.label)
    }
    return this.inFlight(() => conn.relay(method, params, opts))
  }

  /** Requests in flight now (calls and relayed requests). */
  get busy(): number {
    return this._busy
  }

  /** When the server was last used: the end of its last request, or its start (Date.now() ms). */
  get lastUsedAt(): number {
    return this._busy > 0 ? Date.now() : this._lastUsedAt
  }

  /** Marks the server used now (a lease ended, an Inspect looked at it): the idle clock starts again. */
  touch(): void {
    this._lastUsedAt = Date.now()
  }

  /** Counts a request in flight for the idle clock (lifecycle on_demand). */
  private async inFlight<T>(work: () => Promise<T>): Promise<T> {
    this._busy++
    try {
      return await work()
    } finally {
      this._busy--
      this._lastUsedAt = Date.now()
      if (this._busy === 0) this.safeEmit('used')
    }
  }

  /** pid of the stdio child of the live (or opening) connection, for diagnostics and tests. */
  get pid(): number | null {
    return (this.conn ?? this.opening)?.pid ?? null
  }

  /** The transport in use ('stdio' | 'streamable-http' | 'sse'), null when not connected. */
  get transportKind(): TransportKind | null {
    return this.conn?.kind ?? null
  }

  start(): void {
    if (this.running) return
    this.running = true
    this.backoff.reset()
    this._attempt = 0
    this._lastError = null
    this._lastUsedAt = Date.now()
    const gen = ++this.gen
    this.log.info({ target: describeTarget(this.config) }, 'starting upstream')
    this.connect(gen)
  }

  /** Stops supervising: no timers, no retries; returns the connections to close. */
  private halt(): UpstreamConnection[] {
    this.gen++
    this.running = false
    this.clearTimers()
    const conns = [this.conn, this.opening].filter((c): c is UpstreamConnection => c !== null)
    this.conn = null
    this.opening = null
    this.stopRelists()
    this.promptsListedOn.wake()
    this._attempt = 0
    return conns
  }

  async stop(): Promise<void> {
    const conns = this.halt()
    this.setState('stopped', null)
    if (conns.length > 0) this.log.info('stopping upstream')
    await Promise.all(conns.map((c) => c.close()))
  }

  async restart(): Promise<void> {
    await this.stop()
    this.kinds = undefined
    this.start()
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    opts: { timeoutMs: number; signal?: AbortSignal; onProgress?: (p: Progress) => void; asker?: CallAsker; owner?: LogOwner },
  ): Promise<CallToolResult> {
    const conn = this.conn
    if (this._state === 'needs_auth') throw new UpstreamCallError('needs_auth', signInMessage(this.name), this.name, name)
    if (this._state !== 'connected' || conn === null || !conn.isOpen) {
      throw new UpstreamCallError('not_connected', `server "${this.name}" is not connected (${this.whyNotConnected()})`, this.name, name)
    }
    try {
      return await this.inFlight(() => conn.callTool(name, args, opts))
    } catch (err) {
      // the server asked for a sign-in while answering (a refused renewal, a step-up): say so, not the transport error
      if (this.state === 'needs_auth') throw new UpstreamCallError('needs_auth', signInMessage(this.name), this.name, name)
      // its OAuth was refused while answering (a step-up loop): the reason, not the transport error
      if (this.state === 'error') {
        throw new UpstreamCallError('not_connected', `server "${this.name}" is not connected (${this.whyNotConnected()})`, this.name, name)
      }
      // HTTP has no process to watch: a failed request is the hint to check the connection.
      if (err instanceof UpstreamCallError && err.code === 'transport_error' && conn.kind !== 'stdio') {
        void this.checkHealth(conn)
      }
      throw err
    }
  }

  private whyNotConnected(): string {
    switch (this._state) {
      case 'stopped':
        return 'stopped'
      case 'error':
        return `state: error: ${this._lastError ?? 'unknown error'}`
      case 'connecting':
        return this._attempt > 0 ? `reconnecting, attempt ${this._attempt}` : 'connecting'
      case 'connected':
        return 'connection lost'
      case 'needs_auth':
        return `needs sign-in: ${this._lastError ?? ''}`
    }
  }

  // ---- connecting -------------------------------------------------------------------------

  private connect(gen: number): void {
    this.setState('connecting', this._lastError)
    this.connectOnce(gen).catch((err: unknown) => {
      // connectOnce handles its own failures; this is a last line of defense.
      this.log.error({ err: this.redact(errorText(err)) }, 'unexpected error while connecting')
      if (gen === this.gen) this.onFailure(errorText(err))
    })
  }

  private async connectOnce(gen: number): Promise<void> {
    const started = Date.now()
    const hooks: ConnectionHooks = {
      onClosed: (c, reason) => this.onConnectionClosed(c, reason),
      onToolListChanged: (c) => this.onToolListChanged(c),
      onPromptListChanged: (c) => this.onPromptListChanged(c),
      onLogMessage: (c, params, request) => {
        if (c !== this.conn) return
        try {
          this.emit('log', params, request)
        } catch (err) {
          this.log.error({ event: 'log', err: errorText(err) }, 'an upstream event listener threw')
        }
      },
      onResourceUpdated: (c, uri) => {
        if (c !== this.conn) return
        try {
          this.emit('resourceUpdated', uri)
        } catch (err) {
          this.log.error({ event: 'resourceUpdated', err: errorText(err) }, 'an upstream event listener threw')
        }
      },
      onResourceListChanged: (c) => {
        if (c !== this.conn) return
        try {
          this.emit('resourcesListChanged')
        } catch (err) {
          this.log.error({ event: 'resourcesListChanged', err: errorText(err) }, 'an upstream event listener threw')
        }
      },
    }
    // ${secret:…}/${env:…} are resolved here, for this connection only; a missing one is an
    // error naming it (retrying cannot help: setting the secret restarts the server)
    const resolved = resolveReferences(this.config, this.opts.references)
    if (!resolved.ok) {
      if (gen !== this.gen) return
      this.running = false
      this._attempt = 0
      this.log.error(`upstream cannot start: ${resolved.error}`)
      this.setState('error', resolved.error)
      return
    }
    // the organisation's policy judges what will run, references resolved
    const blocked = this.opts.launchCheck?.(resolved.config) ?? null
    if (blocked) {
      if (gen !== this.gen) return
      this.running = false
      this._attempt = 0
      this.log.error(`upstream may not start: ${this.redact(blocked)}`)
      this.setState('error', this.redact(blocked))
      return
    }
    // the resolved entry: values read through ${env:…} are masked like the rest of env, headers and the URL
    const mask = new SecretMask(launchSecrets(resolved.config, resolved.secretValues))
    this._mask = mask
    this.redact = makeRedactor(resolved.config, resolved.secretValues, mask)
    const auth = this.authSession(resolved.config, gen)
    let conn: UpstreamConnection
    try {
      conn = await openConnection(
        resolved.config,
        {
          logger: this.log,
          limits: this.opts.limits,
          timeoutMs: this.connectTimeoutMs,
          kinds: this.kinds,
          sandbox: this.opts.sandbox,
          secretValues: resolved.secretValues,
          auth,
          mask,
        },
        hooks,
        {
          isCancelled: () => gen !== this.gen,
          onCreated: (c) => {
            if (gen === this.gen) this.opening = c
          },
        },
      )
    } catch (err) {
      if (gen !== this.gen) return
      this.opening = null
      // no sign-in and no retry can help (its OAuth setup is refused): state error at once, with why
      const refused = refusal(err)
      if (refused) return this.giveUp(refused.message)
      this.onFailure(errorText(err))
      return
    }
    if (gen !== this.gen) {
      await conn.close()
      return
    }
    this.opening = conn
    this.relistOnOpen = false
    let listing: ToolListing
    try {
      listing = await conn.listTools(this.connectTimeoutMs)
    } catch (err) {
      const why = conn.reason ?? errorText(err) // before close(), which kills the process
      await conn.close()
      if (gen !== this.gen) return
      this.opening = null
      this.onFailure(`tools/list failed: ${why}`)
      return
    }
    if (gen !== this.gen) {
      await conn.close()
      return
    }
    this.opening = null
    if (!conn.isOpen) {
      this.onFailure(conn.reason ?? 'connection closed right after connecting')
      return
    }
    this.conn = conn
    this.kinds = [conn.kind]
    this._attempt = 0
    this._protocolVersion = conn.protocolVersion
    this.log.info(
      { transport: conn.kind, protocol: conn.protocolVersion, pid: conn.pid ?? undefined, tools: listing.tools.length, ms: Date.now() - started },
      'upstream connected',
    )
    this.applyListing(listing, false)
    this.setState('connected', warningText(listing))
    this.stableTimer = setTimeout(() => this.backoff.reset(), this.stableMs).unref()
    if (conn.kind !== 'stdio' && this.pingIntervalMs > 0) {
      this.pingTimer = setInterval(() => void this.checkHealth(conn), this.pingIntervalMs).unref()
    }
    if (this.relistOnOpen) this.onToolListChanged(conn)
    this.onPromptListChanged(conn)
    if (this.resourceSubscriptions.size > 0) this.applySubscriptions()
  }

  /** The OAuth session of a new connection (HTTP); when it finds the server needs sign-in, the state says so. */
  private authSession(config: ServerConfig, gen: number): UpstreamAuth | null {
    const auth = this.opts.oauth?.sessionFor(config) ?? null
    if (auth) {
      auth.onNeedsSignIn = (err) => gen === this.gen && this.enterNeedsAuth(err.reason)
      auth.onRefused = (err) => gen === this.gen && this.enterRefused(err.message)
    }
    return auth
  }

  /** The server's OAuth was refused (no sign-in or retry can help): state error at once, the connection closed. */
  private enterRefused(reason: string): void {
    if (!this.running) return
    const conns = this.halt()
    this.log.error(`upstream cannot connect: ${this.redact(reason)}`)
    this.setState('error', this.redact(reason))
    for (const c of conns) void c.close()
  }

  /** No retries: only a sign-in helps (it restarts this upstream). Calls answer the sign-in sentence. */
  private enterNeedsAuth(reason: string): void {
    if (!this.running) return
    const conns = this.halt()
    this.log.warn(`upstream needs sign-in: ${this.redact(reason)}`)
    this.setState('needs_auth', this.redact(reason))
    for (const c of conns) void c.close()
  }

  /** A failure no retry can fix: state error at once. */
  private giveUp(reason: string): void {
    if (!this.running) return
    this.running = false
    this._attempt = 0
    const text = this.redact(reason)
    this.log.error(`upstream cannot connect: ${text}`)
    this.setState('error', text)
  }

  private onConnectionClosed(conn: UpstreamConnection, reason: string): void {
    if (conn === this.opening) return // the opening flow sees the failure itself
    if (conn !== this.conn) return
    this.dropConnection(conn)
    this.log.warn(`upstream disconnected: ${this.redact(reason)}`)
    this.onFailure(reason)
  }

  private dropConnection(conn: UpstreamConnection): void {
    this.conn = null
    this.promptsListedOn.wake()
    if (this.relists?.conn === conn) this.stopRelists()
    clearTimeout(this.stableTimer)
    clearInterval(this.pingTimer)
    this.stableTimer = undefined
    this.pingTimer = undefined
    void conn.close() // reap the process / abort HTTP streams; never rejects
  }

  /** Count a failure; schedule the next attempt or trip the breaker. */
  private onFailure(rawReason: string): void {
    if (!this.running) return
    const reason = this.redact(rawReason)
    const delay = this.backoff.fail()
    if (delay === null) {
      const n = this.backoff.count
      this.running = false
      this._attempt = 0
      this.log.error(`upstream failed ${n} time(s) in a row, giving up until restarted: ${reason}`)
      this.setState('error', `${reason} (gave up after ${n} consecutive failures; restart the server to retry)`)
      return
    }
    this._attempt = this.backoff.count
    this.log.warn(
      { attempt: this._attempt, delayMs: delay },
      `upstream connection failed (${reason}); retrying in ${delay} ms (attempt ${this._attempt} of ${this.backoffOpts.maxAttempts - 1})`,
    )
    this.setState('connecting', reason)
    const gen = this.gen
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined
      if (gen === this.gen && this.running) this.connect(gen)
    }, delay).unref()
  }

  // ---- tools --------------------------------------------------------------------------------

  /** The re-listers of the live connection (made on first use). */
  private relistsOf(conn: UpstreamConnection): { tools: Relister; prompts: Relister } {
    if (this.relists?.conn === conn) return this.relists
    this.stopRelists()
    const fail = (what: string) => (err: unknown) => {
      if (conn === this.conn) this.log.warn(`${what} failed: ${this.redact(errorText(err))}`)
    }
    this.relists = {
      conn,
      tools: new Relister(() => this.refreshTools(conn), fail('tools/list after list_changed'), this.opts.relistGapMs),
      prompts: new Relister(() => this.refreshPrompts(conn), fail('prompts/list'), this.opts.relistGapMs),
    }
    return this.relists
  }

  private stopRelists(): void {
    this.relists?.tools.stop()
    this.relists?.prompts.stop()
    this.relists = null
  }

  private onToolListChanged(conn: UpstreamConnection): void {
    if (conn === this.opening) {
      this.relistOnOpen = true
      return
    }
    if (conn !== this.conn) return
    this.relistsOf(conn).tools.request()
  }

  private async refreshTools(conn: UpstreamConnection): Promise<void> {
    const listing = await conn.listTools(this.connectTimeoutMs)
    if (conn === this.conn) this.applyListing(listing, true)
  }

  // ---- resource subscriptions ---------------------------------------------------------------

  /** Asks the server for notifications/resources/updated of `uri` (its own URI) while subscribed; kept across reconnects. */
  setResourceSubscriptions(uris: ReadonlySet<string>): void {
    this.resourceSubscriptions = new Set(uris)
    this.applySubscriptions()
  }

  private applySubscriptions(): void {
    const conn = this.conn
    if (!conn) return
    const uris = [...this.resourceSubscriptions]
    this.subscribing = this.subscribing
      .then(() => (conn === this.conn ? conn.setResourceSubscriptions(uris, this.connectTimeoutMs) : undefined))
      .catch((err: unknown) => this.log.warn(`resource subscriptions failed: ${this.redact(errorText(err))}`))
  }

  // ---- prompts ------------------------------------------------------------------------------

  /** Lists the prompts again (a prompt answered other text than it listed); nothing when not connected. */
  relistPrompts(): void {
    if (this.conn) this.onPromptListChanged(this.conn)
  }

  /** Lists the prompts (after connect, and on notifications/prompts/list_changed), coalesced like tools. */
  private onPromptListChanged(conn: UpstreamConnection): void {
    if (conn !== this.conn) return
    this.relistsOf(conn).prompts.request()
  }

  private async refreshPrompts(conn: UpstreamConnection): Promise<void> {
    let listing: Awaited<ReturnType<UpstreamConnection['listPrompts']>>
    try {
      listing = await conn.listPrompts(this.connectTimeoutMs)
    } catch (err) {
      this.promptsListedOn.mark(conn, false)
      throw err
    }
    if (conn !== this.conn) return
    for (const w of listing.warnings) this.log.warn(`upstream ${w}`)
    this._prompts = listing.prompts
    try {
      this.emit('prompts', listing.prompts)
    } catch (err) {
      this.log.error({ event: 'prompts', err: errorText(err) }, 'an upstream event listener threw')
    }
    this.promptsListedOn.mark(conn, true)
  }

  /**
   * True once the prompts of the live connection are listed (the catalog has them); false when
   * not connected, the listing failed, or not within `timeoutMs`. A prompt request that started
   * the server gates the prompt again after this (a change while it was stopped shows only then).
   */
  promptsListed(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    return this.promptsListedOn.wait(() => this.conn, timeoutMs, signal)
  }

  private applyListing(listing: ToolListing, updateWarning: boolean): void {
    for (const w of listing.warnings) this.log.warn(`upstream ${w}`)
    this._tools = listing.tools
    this.safeEmit('tools', listing.tools)
    if (updateWarning && this._state === 'connected') this.setState('connected', warningText(listing))
  }

  // ---- health (HTTP) -----------------------------------------------------------------------

  private async checkHealth(conn: UpstreamConnection): Promise<void> {
    if (conn !== this.conn || this.pinging) return
    this.pinging = true
    try {
      await conn.ping(Math.min(this.connectTimeoutMs, MAX_PING_TIMEOUT_MS))
    } catch (err) {
      if (conn !== this.conn) return
      const reason = this.redact(`health check failed: ${errorText(err)}`)
      this.dropConnection(conn)
      this.log.warn(`upstream disconnected: ${reason}`)
      this.onFailure(reason)
    } finally {
      this.pinging = false
    }
  }

  // ---- plumbing -----------------------------------------------------------------------------

  private clearTimers(): void {
    clearTimeout(this.retryTimer)
    clearTimeout(this.stableTimer)
    clearInterval(this.pingTimer)
    this.retryTimer = this.stableTimer = this.pingTimer = undefined
  }

  private setState(state: UpstreamState, lastError: string | null): void {
    this._state = state
    this._lastError = lastError
    const now = `${state}\u0000${this._attempt}\u0000${lastError ?? ''}\u0000${this._protocolVersion ?? ''}`
    if (now === this.emitted) return
    this.emitted = now
    this.safeEmit('state')
  }

  /** A throwing listener must not break supervision. */
  private safeEmit(event: 'state' | 'used'): void
  private safeEmit(event: 'tools', tools: ToolDefinition[]): void
  private safeEmit(event: 'state' | 'used' | 'tools', tools?: ToolDefinition[]): void {
    try {
      if (event === 'tools') this.emit('tools', tools ?? [])
      else this.emit(event)
    } catch (err) {
      this.log.error({ event, err: errorText(err) }, 'an upstream event listener threw')
    }
  }
}

function warningText(listing: ToolListing): string | null {
  return listing.warnings.length > 0 ? `warning: ${listing.warnings.join('; ')}` : null
}
