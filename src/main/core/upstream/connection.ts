// One live connection from Toolgate to an upstream MCP server: open (transport + initialize),
// list tools, call tools, ping, close. No retries here: Upstream (upstream.ts) supervises
// connections. `mcp` is the MCP SDK's Client object speaking for this connection.
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { CallToolResultSchema, ErrorCode, McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import type { CallToolResult, Progress } from '@modelcontextprotocol/sdk/types.js'
import type { ServerConfig } from '../../../shared/config-schema'
import type { Logger } from '../log'
import { makeRedactor } from './target'
import { buildTransport, transportKinds, withTimeout } from './transport'
import type { SandboxRequest } from './sandbox'
import type { UpstreamAuth } from '../oauth/session'
import { needsSignIn } from '../oauth/errors'
import type { BuiltTransport } from './transport'
import { fetchToolList } from './tools'
import type { ToolListing } from './tools'
import type { TransportKind, UpstreamLimits } from './types'
import { UpstreamCallError } from './types'

/** What Toolgate says it is in `initialize` (the protocol's clientInfo). */
const TOOLGATE_INFO = { name: 'toolgate', version: '0.1.0' }
/** Transport errors logged at warn per connection before going quiet (garbage on stdout). */
const MAX_LOGGED_ERRORS = 20
const MB = 1024 * 1024

/** The size in bytes (JSON) of each result callTool returned, measured once for the limit check. */
export const RESULT_BYTES = new WeakMap<CallToolResult, number>()

export interface ConnectionHooks {
  /** the connection closed by itself (exit, crash, transport failure); not called after close() */
  onClosed(conn: UpstreamConnection, reason: string): void
  /** the upstream sent notifications/tools/list_changed */
  onToolListChanged(conn: UpstreamConnection): void
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
  private loggedErrors = 0
  private closePromise: Promise<void> | null = null
  /** progress handlers of calls in flight, by the progressToken Toolgate sent upstream */
  private readonly progress = new Map<string, (p: Progress) => void>()
  private progressSeq = 0
  /** masks this server's secrets in every text that leaves this class */
  private readonly redact: (text: string) => string

  constructor(
    readonly config: ServerConfig,
    readonly kind: TransportKind,
    private readonly opts: ConnectionOptions,
    private readonly hooks: ConnectionHooks,
  ) {
    const log = opts.logger
    this.redact = makeRedactor(config, opts.secretValues)
    // A message bigger than this closes a stdio connection; keep it well above the result limit
    // so an oversized result gets a clean "too large" error instead of a dropped connection.
    // Room to read a result well past max_result_bytes, so an oversized result gets the limit error
    // and the connection stays up (the limit check happens after the message is read).
    const maxMessageBytes = Math.max(MESSAGE_FLOOR_BYTES, 4 * opts.limits.maxResultBytes + MB)
    this.built = buildTransport(config, kind, { logger: log, maxMessageBytes, redact: this.redact, sandbox: opts.sandbox, auth: opts.auth })
    this.mcp = new Client(TOOLGATE_INFO, { capabilities: {} })
    this.mcp.onerror = (err: Error) => this.onTransportError(err)
    this.mcp.onclose = () => this.onTransportClosed()
    this.mcp.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (!this.closing && this.closedReason === null) this.hooks.onToolListChanged(this)
    })
  }

  get pid(): number | null {
    return this.built.pid
  }

  get isOpen(): boolean {
    return !this.closing && this.closedReason === null
  }

  /** Why the connection closed, once it has. */
  get reason(): string | null {
    return this.closedReason
  }

  /** Start the transport and run the MCP handshake. On failure the connection is closed. */
  async open(timeoutMs: number): Promise<void> {
    try {
      await withTimeout(this.mcp.connect(this.built.transport, { timeout: timeoutMs }), timeoutMs).catch((err: unknown) => {
        const timedOut = (err instanceof McpError && err.code === ErrorCode.RequestTimeout) || /^timed out after/.test(errorText(err))
        if (timedOut && !this.built.exitInfo()) {
          throw new Error(`did not complete the MCP handshake within ${timeoutMs} ms (${this.kind})`)
        }
        throw new Error(this.redact(this.describeFailure(err, `the MCP handshake (${this.kind})`)))
      })
    } catch (err) {
      await this.close()
      throw err
    }
    this.catchProgress()
  }

  /**
   * Progress of our calls is taken off the transport before the SDK sees it. The SDK's own
   * `onprogress` handles a notification a microtask later than a response, so a last
   * notifications/progress that arrives in the same chunk as the result (a server that reports
   * its last step and then returns) was dropped (SDK 1.32.2, Protocol._onnotification).
   */
  private catchProgress(): void {
    const transport = this.built.transport
    const inner = transport.onmessage
    transport.onmessage = (message, extra) => {
      if ('method' in message && message.method === 'notifications/progress' && !('id' in message)) {
        const { progressToken, ...p } = (message.params ?? {}) as Progress & { progressToken?: unknown }
        const handler = this.progress.get(String(progressToken))
        if (handler && typeof p.progress === 'number') return handler(p)
      }
      inner?.call(transport, message, extra)
    }
  }

  async listTools(timeoutMs: number): Promise<ToolListing> {
    const caps = this.mcp.getServerCapabilities()
    if (caps && !caps.tools) return { tools: [], warnings: [] }
    return fetchToolList(this.mcp, this.opts.limits, timeoutMs)
  }

  async ping(timeoutMs: number): Promise<void> {
    await this.mcp.ping({ timeout: timeoutMs })
  }

  async callTool(
    tool: string,
    args: Record<string, unknown>,
    opts: { timeoutMs: number; signal?: AbortSignal; onProgress?: (p: Progress) => void },
  ): Promise<CallToolResult> {
    const server = this.config.name
    const fail = (code: ConstructorParameters<typeof UpstreamCallError>[0], message: string): UpstreamCallError =>
      new UpstreamCallError(code, this.redact(message), server, tool)
    const label = `${server}:${tool}`
    if (opts.signal?.aborted) throw fail('cancelled', `call to ${label} was cancelled before it was sent`)

    // A per-call controller: the SDK adds an 'abort' listener to the signal it is given and never
    // removes it, so handing it a long-lived caller signal would leak one listener per call.
    const controller = new AbortController()
    const forward = (): void => controller.abort(opts.signal?.reason ?? new Error('cancelled by the caller'))
    opts.signal?.addEventListener('abort', forward, { once: true })
    // With a progress handler, the call carries a progressToken of ours (see catchProgress).
    const token = opts.onProgress ? `toolgate-${++this.progressSeq}` : null
    if (token && opts.onProgress) this.progress.set(token, opts.onProgress)
    const params = { name: tool, arguments: args, ...(token ? { _meta: { progressToken: token } } : {}) }
    let result: CallToolResult
    try {
      result = await this.mcp.request({ method: 'tools/call', params }, CallToolResultSchema, {
        timeout: opts.timeoutMs,
        signal: controller.signal,
      })
    } catch (err) {
      if (opts.signal?.aborted) throw fail('cancelled', `call to ${label} was cancelled by the caller`)
      if (err instanceof McpError && err.code === ErrorCode.RequestTimeout) {
        throw fail('timeout', `call to ${label} timed out after ${opts.timeoutMs} ms`)
      }
      if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
        const why = this.closedByUs ? 'the connection was closed by Toolgate (server stopped or restarted)' : this.describeFailure(err, 'the call')
        throw fail('disconnected', `call to ${label} failed: ${why}`)
      }
      if (err instanceof McpError) {
        throw fail('upstream_error', `call to ${label} failed: ${err.message}`)
      }
      const message = err instanceof Error ? err.message : String(err)
      if (err instanceof Error && /ZodError/.test(err.name)) {
        throw fail('upstream_error', `call to ${label} failed: the upstream returned an invalid tools/call result: ${message.slice(0, 500)}`)
      }
      if (message === 'Not connected') {
        throw fail('disconnected', `call to ${label} failed: ${this.closedReason ?? this.closeDescription()}`)
      }
      throw fail('transport_error', `call to ${label} failed: ${message.slice(0, 500)}`)
    } finally {
      opts.signal?.removeEventListener('abort', forward)
      if (token) this.progress.delete(token)
    }
    const bytes = Buffer.byteLength(JSON.stringify(result))
    RESULT_BYTES.set(result, bytes)
    if (bytes > this.opts.limits.maxResultBytes) {
      throw fail(
        'result_too_large',
        `result of ${label} is ${bytes} bytes, over the limit of ${this.opts.limits.maxResultBytes} bytes (limits.max_result_bytes)`,
      )
    }
    return result
  }

  /** Close the SDK client and transport; for stdio the child process is gone when this resolves. */
  close(): Promise<void> {
    if (this.closePromise) return this.closePromise
    this.closing = true
    this.closedByUs = this.closedReason === null
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
    if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed) {
      const why = this.closedReason ?? this.closeDescription()
      return `${why === 'connection closed' ? 'the connection closed' : why} during ${during}`
    }
    return this.redact(`${errorText(err)} (during ${during})`)
  }
}

