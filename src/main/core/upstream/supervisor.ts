// The supervision of one upstream server's connection, a state machine: it connects in the
// background, restarts with exponential backoff after a crash/exit/close or a failed health ping
// (HTTP), and trips a crash-loop breaker (state 'error') after too many consecutive failures or at
// once where no retry can help (a missing secret, the organisation's policy, a refused OAuth, a
// sandbox plan that refuses the launch). An
// HTTP server that needs the user to sign in (OAuth) waits in 'needs_auth' without retrying.
// One attempt to connect is attempt.ts's. Upstream (upstream.ts) is its face: it serves the live
// connection this keeps.
import type { ServerConfig } from '../../../shared/config-schema'
import type { Logger } from '../log'
import { describeTarget, makeRedactor } from '../masking/target'
import { launchSecrets, SecretMask } from '../masking/secret-mask'
import type { UpstreamAuth } from '../oauth/session'
import { Backoff } from './backoff'
import type { ConnectionHooks, UpstreamConnection } from './connection'
import { attemptConnection } from './attempt'
import { errorText } from './sdk-errors'
import type { ToolListing } from './tools'
import { DEFAULT_BACKOFF, DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_PING_INTERVAL_MS, DEFAULT_STABLE_MS } from './types'
import type { BackoffOptions, TransportKind, UpstreamOptions, UpstreamState } from './types'

/** Upper bound for a health ping of an HTTP upstream. */
const MAX_PING_TIMEOUT_MS = 10_000

/** What the supervisor tells the Upstream it supervises for. */
export interface SupervisorHost {
  /** the connection's notifications other than its close and its tools/list_changed */
  readonly hooks: Omit<ConnectionHooks, 'onClosed' | 'onToolListChanged'>
  /** start() begins supervising (it was not running) */
  starting(): void
  /** state, lastError, attempt or the protocol version changed */
  stateChanged(): void
  /** the first tools/list of a connection that is about to be live */
  listed(listing: ToolListing): void
  /** the connection is live (state 'connected'); `relist`: its tools changed while it opened */
  opened(conn: UpstreamConnection, relist: boolean): void
  /** the live connection said its tools changed */
  toolsChanged(conn: UpstreamConnection): void
  /** the live connection is gone (`conn`), or supervision stopped (null) */
  lost(conn: UpstreamConnection | null): void
}

export class Supervisor {
  readonly connectTimeoutMs: number
  private readonly backoffOpts: BackoffOptions
  private readonly backoff: Backoff
  private readonly stableMs: number
  private readonly pingIntervalMs: number
  private _redact: (text: string) => string
  private _mask: SecretMask

  private _state: UpstreamState = 'stopped'
  private _lastError: string | null = null
  private _attempt = 0
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
  private pinging = false
  private retryTimer: NodeJS.Timeout | undefined
  private stableTimer: NodeJS.Timeout | undefined
  private pingTimer: NodeJS.Timeout | undefined
  /** state/attempt/lastError as last announced, to emit 'state' only on change */
  private emitted = ''

  constructor(
    private readonly config: ServerConfig,
    private readonly opts: UpstreamOptions,
    private readonly log: Logger,
    private readonly host: SupervisorHost,
  ) {
    this.connectTimeoutMs = opts.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS
    this.backoffOpts = opts.backoff ?? DEFAULT_BACKOFF
    this.backoff = new Backoff(this.backoffOpts)
    this.stableMs = opts.stableMs ?? DEFAULT_STABLE_MS
    this.pingIntervalMs = opts.pingIntervalMs ?? DEFAULT_PING_INTERVAL_MS
    this._mask = new SecretMask(launchSecrets(config))
    this._redact = makeRedactor(config)
  }

  /** This server's secrets (resolved references and OAuth tokens included), as of its last launch. */
  get mask(): SecretMask {
    return this._mask
  }

  /** Masks this server's secrets (as of its last launch) in a message. */
  redact(text: string): string {
    return this._redact(text)
  }

  get state(): UpstreamState {
    return this._state
  }

  get lastError(): string | null {
    return this._lastError
  }

  get attempt(): number {
    return this._attempt
  }

  get protocolVersion(): string | null {
    return this._protocolVersion
  }

  /** The live connection (state 'connected'), or null. */
  get live(): UpstreamConnection | null {
    return this.conn
  }

  /** The live connection, else the one being opened. */
  get current(): UpstreamConnection | null {
    return this.conn ?? this.opening
  }

  start(): void {
    if (this.running) return
    this.running = true
    this.backoff.reset()
    this._attempt = 0
    this._lastError = null
    this.host.starting()
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
    this.host.lost(null)
    this._attempt = 0
    return conns
  }

  async stop(): Promise<void> {
    const conns = this.halt()
    this.setState('stopped', null)
    if (conns.length > 0) this.log.info('stopping upstream')
    await Promise.all(conns.map((c) => c.close()))
  }

  /** The next start tries every transport of the config again. */
  forgetTransport(): void {
    this.kinds = undefined
  }

  // ---- connecting -------------------------------------------------------------------------

  private connect(gen: number): void {
    this.setState('connecting', this._lastError)
    this.connectOnce(gen).catch((err: unknown) => {
      // connectOnce handles its own failures; this is a last line of defense.
      this.log.error({ err: this._redact(errorText(err)) }, 'unexpected error while connecting')
      if (gen === this.gen) this.onFailure(errorText(err))
    })
  }

