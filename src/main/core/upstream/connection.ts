// One live connection from Toolgate to an upstream MCP server: open (transport + the protocol
// handshake of either era), list tools, call tools, ping, close. No retries here: Upstream
// (upstream.ts) supervises connections. `mcp` is the MCP SDK's (v2) Client speaking for this
// connection. The era is the server's: SDK v2's negotiation probes with `server/discover` and
// falls back to `initialize` for a 2025 server; `protocolVersion` says what was agreed.
import {
  Client,
  isInputRequiredResult,
  LOG_LEVEL_META_KEY,
  ProtocolError,
  ProtocolErrorCode,
  SdkError,
  SdkErrorCode,
  type ProtocolEra,
} from '@modelcontextprotocol/client'
import type { CallToolResult, Progress, ServerCapabilities } from '@modelcontextprotocol/client'
import { CallToolResultSchema } from '@modelcontextprotocol/core'
import type { ServerConfig } from '../../../shared/config-schema'
import type { Logger } from '../log'
import { makeRedactor } from '../masking/target'
import { launchSecrets, SecretMask } from '../masking/secret-mask'
import { buildTransport, transportKinds, withTimeout } from './transport'
import type { SandboxRequest } from './sandbox'
import type { UpstreamAuth } from '../oauth/session'
import { needsSignIn, refusal } from '../oauth/errors'
import type { BuiltTransport } from './transport'
import { fetchToolList } from './tools'
import { RequestLogs, type LogOwner } from './request-logs'
import { LogReaders } from './log-readers'
import { callAsTask, offersToolTasks } from './task-call'
import { fetchPromptList, type PromptListing } from './prompts'
import { z } from 'zod'
import type { ToolListing } from './tools'
import type { TransportKind, UpstreamLimits } from './types'
import { UpstreamCallError } from './types'
import { CallClock, MAX_PAUSE_MS } from './call-clock'
import { allows, CallsInFlight, labelRequest, rootsFor, switchedOff, type AskAbout, type AskMethod, type CallAsker } from './server-requests'

/** What Toolgate says it is in `initialize` (the protocol's clientInfo). */
const TOOLGATE_INFO = { name: 'toolgate', version: '0.1.0' }
/** Transport errors logged at warn per connection before going quiet (garbage on stdout). */
const MAX_LOGGED_ERRORS = 20
const MB = 1024 * 1024
/** The longest the era probe (server/discover) may take before a stdio server counts as a 2025 one. */
const PROBE_MAX_MS = 10_000
/** Rounds of input_required one call of a 2026-07-28 server may take (the SDK's own default cap). */
const MAX_INPUT_ROUNDS = 10
/** The SDK's own timeout of a call stands behind the call's clock (call-clock.ts) by this much. */
const SDK_TIMEOUT_SLACK_MS = 5_000

/** The requests an agent's own request is relayed as. */
export type RelayMethod =
  'prompts/get' | 'completion/complete' | 'resources/list' | 'resources/templates/list' | 'resources/read' | 'resources/subscribe' | 'resources/unsubscribe'

/** Any result object: a relayed result passes as the server sent it (the agent's client judges it). */
const LooseResult = z.object({}).loose()

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The size in bytes (JSON) of each result callTool returned, measured once for the limit check. */
export const RESULT_BYTES = new WeakMap<CallToolResult, number>()

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

/** Is this error the SDK's "timed out" (v2 SdkError; ours from withTimeout)? */
function isTimeout(err: unknown): boolean {
  return (err instanceof SdkError && err.code === SdkErrorCode.RequestTimeout) || /^timed out after/.test(errorText(err))
}

