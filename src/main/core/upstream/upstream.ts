// Upstream: one configured MCP server, supervised (supervisor.ts: connecting, backoff, the
// crash-loop breaker, sign-in), and what it serves while connected: agents' calls and relayed
// requests (counted for the idle clock), its tools and prompts re-listed on list_changed
// (coalesced, relist.ts), the resource subscriptions agents hold, and the events for all of it.
import { EventEmitter } from 'node:events'
import type { CallToolResult, Progress } from '@modelcontextprotocol/client'
import type { ServerConfig } from '../../../shared/config-schema'
import type { Logger } from '../log'
import type { UpstreamConnection } from './connection'
import { Relister } from './relist'
import { ListedOn } from './listed-on'
import type { SecretMask } from '../masking/secret-mask'
import { serverLogger } from './log'
import type { ToolListing } from './tools'
import type { CallAsker } from './server-requests'
import { UpstreamCallError } from './types'
import type { TransportKind, UpstreamOptions, UpstreamState } from './types'
import type { ToolDefinition } from '../../../shared/tool-definition'
import type { PromptDefinition } from '../../../shared/prompts'
import type { RelayMethod } from './calls'
import type { LogOwner } from './request-logs'
import type { ServerCapabilities } from '@modelcontextprotocol/client'
import { signInMessage } from '../../../shared/statuses'
import { errorText } from './sdk-errors'
import { Supervisor, warningText } from './supervisor'

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