  private async connectOnce(gen: number): Promise<void> {
    const started = Date.now()
    const attempt = await attemptConnection({
      config: this.config,
      opts: this.opts,
      log: this.log,
      hooks: {
        ...this.host.hooks,
        onClosed: (c, reason) => this.onConnectionClosed(c, reason),
        onToolListChanged: (c) => this.onToolListChanged(c),
      },
      timeoutMs: this.connectTimeoutMs,
      kinds: this.kinds,
      redact: this._redact,
      isCancelled: () => gen !== this.gen,
      launched: (mask, redact) => {
        this._mask = mask
        this._redact = redact
      },
      auth: (config) => this.authSession(config, gen),
      opening: (c) => {
        this.opening = c
      },
      listing: (c) => {
        this.opening = c
        this.relistOnOpen = false
      },
    })
    if (gen !== this.gen) {
      // started or stopped again while the attempt ended
      if (attempt.outcome === 'open') await attempt.conn.close()
      return
    }
    if (attempt.outcome === 'cancelled') return
    if (attempt.outcome === 'unlaunchable') {
      this.running = false
      this._attempt = 0
      this.log.error(attempt.log)
      this.setState('error', attempt.error)
      return
    }
    if (attempt.outcome === 'refused') return this.giveUp(attempt.message)
    if (attempt.outcome === 'failed') return this.onFailure(attempt.reason)
    const { conn, listing } = attempt
    this.conn = conn
    this.kinds = [conn.kind]
    this._attempt = 0
    this._protocolVersion = conn.protocolVersion
    this.log.info(
      { transport: conn.kind, protocol: conn.protocolVersion, pid: conn.pid ?? undefined, tools: listing.tools.length, ms: Date.now() - started },
      'upstream connected',
    )
    this.host.listed(listing)
    this.setState('connected', warningText(listing))
    this.stableTimer = setTimeout(() => this.backoff.reset(), this.stableMs).unref()
    if (conn.kind !== 'stdio' && this.pingIntervalMs > 0) {
      this.pingTimer = setInterval(() => void this.checkHealth(conn), this.pingIntervalMs).unref()
    }
    this.host.opened(conn, this.relistOnOpen)
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
    this.log.error(`upstream cannot connect: ${this._redact(reason)}`)
    this.setState('error', this._redact(reason))
    for (const c of conns) void c.close()
  }

  /** No retries: only a sign-in helps (it restarts this upstream). Calls answer the sign-in sentence. */
  private enterNeedsAuth(reason: string): void {
    if (!this.running) return
    const conns = this.halt()
    this.log.warn(`upstream needs sign-in: ${this._redact(reason)}`)
    this.setState('needs_auth', this._redact(reason))
    for (const c of conns) void c.close()
  }

  /** A failure no retry can fix: state error at once. */
  private giveUp(reason: string): void {
    if (!this.running) return
    this.running = false
    this._attempt = 0
    const text = this._redact(reason)
    this.log.error(`upstream cannot connect: ${text}`)
    this.setState('error', text)
  }

  private onConnectionClosed(conn: UpstreamConnection, reason: string): void {
    if (conn === this.opening) return // the opening flow sees the failure itself
    if (conn !== this.conn) return
    this.dropConnection(conn)
    this.log.warn(`upstream disconnected: ${this._redact(reason)}`)
    this.onFailure(reason)
  }

  private dropConnection(conn: UpstreamConnection): void {
    this.conn = null
    this.host.lost(conn)
    clearTimeout(this.stableTimer)
    clearInterval(this.pingTimer)
    this.stableTimer = undefined
    this.pingTimer = undefined
    void conn.close() // reap the process / abort HTTP streams; never rejects
  }

  /** Count a failure; schedule the next attempt or trip the breaker. */
  private onFailure(rawReason: string): void {
    if (!this.running) return
    const reason = this._redact(rawReason)
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

  // ---- health (HTTP) -----------------------------------------------------------------------

  /** A failed request is the hint to check an HTTP connection: a failed ping drops it and counts as a failure. */
  async checkHealth(conn: UpstreamConnection): Promise<void> {
    if (conn !== this.conn || this.pinging) return
    this.pinging = true
    try {
      await conn.ping(Math.min(this.connectTimeoutMs, MAX_PING_TIMEOUT_MS))
    } catch (err) {
      if (conn !== this.conn) return
      const reason = this._redact(`health check failed: ${errorText(err)}`)
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
    this.host.stateChanged()
  }

  private onToolListChanged(conn: UpstreamConnection): void {
    if (conn === this.opening) {
      this.relistOnOpen = true
      return
    }
    if (conn !== this.conn) return
    this.host.toolsChanged(conn)
  }

  /** The live connection's tool list came with warnings (or none now): the state's lastError says so. */
  noteWarning(text: string | null): void {
    if (this._state === 'connected') this.setState('connected', text)
  }
}

/** The warnings of a tool list, as a connected server's lastError. */
export function warningText(listing: ToolListing): string | null {
  return listing.warnings.length > 0 ? `warning: ${listing.warnings.join('; ')}` : null
}
