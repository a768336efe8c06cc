// One live connection from Toolgate to an upstream MCP server: open (transport + the protocol
// handshake of either era), list tools and prompts, resource subscriptions, ping, close, and why it
// closed. No retries here: Upstream (upstream.ts) supervises connections; open.ts tries the
// transports. `mcp` is the MCP SDK's (v2) Client speaking for this connection. The era is the
// server's: SDK v2's negotiation probes with `server/discover` and falls back to `initialize` for a
// 2025 server; `protocolVersion` says what was agreed. An agent's requests over it are calls.ts',
// the server's requests to Toolgate server-asks.ts'.
import { Client, type ProtocolEra } from '@modelcontextprotocol/client'
import type { CallToolResult, Progress, ServerCapabilities } from '@modelcontextprotocol/client'
import type { ServerConfig } from '../../../shared/config-schema'
import type { Logger } from '../log'
import { makeRedactor } from '../masking/target'
import { launchSecrets, SecretMask } from '../masking/secret-mask'
import { buildTransport, withTimeout } from './transport'
import type { SandboxRequest } from './sandbox'
import type { UpstreamAuth } from '../oauth/session'
import type { BuiltTransport } from './transport'
import { fetchToolList } from './tools'
import type { LogOwner } from './request-logs'
import { fetchPromptList, type PromptListing } from './prompts'
import type { ToolListing } from './tools'
import type { TransportKind, UpstreamLimits } from './types'
import type { CallAsker } from './server-requests'
import { ServerAsks } from './server-asks'
import { ConnectionCalls, type RelayMethod } from './calls'
import { errorText, isConnectionClosed, isTimeout } from './sdk-errors'
import { progressOf } from './progress-text'

/** What Toolgate says it is in `initialize` (the protocol's clientInfo). */
const TOOLGATE_INFO = { name: 'toolgate', version: '0.1.0' }
/** Transport errors logged at warn per connection before going quiet (garbage on stdout). */
const MAX_LOGGED_ERRORS = 20
const MB = 1024 * 1024
/** The longest the era probe (server/discover) may take before a stdio server counts as a 2025 one. */
const PROBE_MAX_MS = 10_000

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

export interface ConnectionHooks {
  /** the connection closed by itself (exit, crash, transport failure); not called after close() */
  onClosed(conn: UpstreamConnection, reason: string): void
  /** the upstream sent notifications/tools/list_changed */
  onToolListChanged(conn: UpstreamConnection): void
  /** the upstream sent notifications/prompts/list_changed */
  onPromptListChanged?(conn: UpstreamConnection): void
  /** the upstream sent notifications/resources/updated for a resource Toolgate subscribed to */
  onResourceUpdated?(conn: UpstreamConnection, uri: string): void
  /** the upstream sent notifications/resources/list_changed (Toolgate keeps no copy: agents re-list) */
  onResourceListChanged?(conn: UpstreamConnection): void
  /** the upstream sent a log message (notifications/message); its params masked */
  /** `request`: the RequestLogs (or stand-in) of the only request in flight when it came; null: none was; SEVERAL: several were (log-readers.ts) */
  onLogMessage?(conn: UpstreamConnection, params: { level?: unknown; logger?: unknown; data?: unknown }, request: object | null): void
}

export interface ConnectionOptions {
  logger: Logger
  limits: UpstreamLimits
  /** stdio: the sandbox to start the server in */
  sandbox?: SandboxRequest
  /** resolved secret values in this (resolved) config: masked in every text */
  secretValues?: readonly string[]
  /** HTTP: the OAuth session of this connection */
  auth?: UpstreamAuth | null
  /** the secrets masked in all this server sends back (built from the config and secretValues when not given) */
  mask?: SecretMask
  /** the whole handshake's budget (the era probe gets at most half of it) */
  connectTimeoutMs: number
  /**
   * How to find the era: `auto` (probe with server/discover, fall back to initialize) or `legacy`
   * (initialize only: a stdio server that died on the probe is started again this way).
   */
  negotiation?: 'auto' | 'legacy'
}

/** The smallest read buffer: a result several times over the usual limits is read and refused cleanly. */
export const MESSAGE_FLOOR_BYTES = 16 * 1024 * 1024