export class Upstream extends EventEmitter<UpstreamEvents> {
  readonly name: string
  private readonly log: Logger
  /** the connection's supervision: its state, the live connection, this server's secrets mask */
  private readonly sup: Supervisor
  private _tools: ToolDefinition[] | null = null
  /** tools/list and prompts/list after list_changed, coalesced (relist.ts); one pair per live connection */
  private relists: { conn: UpstreamConnection; tools: Relister; prompts: Relister } | null = null
  private _prompts: PromptDefinition[] | null = null
  /** which connection's prompts were listed (promptsListed) */
  private readonly promptsListedOn = new ListedOn<UpstreamConnection>()
  /** the server's URIs agents subscribed to (through Toolgate), applied in order */
  private resourceSubscriptions = new Set<string>()
  private subscribing: Promise<void> = Promise.resolve()
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
    this.sup = new Supervisor(config, opts, this.log, {
      hooks: {
        onPromptListChanged: (c) => this.onPromptListChanged(c),
        onLogMessage: (c, params, request) => {
          if (c !== this.sup.live) return
          try {
            this.emit('log', params, request)
          } catch (err) {
            this.log.error({ event: 'log', err: errorText(err) }, 'an upstream event listener threw')
          }
        },
        onResourceUpdated: (c, uri) => {
          if (c !== this.sup.live) return
          try {
            this.emit('resourceUpdated', uri)
          } catch (err) {
            this.log.error({ event: 'resourceUpdated', err: errorText(err) }, 'an upstream event listener threw')
          }
        },
        onResourceListChanged: (c) => {
          if (c !== this.sup.live) return
          try {
            this.emit('resourcesListChanged')
          } catch (err) {
            this.log.error({ event: 'resourcesListChanged', err: errorText(err) }, 'an upstream event listener threw')
          }
        },
      },
      starting: () => {
        this._lastUsedAt = Date.now()
      },
      stateChanged: () => this.safeEmit('state'),
      listed: (listing) => this.applyListing(listing, false),
      opened: (conn, relist) => {
        if (relist) this.relistsOf(conn).tools.request()
        this.onPromptListChanged(conn)
        if (this.resourceSubscriptions.size > 0) this.applySubscriptions()
      },
      toolsChanged: (conn) => this.relistsOf(conn).tools.request(),
      lost: (conn) => {
        if (conn === null) this.stopRelists()
        this.promptsListedOn.wake()
        if (conn !== null && this.relists?.conn === conn) this.stopRelists()
      },
    })
  }

  /** This server's secrets (resolved references and OAuth tokens included), to mask them in what agents and files get. */
  get mask(): SecretMask {
    return this.sup.mask
  }

  get state(): UpstreamState {
    return this.sup.state
  }

  get lastError(): string | null {
    return this.sup.lastError
  }

  /** Reconnect attempt number while reconnecting; 0 when connected or on the first connect. */
  get attempt(): number {
    return this.sup.attempt
  }

  /** The protocol version the server last agreed to ("2025-11-25", "2026-07-28"); kept while reconnecting and after stop(). */
  get protocolVersion(): string | null {
    return this.sup.protocolVersion
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
    return this.sup.live?.capabilities
  }

  /** Relays an agent's request to the connected server (see UpstreamConnection.relay). */
  async relay(
    method: RelayMethod,
    params: Record<string, unknown>,
    opts: { timeoutMs: number; signal?: AbortSignal; label: string; owner?: LogOwner },
  ): Promise<Record<string, unknown>> {
    const conn = this.sup.live
    if (this.sup.state === 'needs_auth') throw new UpstreamCallError('needs_auth', signInMessage(this.name), this.name, opts.label)
    if (this.sup.state !== 'connected' || conn === null || !conn.isOpen) {
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
    return this.sup.current?.pid ?? null
  }

  /** The transport in use ('stdio' | 'streamable-http' | 'sse'), null when not connected. */
  get transportKind(): TransportKind | null {
    return this.sup.live?.kind ?? null
  }

  start(): void {
    this.sup.start()
  }

  stop(): Promise<void> {
    return this.sup.stop()
  }

  async restart(): Promise<void> {
    await this.stop()
    this.sup.forgetTransport()
    this.start()
  }

  async callTool(
    name: string,
    args: Record<string, unknown>,
    opts: { timeoutMs: number; signal?: AbortSignal; onProgress?: (p: Progress) => void; asker?: CallAsker; owner?: LogOwner },
  ): Promise<CallToolResult> {
    const conn = this.sup.live
    if (this.sup.state === 'needs_auth') throw new UpstreamCallError('needs_auth', signInMessage(this.name), this.name, name)
    if (this.sup.state !== 'connected' || conn === null || !conn.isOpen) {
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
        void this.sup.checkHealth(conn)
      }
      throw err
    }
  }

  private whyNotConnected(): string {
    switch (this.state) {
      case 'stopped':
        return 'stopped'
      case 'error':
        return `state: error: ${this.lastError ?? 'unknown error'}`
      case 'connecting':
        return this.attempt > 0 ? `reconnecting, attempt ${this.attempt}` : 'connecting'
      case 'connected':
        return 'connection lost'
      case 'needs_auth':
        return `needs sign-in: ${this.lastError ?? ''}`
    }
  }

  // ---- tools --------------------------------------------------------------------------------

  /** The re-listers of the live connection (made on first use). */
  private relistsOf(conn: UpstreamConnection): { tools: Relister; prompts: Relister } {
    if (this.relists?.conn === conn) return this.relists
    this.stopRelists()
    const fail = (what: string) => (err: unknown) => {
      if (conn === this.sup.live) this.log.warn(`${what} failed: ${this.sup.redact(errorText(err))}`)
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

  private async refreshTools(conn: UpstreamConnection): Promise<void> {
    const listing = await conn.listTools(this.sup.connectTimeoutMs)
    if (conn === this.sup.live) this.applyListing(listing, true)
  }

  // ---- resource subscriptions ---------------------------------------------------------------

  /** Asks the server for notifications/resources/updated of `uri` (its own URI) while subscribed; kept across reconnects. */
  setResourceSubscriptions(uris: ReadonlySet<string>): void {
    this.resourceSubscriptions = new Set(uris)
    this.applySubscriptions()
  }

  private applySubscriptions(): void {
    const conn = this.sup.live
    if (!conn) return
    const uris = [...this.resourceSubscriptions]
    this.subscribing = this.subscribing
      .then(() => (conn === this.sup.live ? conn.setResourceSubscriptions(uris, this.sup.connectTimeoutMs) : undefined))
      .catch((err: unknown) => this.log.warn(`resource subscriptions failed: ${this.sup.redact(errorText(err))}`))
  }

  // ---- prompts ------------------------------------------------------------------------------

  /** Lists the prompts again (a prompt answered other text than it listed); nothing when not connected. */
  relistPrompts(): void {
    if (this.sup.live) this.onPromptListChanged(this.sup.live)
  }

  /** Lists the prompts (after connect, and on notifications/prompts/list_changed), coalesced like tools. */
  private onPromptListChanged(conn: UpstreamConnection): void {
    if (conn !== this.sup.live) return
    this.relistsOf(conn).prompts.request()
  }

  private async refreshPrompts(conn: UpstreamConnection): Promise<void> {
    let listing: Awaited<ReturnType<UpstreamConnection['listPrompts']>>
    try {
      listing = await conn.listPrompts(this.sup.connectTimeoutMs)
    } catch (err) {
      this.promptsListedOn.mark(conn, false)
      throw err
    }
    if (conn !== this.sup.live) return
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
    return this.promptsListedOn.wait(() => this.sup.live, timeoutMs, signal)
  }

  private applyListing(listing: ToolListing, updateWarning: boolean): void {
    for (const w of listing.warnings) this.log.warn(`upstream ${w}`)
    this._tools = listing.tools
    this.safeEmit('tools', listing.tools)
    if (updateWarning) this.sup.noteWarning(warningText(listing))
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