function isConnectionClosed(err: unknown): boolean {
  return err instanceof SdkError && err.code === SdkErrorCode.ConnectionClosed
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
  /** progress handlers of calls in flight, by the progressToken Toolgate sent upstream */
  private readonly progress = new Map<string, (p: Progress) => void>()
  private progressSeq = 0
  /** the tools this server runs only as a task, from its last tools/list */
  private taskOnly = new Set<string>()
  /** masks this server's secrets in every text that leaves this class */
  private readonly redact: (text: string) => string
  /** masks this server's secrets in what it sends: tool definitions, results, progress */
  readonly mask: SecretMask
  private readonly stopSecrets: (() => void) | null
  /** calls in flight and the agents behind them: a request of the server reaches only its call's agent (server-requests.ts) */
  private readonly inFlight: CallsInFlight
  /** the requests in flight, for whose a log message is (log-readers.ts) */
  private readonly logReaders = new LogReaders()

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
    this.inFlight = new CallsInFlight(config.name)
    this.mcp = new Client(TOOLGATE_INFO, {
      // what the server may ask: roots where there are any to tell, elicitation
      // unless switched off, sampling only when allowed
      capabilities: {
        ...(rootsFor(config).length > 0 ? { roots: {} } : {}),
        ...(allows(config, 'elicitation/create') ? { elicitation: { form: {}, url: {} } } : {}),
        ...(allows(config, 'sampling/createMessage') ? { sampling: {} } : {}),
      },
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
    this.answerServerRequests()
  }

  /**
   * A 2025 server's requests to Toolgate: roots/list is answered here; elicitation/create and
   * sampling/createMessage reach the agent of the one call in flight (server-requests.ts).
   */
  private answerServerRequests(): void {
    if (rootsFor(this.config).length > 0) this.mcp.setRequestHandler('roots/list', () => ({ roots: rootsFor(this.config) }))
    const relay = async (method: AskMethod, params: Record<string, unknown>, signal: AbortSignal): Promise<Record<string, unknown>> => {
      if (!allows(this.config, method)) throw switchedOff(this.config.name, method)
      // the answer as its answerer gave it: a form's defaults are the form's to show (elicit-form.ts shownDefaults)
      return this.inFlight.ask(this.inFlight.forUnnamed(method), method, this.labelled(method, params), signal, this.about(method, params))
    }
    for (const method of ['elicitation/create', 'sampling/createMessage'] as const) {
      if (allows(this.config, method)) this.mcp.setRequestHandler(method, async (req, ctx) => (await relay(method, req.params, ctx.mcpReq.signal)) as never)
    }
    // a server that asks what it was not offered learns why not, and what to set
    this.mcp.fallbackRequestHandler = async (req) => {
      if (req.method === 'elicitation/create' || req.method === 'sampling/createMessage') throw switchedOff(this.config.name, req.method)
      // roots not offered: none
      if (req.method === 'roots/list') return { roots: [] }
      throw new ProtocolError(ProtocolErrorCode.MethodNotFound, 'Method not found')
    }
  }

  /** One request embedded in a 2026-07-28 server's input_required, for call `id`: roots here, the rest to its agent. */
  private async answerInput(id: number, entry: unknown, signal: AbortSignal | undefined): Promise<Record<string, unknown>> {
    const e = isRecord(entry) ? entry : {}
    const method = e.method
    const params = isRecord(e.params) ? e.params : {}
    if (method === 'roots/list') return { roots: rootsFor(this.config) }
    if (method !== 'elicitation/create' && method !== 'sampling/createMessage') {
      throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `server "${this.config.name}" asked for ${String(method)}, which Toolgate does not relay`)
    }
    if (!allows(this.config, method)) throw switchedOff(this.config.name, method)
    return this.inFlight.ask(id, method, this.labelled(method, params), signal ?? new AbortController().signal, this.about(method, params))
  }

  /** A server's request as the agent's client gets it: masked, escaped, labelled with the server. */
  private labelled(method: AskMethod, params: Record<string, unknown>): Record<string, unknown> {
    return labelRequest(this.config.name, method, params, (t) => this.mask.text(t))
  }

  /** Who asks (the configured name), the request unlabelled for the Toolgate window, and the user's sampling switch. */
  private about(method: AskMethod, params: Record<string, unknown>): AskAbout {
    return {
      server: this.config.name,
      plain: labelRequest(this.config.name, method, params, (t) => this.mask.text(t), false),
      confirmFirst: method === 'sampling/createMessage' && this.config.sampling === 'ask',
    }
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
        const handler = this.progress.get(String(progressToken))
        if (handler && typeof p.progress === 'number') return handler(this.mask.value(p))
      }
      // log messages too: one sent just before a result must reach the request that is still listening
      if ('method' in message && message.method === 'notifications/message' && !('id' in message)) {
        if (!this.closing && this.closedReason === null)
          this.hooks.onLogMessage?.(this, this.mask.value(isRecord(message.params) ? (message.params as Record<string, unknown>) : {}), this.logReaders.owner())
        return
      }
      inner?.call(transport, message, extra)
    }
  }

  async listTools(timeoutMs: number): Promise<ToolListing> {
    const caps = this.mcp.getServerCapabilities()
    if (caps && !caps.tools) return { tools: [], warnings: [] }
    const listing = await fetchToolList(this.mcp, this.opts.limits, timeoutMs, (raw) => this.mask.value(raw))
    this.taskOnly = new Set(listing.taskOnly ?? [])
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

  /**
   * Relays one request of an agent (prompts/get, resources/read, completion/complete, …) and
   * answers the server's result as it is, without this hop's envelope, with the server's secrets
   * masked; a result over limits.max_result_bytes is refused like a tool result. Errors are
   * UpstreamCallError (a JSON-RPC error of the server keeps its code in `rpcCode`).
   */
  async relay(
    method: RelayMethod,
    params: Record<string, unknown>,
    opts: { timeoutMs: number; signal?: AbortSignal; label: string; owner?: LogOwner },
  ): Promise<Record<string, unknown>> {
    const fail = (code: ConstructorParameters<typeof UpstreamCallError>[0], message: string, rpcCode?: number): UpstreamCallError =>
      new UpstreamCallError(code, this.redact(message), this.config.name, opts.label, rpcCode)
    if (opts.signal?.aborted) throw fail('cancelled', `${method} of ${opts.label} was cancelled before it was sent`)
    let result: Record<string, unknown>
    const leave = this.logReaders.enter(opts.owner ?? {})
    try {
      result = (await this.mcp.request({ method, params: this.withLogLevel(params, opts.owner) } as Parameters<Client['request']>[0], LooseResult, {
        timeout: opts.timeoutMs,
        signal: opts.signal,
      })) as Record<string, unknown>
    } catch (err) {
      if (opts.signal?.aborted) throw fail('cancelled', `${method} of ${opts.label} was cancelled by the caller`)
      if (isTimeout(err)) throw fail('timeout', `${method} of ${opts.label} timed out after ${opts.timeoutMs} ms`)
      if (isConnectionClosed(err)) throw fail('disconnected', `${method} of ${opts.label} failed: ${this.describeFailure(err, method)}`)
      if (err instanceof ProtocolError) throw fail('upstream_error', `${method} of ${opts.label} failed: ${err.message}`, err.code)
      throw fail('transport_error', `${method} of ${opts.label} failed: ${errorText(err).slice(0, 500)}`)
    } finally {
      leave()
    }
    result = withoutEnvelope(result)
    const bytes = Buffer.byteLength(JSON.stringify(result))
    if (bytes > this.opts.limits.maxResultBytes) {
      throw fail(
        'result_too_large',
        `result of ${method} of ${opts.label} is ${bytes} bytes, over the limit of ${this.opts.limits.maxResultBytes} bytes (limits.max_result_bytes)`,
      )
    }
    return this.mask.value(result)
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

  async callTool(
    tool: string,
    args: Record<string, unknown>,
    opts: { timeoutMs: number; signal?: AbortSignal; onProgress?: (p: Progress) => void; asker?: CallAsker; owner?: LogOwner },
  ): Promise<CallToolResult> {
    const server = this.config.name
    const fail = (code: ConstructorParameters<typeof UpstreamCallError>[0], message: string): UpstreamCallError =>
      new UpstreamCallError(code, this.redact(message), server, tool)
    const label = `${server}:${tool}`
    if (opts.signal?.aborted) throw fail('cancelled', `call to ${label} was cancelled before it was sent`)

    // With a progress handler, the call carries a progressToken of ours (see catchProgress).
    const token = opts.onProgress ? `toolgate-${++this.progressSeq}` : null
    if (token && opts.onProgress) this.progress.set(token, opts.onProgress)
    const params = this.withLogLevel({ name: tool, arguments: args, ...(token ? { _meta: { progressToken: token } } : {}) }, opts.owner)
    let result: CallToolResult
    // call_timeout_ms counts the server's time, not a person's: it stands still while a question of this call is open
    const clock = new CallClock(opts.timeoutMs, opts.signal)
    const signal = clock.signal
    // while it runs, the server's requests reach this call's agent (and no one else's)
    const call = this.inFlight.begin(opts.asker ?? null, clock)
    const leave = this.logReaders.enter(opts.owner ?? {})
    try {
      // SDK 2.x removes its abort listener when the request settles (1.x leaked one per call, so
      // the signal went through a per-call AbortController; no longer needed)
      // a tool its 2025 server runs only as a task: run as one for the agent, which gets the result (task-call.ts)
      const asTask = this.era === 'legacy' && this.taskOnly.has(tool) && offersToolTasks(this.mcp.getServerCapabilities())
      const leg = (p: Record<string, unknown>): Promise<CallToolResult> =>
        asTask
          ? callAsTask(this.mcp, p, { timeoutMs: opts.timeoutMs + MAX_PAUSE_MS, signal })
          : this.mcp.request({ method: 'tools/call', params: p }, CallToolResultSchema, {
              // the clock's signal ends the call; the SDK's own timer only backs it up
              timeout: opts.timeoutMs + MAX_PAUSE_MS + SDK_TIMEOUT_SLACK_MS,
              signal,
              allowInputRequired: true,
            })
      result = await leg(params)
      // 2026-07-28: the server asks through input_required; answered for this call, then retried
      for (let round = 1; isInputRequiredResult(result); round++) {
        if (round > MAX_INPUT_ROUNDS)
          throw new ProtocolError(ProtocolErrorCode.InvalidRequest, `the server still asked for input after ${MAX_INPUT_ROUNDS} rounds`)
        const asked = result
        const responses: Record<string, unknown> = {}
        for (const [key, entry] of Object.entries(asked.inputRequests ?? {})) responses[key] = await this.answerInput(call.id, entry, signal)
        result = await leg({
          ...params,
          ...(Object.keys(responses).length > 0 ? { inputResponses: responses } : {}),
          ...(asked.requestState !== undefined ? { requestState: asked.requestState } : {}),
        })
      }
    } catch (err) {
      if (opts.signal?.aborted) throw fail('cancelled', `call to ${label} was cancelled by the caller`)
      if (clock.expired || isTimeout(err)) {
        const waited = clock.waited >= 1000 ? ` (not counting the ${Math.round(clock.waited / 1000)} s it waited for answers to the server's questions)` : ''
        throw fail('timeout', `call to ${label} timed out after ${opts.timeoutMs} ms${waited}`)
      }
      if (isConnectionClosed(err)) {
        const why = this.closedByUs ? 'the connection was closed by Toolgate (server stopped or restarted)' : this.describeFailure(err, 'the call')
        throw fail('disconnected', `call to ${label} failed: ${why}`)
      }
      if (err instanceof ProtocolError) throw fail('upstream_error', `call to ${label} failed: ${err.message}`)
      const message = err instanceof Error ? err.message : String(err)
      if (err instanceof SdkError && err.code === SdkErrorCode.InvalidResult) {
        throw fail('upstream_error', `call to ${label} failed: the upstream returned an invalid tools/call result: ${message.slice(0, 500)}`)
      }
      if (err instanceof SdkError && err.code === SdkErrorCode.NotConnected) {
        throw fail('disconnected', `call to ${label} failed: ${this.closedReason ?? this.closeDescription()}`)
      }
      throw fail('transport_error', `call to ${label} failed: ${message.slice(0, 500)}`)
    } finally {
      clock.stop()
      call.end()
      leave()
      if (token) this.progress.delete(token)
    }
    result = withoutEnvelope(result)
    const bytes = Buffer.byteLength(JSON.stringify(result))
    if (bytes > this.opts.limits.maxResultBytes) {
      throw fail(
        'result_too_large',
        `result of ${label} is ${bytes} bytes, over the limit of ${this.opts.limits.maxResultBytes} bytes (limits.max_result_bytes)`,
      )
    }
    // the server's secrets never reach the agent, nor the activity record
    const safe = this.mask.value(result)
    RESULT_BYTES.set(safe, safe === result ? bytes : Buffer.byteLength(JSON.stringify(safe)))
    return safe
  }

  /**
   * An agent's request that asked for log messages (2026-07-28, request-logs.ts) reached this
   * server: noted, and a 2026-07-28 server is asked for its messages at that level on the relayed
   * request (without the key it must send none). A 2025 server sends its messages on the session.
   */
  private withLogLevel<P extends Record<string, unknown>>(params: P, owner: LogOwner | undefined): P {
    if (!(owner instanceof RequestLogs)) return params
    const asked = owner
    asked.servers.add(this.config.name)
    if (this.era !== 'modern') return params
    const meta = isRecord(params._meta) ? params._meta : {}
    return { ...params, _meta: { ...meta, [LOG_LEVEL_META_KEY]: asked.level } }
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

/** The protocol's own `_meta` keys (`io.modelcontextprotocol/…`, e.g. the server's identity) describe this hop, not the tool's answer. */
const ENVELOPE_PREFIX = 'io.modelcontextprotocol/'

/**
 * A result's keys that are about this hop of the 2026-07-28 protocol, not the answer: whether it is
 * a question (`resultType`, `inputRequests`, `requestState`) and how long it may be kept by whom
 * (`ttlMs`, `cacheScope`). Toolgate answers its agents with its own: a server's would pose as
 * Toolgate's question outside the relay of server questions, or let a cache share an answer that
 * the agent's credential decides.
 */
const HOP_KEYS = new Set(['resultType', 'inputRequests', 'requestState', 'ttlMs', 'cacheScope'])

/** A result without this hop's keys: its envelope keys in `_meta` (the rest of `_meta` passes through) and HOP_KEYS. */
export function withoutEnvelope<R extends object>(result: R): R {
  const meta = (result as { _meta?: unknown })._meta
  const envelope = isRecord(meta) && Object.keys(meta).some((k) => k.startsWith(ENVELOPE_PREFIX))
  if (!envelope && !Object.keys(result).some((k) => HOP_KEYS.has(k))) return result
  const rest = Object.fromEntries(Object.entries(result).filter(([k]) => !HOP_KEYS.has(k) && k !== '_meta'))
  if (!isRecord(meta)) return (meta === undefined ? rest : { ...rest, _meta: meta }) as R
  const kept = Object.fromEntries(Object.entries(meta).filter(([k]) => !k.startsWith(ENVELOPE_PREFIX)))
  return (Object.keys(kept).length > 0 ? { ...rest, _meta: kept } : rest) as R
}

export function errorText(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as Error & { cause?: unknown }).cause
    const causeText = cause instanceof Error && cause.message && !err.message.includes(cause.message) ? `: ${cause.message}` : ''
    return `${err.message}${causeText}`
  }
  return String(err)
}

/**
 * Try each transport of the config in turn (auto: Streamable HTTP, then SSE). A stdio server that
 * exits before the handshake ends is started once more with `initialize` only: some 2025 servers
 * exit on any request before `initialize`, such as the era probe (`server/discover`).
 */
export async function openConnection(
  config: ServerConfig,
  opts: Omit<ConnectionOptions, 'connectTimeoutMs'> & { timeoutMs: number; kinds?: TransportKind[] },
  hooks: ConnectionHooks,
  track: { isCancelled(): boolean; onCreated(conn: UpstreamConnection): void } = { isCancelled: () => false, onCreated: () => undefined },
): Promise<UpstreamConnection> {
  const kinds = opts.kinds ?? transportKinds(config)
  const failures: string[] = []
  for (const kind of kinds) {
    if (track.isCancelled()) break
    const negotiations: Array<'auto' | 'legacy'> = opts.negotiation === 'legacy' ? ['legacy'] : ['auto', 'legacy']
    for (const negotiation of negotiations) {
      if (track.isCancelled()) break
      let conn: UpstreamConnection
      try {
        conn = new UpstreamConnection(config, kind, { ...opts, connectTimeoutMs: opts.timeoutMs, negotiation }, hooks)
        track.onCreated(conn)
      } catch (err) {
        failures.push(kinds.length > 1 ? `${kind}: ${errorText(err)}` : errorText(err))
        break
      }
      try {
        await conn.open(opts.timeoutMs)
        return conn
      } catch (err) {
        // the server needs sign-in, or no sign-in can help: another transport would only ask again
        const signIn = opts.auth?.needsSignIn ?? needsSignIn(err)
        if (signIn) throw signIn
        const refused = opts.auth?.refused ?? refusal(err)
        if (refused) throw refused
        if (kind === 'stdio' && negotiation === 'auto' && conn.exitedInHandshake) {
          opts.logger.info(`the server exited during the protocol handshake (${errorText(err)}); starting it again with initialize only`)
          continue
        }
        failures.push(kinds.length > 1 ? `${kind}: ${errorText(err)}` : errorText(err))
        break
      }
    }
  }
  throw new Error(failures.join('; ') || 'cancelled')
}