export class UpstreamConnection {
  readonly mcp: Client
  private readonly built: BuiltTransport
  private closing = false
  /** close() was called while the connection was still up (vs. cleaning up after it died) */
  private closedByUs = false
  private closedReason: string | null = null
  private lastTransportError: string | null = null
  /** the resources subscribed to upstream, and the listen stream that carries them (2026-07-28) */
  private subscribed = new Set<string>()
  private listening: { close(): Promise<void> } | null = null
  private loggedErrors = 0
  private closePromise: Promise<void> | null = null
  /** the process ended by itself before the handshake finished (not killed by our cleanup) */
  private diedInHandshake = false
  /** masks this server's secrets in every text that leaves this class */
  private readonly redact: (text: string) => string
  /** masks this server's secrets in what it sends: tool definitions, results, progress */
  readonly mask: SecretMask
  private readonly stopSecrets: (() => void) | null
  /** the server's requests to Toolgate: a request of the server reaches only its call's agent (server-asks.ts) */
  private readonly asks: ServerAsks
  /** agents' calls and relayed requests over this connection (calls.ts) */
  private readonly calls: ConnectionCalls

  constructor(
    readonly config: ServerConfig,
    readonly kind: TransportKind,
    private readonly opts: ConnectionOptions,
    private readonly hooks: ConnectionHooks,
  ) {
    const log = opts.logger
    this.mask = opts.mask ?? new SecretMask(launchSecrets(config, opts.secretValues))
    // OAuth tokens join the mask as they are issued (the server could echo its bearer token)
    this.stopSecrets = opts.auth?.onSecrets((values) => this.mask.add(values)) ?? null
    this.redact = makeRedactor(config, opts.secretValues, this.mask)
    // A message bigger than this closes a stdio connection; keep it well above the result limit
    // so an oversized result gets a clean "too large" error instead of a dropped connection.
    // Room to read a result well past max_result_bytes, so an oversized result gets the limit error
    // and the connection stays up (the limit check happens after the message is read).
    const maxMessageBytes = Math.max(MESSAGE_FLOOR_BYTES, 4 * opts.limits.maxResultBytes + MB)
    this.built = buildTransport(config, kind, { logger: log, maxMessageBytes, redact: this.redact, sandbox: opts.sandbox, auth: opts.auth })
    const changed = (): void => {
      if (!this.closing && this.closedReason === null) this.hooks.onToolListChanged(this)
    }
    const promptsChanged = (): void => {
      if (!this.closing && this.closedReason === null) this.hooks.onPromptListChanged?.(this)
    }
    const resourcesChanged = (): void => {
      if (!this.closing && this.closedReason === null) this.hooks.onResourceListChanged?.(this)
    }
    this.asks = new ServerAsks(config, this.mask)
    this.mcp = new Client(TOOLGATE_INFO, {
      // what the server may ask (server-asks.ts)
      capabilities: this.asks.capabilities(),
      // a 2026-07-28 server's input_required is answered per call (callTool), never by the SDK on its own
      inputRequired: { autoFulfill: false },
      // the probe may wait for a process that is still starting, but not the whole connect budget
      versionNegotiation: { mode: opts.negotiation ?? 'auto', probe: { timeoutMs: Math.min(PROBE_MAX_MS, Math.max(1000, opts.connectTimeoutMs / 2)) } },
      // list_changed: an unsolicited notification (2025) or on the subscriptions/listen stream the
      // client opens for it (2026-07-28); Toolgate re-lists tools itself (tools.ts), loosely
      listChanged: {
        tools: { autoRefresh: false, debounceMs: 0, onChanged: changed },
        prompts: { autoRefresh: false, debounceMs: 0, onChanged: promptsChanged },
        resources: { autoRefresh: false, debounceMs: 0, onChanged: resourcesChanged },
      },
    })
    this.mcp.onerror = (err: Error) => this.onTransportError(err)
    this.mcp.onclose = () => this.onTransportClosed()
    this.calls = new ConnectionCalls({
      mcp: this.mcp,
      server: config.name,
      mask: this.mask,
      asks: this.asks,
      limits: opts.limits,
      era: () => this.era,
      redact: (text) => this.redact(text),
      closedByUs: () => this.closedByUs,
      closeReason: () => this.closedReason ?? this.closeDescription(),
      describeFailure: (err, during) => this.describeFailure(err, during),
    })
    this.asks.answerOn(this.mcp)
  }

  /** The protocol version agreed with the server (e.g. "2025-11-25", "2026-07-28"); null before the handshake. */
  get protocolVersion(): string | null {
    return this.mcp.getNegotiatedProtocolVersion() ?? null
  }

  get era(): ProtocolEra | null {
    return this.mcp.getProtocolEra() ?? null
  }

  get pid(): number | null {
    return this.built.pid
  }

  get isOpen(): boolean {
    return !this.closing && this.closedReason === null
  }

  /** The stdio process exited by itself before the protocol handshake ended (e.g. on the era probe). */
  get exitedInHandshake(): boolean {
    return this.diedInHandshake
  }

  /** Why the connection closed, once it has. */
  get reason(): string | null {
    return this.closedReason
  }

