// An agent's requests over one live connection (connection.ts): tools/call, with its clock, its
// progress, the 2026-07-28 input_required rounds and a 2025 task-only tool run as a task, and the
// relayed requests (prompts/get, resources/read, …). Each failure is named for people; each result
// is taken out of this hop's envelope, held to limits.max_result_bytes and masked.
import { isInputRequiredResult, LOG_LEVEL_META_KEY, ProtocolError, ProtocolErrorCode, SdkError, SdkErrorCode } from '@modelcontextprotocol/client'
import type { CallToolResult, Client, Progress, ProtocolEra } from '@modelcontextprotocol/client'
import { CallToolResultSchema } from '@modelcontextprotocol/core'
import { z } from 'zod'
import type { SecretMask } from '../masking/secret-mask'
import { CallClock, MAX_PAUSE_MS } from './call-clock'
import { LogReaders } from './log-readers'
import { RequestLogs, type LogOwner } from './request-logs'
import { withoutEnvelope } from './result-envelope'
import { errorText, isConnectionClosed, isTimeout } from './sdk-errors'
import type { ServerAsks } from './server-asks'
import type { CallAsker } from './server-requests'
import { callAsTask, offersToolTasks } from './task-call'
import { UpstreamCallError, type UpstreamLimits } from './types'

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

/** What the requests need of their connection. */
export interface CallLink {
  readonly mcp: Client
  readonly server: string
  /** masks this server's secrets in what it sends back */
  readonly mask: SecretMask
  /** the server's requests during a call go to that call's agent */
  readonly asks: ServerAsks
  /** the caps of the current config (limits.max_result_bytes) */
  readonly limits: UpstreamLimits
  era(): ProtocolEra | null
  /** masks this server's secrets (and its launch's) in a message */
  redact(text: string): string
  /** close() was called while the connection was still up */
  closedByUs(): boolean
  /** why the connection closed, as far as known */
  closeReason(): string
  /** "process exited with code 1: <stderr> during …" when known, else the error's own text */
  describeFailure(err: unknown, during: string): string
}

export class ConnectionCalls {
  /** progress handlers of calls in flight, by the progressToken Toolgate sent upstream */
  private readonly progress = new Map<string, (p: Progress) => void>()
  private progressSeq = 0
  /** the tools this server runs only as a task, from its last tools/list */
  private taskOnly = new Set<string>()
  /** the requests in flight, for whose a log message is (log-readers.ts) */
  private readonly logReaders = new LogReaders()

  constructor(private readonly link: CallLink) {}

  /** The tools the server's last tools/list says run only as a task. */
  setTaskOnly(tools: readonly string[] | undefined): void {
    this.taskOnly = new Set(tools ?? [])
  }

  /** The progress handler of the call that sent `token`, if one is in flight. */
  progressFor(token: unknown): ((p: Progress) => void) | undefined {
    return this.progress.get(String(token))
  }

  /** Whose a log message that comes now is (log-readers.ts). */
  logOwner(): object | null {
    return this.logReaders.owner()
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
    const link = this.link
    const fail = (code: ConstructorParameters<typeof UpstreamCallError>[0], message: string, rpcCode?: number): UpstreamCallError =>
      new UpstreamCallError(code, link.redact(message), link.server, opts.label, rpcCode)
    if (opts.signal?.aborted) throw fail('cancelled', `${method} of ${opts.label} was cancelled before it was sent`)
    let result: Record<string, unknown>
    const leave = this.logReaders.enter(opts.owner ?? {})
    try {
      result = (await link.mcp.request({ method, params: this.withLogLevel(params, opts.owner) } as Parameters<Client['request']>[0], LooseResult, {
        timeout: opts.timeoutMs,
        signal: opts.signal,
      })) as Record<string, unknown>
    } catch (err) {
      if (opts.signal?.aborted) throw fail('cancelled', `${method} of ${opts.label} was cancelled by the caller`)
      if (isTimeout(err)) throw fail('timeout', `${method} of ${opts.label} timed out after ${opts.timeoutMs} ms`)
      if (isConnectionClosed(err)) throw fail('disconnected', `${method} of ${opts.label} failed: ${link.describeFailure(err, method)}`)
      if (err instanceof ProtocolError) throw fail('upstream_error', `${method} of ${opts.label} failed: ${err.message}`, err.code)
      throw fail('transport_error', `${method} of ${opts.label} failed: ${errorText(err).slice(0, 500)}`)
    } finally {
      leave()
    }
    result = withoutEnvelope(result)
    const bytes = Buffer.byteLength(JSON.stringify(result))
    if (bytes > link.limits.maxResultBytes) {
      throw fail(
        'result_too_large',
        `result of ${method} of ${opts.label} is ${bytes} bytes, over the limit of ${link.limits.maxResultBytes} bytes (limits.max_result_bytes)`,
      )
    }
    return link.mask.value(result)
  }