export function errorText(err: unknown): string {
  if (err instanceof Error) {
    const cause = (err as Error & { cause?: unknown }).cause
    const causeText = cause instanceof Error && cause.message && !err.message.includes(cause.message) ? `: ${cause.message}` : ''
    return `${err.message}${causeText}`
  }
  return String(err)
}

/** Try each transport of the config in turn (auto: Streamable HTTP, then SSE). */
export async function openConnection(
  config: ServerConfig,
  opts: ConnectionOptions & { timeoutMs: number; kinds?: TransportKind[] },
  hooks: ConnectionHooks,
  track: { isCancelled(): boolean; onCreated(conn: UpstreamConnection): void } = { isCancelled: () => false, onCreated: () => undefined },
): Promise<UpstreamConnection> {
  const kinds = opts.kinds ?? transportKinds(config)
  const failures: string[] = []
  for (const kind of kinds) {
    if (track.isCancelled()) break
    let conn: UpstreamConnection
    try {
      conn = new UpstreamConnection(config, kind, opts, hooks)
      track.onCreated(conn)
    } catch (err) {
      failures.push(kinds.length > 1 ? `${kind}: ${errorText(err)}` : errorText(err))
      continue
    }
    try {
      await conn.open(opts.timeoutMs)
      return conn
    } catch (err) {
      // the server needs sign-in: another transport would only ask again
      const signIn = opts.auth?.needsSignIn ?? needsSignIn(err)
      if (signIn) throw signIn
      failures.push(kinds.length > 1 ? `${kind}: ${errorText(err)}` : errorText(err))
    }
  }
  throw new Error(failures.join('; ') || 'cancelled')
}