  /** Start the transport and run the MCP handshake. On failure the connection is closed. */
  async open(timeoutMs: number): Promise<void> {
    try {
      await withTimeout(this.mcp.connect(this.built.transport, { timeout: timeoutMs }), timeoutMs).catch((err: unknown) => {
        if (isTimeout(err) && !this.built.exitInfo()) {
          throw new Error(`did not complete the MCP handshake within ${timeoutMs} ms (${this.kind})`)
        }
        throw new Error(this.redact(this.describeFailure(err, `the MCP handshake (${this.kind})`)))
      })
    } catch (err) {
      this.diedInHandshake = this.era === null && this.built.exitInfo() !== null
      await this.close()
      throw err
    }
    this.catchProgress()
    // log messages (to Toolgate's log and the agents that asked: server-logs.ts) are taken off the transport too (catchProgress)
    // resources/updated: unsolicited after resources/subscribe (2025), or on the listen stream (2026-07-28)
    this.mcp.setNotificationHandler('notifications/resources/updated', (n) => {
      if (!this.closing && this.closedReason === null) this.hooks.onResourceUpdated?.(this, n.params.uri)
    })
    // A server that sends list_changed without announcing `tools.listChanged` is heard too (the
    // SDK's listChanged option only listens where the capability is announced).
    if (this.era === 'legacy') {
      this.mcp.setNotificationHandler('notifications/tools/list_changed', () => {
        if (!this.closing && this.closedReason === null) this.hooks.onToolListChanged(this)
      })
      this.mcp.setNotificationHandler('notifications/prompts/list_changed', () => {
        if (!this.closing && this.closedReason === null) this.hooks.onPromptListChanged?.(this)
      })
      this.mcp.setNotificationHandler('notifications/resources/list_changed', () => {
        if (!this.closing && this.closedReason === null) this.hooks.onResourceListChanged?.(this)
      })
    }
  }

  /**
   * Progress of our calls is taken off the transport before the SDK sees it. The SDK's own
   * `onprogress` handles a notification a microtask later than a response, so a last
   * notifications/progress that arrives in the same chunk as the result (a server that reports
   * its last step and then returns) was dropped (SDK 1.32.2, Protocol._onnotification; SDK 2.4.0
   * still dispatches notifications a microtask late).
   */
  private catchProgress(): void {
    const transport = this.built.transport
    const inner = transport.onmessage
    transport.onmessage = (message, extra) => {
      if ('method' in message && message.method === 'notifications/progress' && !('id' in message)) {
        const { progressToken, ...p } = (message.params ?? {}) as Progress & { progressToken?: unknown }
        const handler = this.calls.progressFor(progressToken)
        if (handler && typeof p.progress === 'number') return handler(progressOf(this.mask.value(p)))
      }
      // log messages too: one sent just before a result must reach the request that is still listening
      if ('method' in message && message.method === 'notifications/message' && !('id' in message)) {
        if (!this.closing && this.closedReason === null)
          this.hooks.onLogMessage?.(this, this.mask.value(isRecord(message.params) ? (message.params as Record<string, unknown>) : {}), this.calls.logOwner())
        return
      }
      inner?.call(transport, message, extra)
    }
  }

  async listTools(timeoutMs: number): Promise<ToolListing> {
    const caps = this.mcp.getServerCapabilities()
    if (caps && !caps.tools) return { tools: [], warnings: [] }
    const listing = await fetchToolList(this.mcp, this.opts.limits, timeoutMs, (raw) => this.mask.value(raw))
    this.calls.setTaskOnly(listing.taskOnly)
    return listing
  }

  /** The server's prompts (none when it does not offer prompts), each with its no-argument text where it needs no arguments. */
  async listPrompts(timeoutMs: number): Promise<PromptListing> {
    if (!this.mcp.getServerCapabilities()?.prompts) return { prompts: [], warnings: [] }
    return fetchPromptList(this.mcp, this.opts.limits, timeoutMs, (raw) => this.mask.value(raw))
  }

  /** What the server declared it offers (prompts, resources, completions, …), after the handshake. */
  get capabilities(): ServerCapabilities | undefined {
    return this.mcp.getServerCapabilities()
  }

  /** Relays one request of an agent (prompts/get, resources/read, …): see ConnectionCalls.relay (calls.ts). */
  relay(
    method: RelayMethod,
    params: Record<string, unknown>,
    opts: { timeoutMs: number; signal?: AbortSignal; label: string; owner?: LogOwner },
  ): Promise<Record<string, unknown>> {
    return this.calls.relay(method, params, opts)
  }