  async callTool(
    tool: string,
    args: Record<string, unknown>,
    opts: { timeoutMs: number; signal?: AbortSignal; onProgress?: (p: Progress) => void; asker?: CallAsker; owner?: LogOwner },
  ): Promise<CallToolResult> {
    const link = this.link
    const server = link.server
    const fail = (code: ConstructorParameters<typeof UpstreamCallError>[0], message: string): UpstreamCallError =>
      new UpstreamCallError(code, link.redact(message), server, tool)
    const label = `${server}:${tool}`
    if (opts.signal?.aborted) throw fail('cancelled', `call to ${label} was cancelled before it was sent`)

    // With a progress handler, the call carries a progressToken of ours (see the connection's catchProgress).
    const token = opts.onProgress ? `toolgate-${++this.progressSeq}` : null
    if (token && opts.onProgress) this.progress.set(token, opts.onProgress)
    const params = this.withLogLevel({ name: tool, arguments: args, ...(token ? { _meta: { progressToken: token } } : {}) }, opts.owner)
    let result: CallToolResult
    // call_timeout_ms counts the server's time, not a person's: it stands still while a question of this call is open
    const clock = new CallClock(opts.timeoutMs, opts.signal)
    const signal = clock.signal
    // while it runs, the server's requests reach this call's agent (and no one else's)
    const call = link.asks.begin(opts.asker ?? null, clock)
    const leave = this.logReaders.enter(opts.owner ?? {})
    try {
      // SDK 2.x removes its abort listener when the request settles (1.x leaked one per call, so
      // the signal went through a per-call AbortController; no longer needed)
      // a tool its 2025 server runs only as a task: run as one for the agent, which gets the result (task-call.ts)
      const asTask = link.era() === 'legacy' && this.taskOnly.has(tool) && offersToolTasks(link.mcp.getServerCapabilities())
      const leg = (p: Record<string, unknown>): Promise<CallToolResult> =>
        asTask
          ? callAsTask(link.mcp, p, { timeoutMs: opts.timeoutMs + MAX_PAUSE_MS, signal })
          : link.mcp.request({ method: 'tools/call', params: p }, CallToolResultSchema, {
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
        for (const [key, entry] of Object.entries(asked.inputRequests ?? {})) responses[key] = await link.asks.answerInput(call.id, entry, signal)
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
        const why = link.closedByUs() ? 'the connection was closed by Toolgate (server stopped or restarted)' : link.describeFailure(err, 'the call')
        throw fail('disconnected', `call to ${label} failed: ${why}`)
      }
      if (err instanceof ProtocolError) throw fail('upstream_error', `call to ${label} failed: ${err.message}`)
      const message = err instanceof Error ? err.message : String(err)
      if (err instanceof SdkError && err.code === SdkErrorCode.InvalidResult) {
        throw fail('upstream_error', `call to ${label} failed: the upstream returned an invalid tools/call result: ${message.slice(0, 500)}`)
      }
      if (err instanceof SdkError && err.code === SdkErrorCode.NotConnected) {
        throw fail('disconnected', `call to ${label} failed: ${link.closeReason()}`)
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
    if (bytes > link.limits.maxResultBytes) {
      throw fail('result_too_large', `result of ${label} is ${bytes} bytes, over the limit of ${link.limits.maxResultBytes} bytes (limits.max_result_bytes)`)
    }
    // the server's secrets never reach the agent, nor the activity record
    const safe = link.mask.value(result)
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
    asked.servers.add(this.link.server)
    if (this.link.era() !== 'modern') return params
    const meta = isRecord(params._meta) ? params._meta : {}
    return { ...params, _meta: { ...meta, [LOG_LEVEL_META_KEY]: asked.level } }
  }
}