  /**
   * The resources Toolgate wants notifications/resources/updated for: resources/subscribe and
   * unsubscribe for what changed (2025), or one subscriptions/listen stream naming them all,
   * opened again when the set changes (2026-07-28). A server without resource subscriptions: nothing.
   */
  async setResourceSubscriptions(uris: readonly string[], timeoutMs: number): Promise<void> {
    if (!this.mcp.getServerCapabilities()?.resources?.subscribe || !this.isOpen) return
    const want = new Set(uris)
    if (this.era === 'modern') {
      const before = this.listening
      this.listening = null
      await before?.close().catch(() => undefined)
      if (want.size > 0) this.listening = await this.mcp.listen({ resourceSubscriptions: [...want] }, { timeout: timeoutMs })
      this.subscribed = want
      return
    }
    for (const uri of want) if (!this.subscribed.has(uri)) await this.mcp.subscribeResource({ uri }, { timeout: timeoutMs })
    for (const uri of this.subscribed) if (!want.has(uri)) await this.mcp.unsubscribeResource({ uri }, { timeout: timeoutMs }).catch(() => undefined)
    this.subscribed = want
  }

  /** Liveness: `ping` (2025); 2026-07-28 has no ping, so `server/discover` (cheap, stateless). */
  async ping(timeoutMs: number): Promise<void> {
    if (this.era === 'modern') await this.mcp.discover({ timeout: timeoutMs })
    else await this.mcp.ping({ timeout: timeoutMs })
  }

  /** Calls a tool of the server: see ConnectionCalls.callTool (calls.ts). */
  callTool(
    tool: string,
    args: Record<string, unknown>,
    opts: { timeoutMs: number; signal?: AbortSignal; onProgress?: (p: Progress) => void; asker?: CallAsker; owner?: LogOwner },
  ): Promise<CallToolResult> {
    return this.calls.callTool(tool, args, opts)
  }

  /** Close the SDK client and transport; for stdio the child process is gone when this resolves. */
  close(): Promise<void> {
    if (this.closePromise) return this.closePromise
    this.closing = true
    this.closedByUs = this.closedReason === null
    this.stopSecrets?.()
    this.closePromise = (async () => {
      try {
        await this.built.shutdown()
      } catch (err) {
        this.opts.logger.error({ err: errorText(err) }, 'upstream did not shut down cleanly')
      }
      // Make sure the Protocol layer has released pending requests even if the transport never
      // reported its close (HTTP transports call onclose from close(); stdio after the exit).
      await this.mcp.close().catch(() => undefined)
    })()
    return this.closePromise
  }

  private onTransportError(err: Error): void {
    // A parse error quotes the start of the offending stdout line, which may be a secret: never log it.
    const text = err instanceof SyntaxError ? 'the upstream wrote a line that is not JSON-RPC on stdout (ignored)' : this.redact(errorText(err))
    // the first overflow stays the reason: errors that follow it (the closed pipe) must not hide it
    if (!/ReadBuffer exceeded/.test(this.lastTransportError ?? '')) this.lastTransportError = text
    if (this.closing) return
    const log = this.opts.logger
    // Expected after a timeout or cancellation: the late answer has nobody waiting for it.
    if (/unknown message ID/i.test(text)) {
      log.debug(`late answer ignored: ${text.slice(0, 300)}`)
      return
    }
    this.loggedErrors++
    if (this.loggedErrors <= MAX_LOGGED_ERRORS) {
      log.warn({ transport: this.kind }, `upstream transport error: ${text.slice(0, 500)}`)
      if (this.loggedErrors === MAX_LOGGED_ERRORS) {
        log.warn('further transport errors from this connection are logged at debug level')
      }
    } else {
      log.debug({ transport: this.kind }, `upstream transport error: ${text.slice(0, 500)}`)
    }
  }

  private onTransportClosed(): void {
    if (this.closedReason !== null) return
    this.closedReason = this.closeDescription()
    if (!this.closing) this.hooks.onClosed(this, this.closedReason)
  }

  private closeDescription(): string {
    // The SDK's stdio transport closes the connection itself when one message overflows its buffer.
    if (this.lastTransportError && /ReadBuffer exceeded/.test(this.lastTransportError)) {
      return `the upstream sent a message that is too large (${this.lastTransportError}); connection closed`
    }
    const exit = this.built.exitInfo()
    if (exit) return `process ${exit}`
    if (this.lastTransportError) return `connection closed (${this.lastTransportError.slice(0, 300)})`
    return 'connection closed'
  }

  /** "process exited with code 1: <stderr>" when known, else the error's own text. */
  private describeFailure(err: unknown, during: string): string {
    const exit = this.built.exitInfo()
    if (exit && !/ReadBuffer exceeded/.test(this.lastTransportError ?? '')) return `process ${exit} during ${during}`
    if (isConnectionClosed(err)) {
      const why = this.closedReason ?? this.closeDescription()
      return `${why === 'connection closed' ? 'the connection closed' : why} during ${during}`
    }
    return this.redact(`${errorText(err)} (during ${during})`)
  }
}
