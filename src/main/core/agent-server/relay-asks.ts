// An upstream's questions (elicitation, sampling) reach the agent whose call they belong to
// (docs/passthrough.md; the guards are in upstream/server-requests.ts):
// - a 2025 session: a request to its client on the call's own stream (relatedRequestId), with the
//   answer validated before it goes back to the server;
// - a 2026-07-28 agent: the call answers input_required with the question; the upstream call
//   goes on waiting in a RelayCall, and the agent's retry (its requestState signed by Toolgate and
//   bound to the credential, the agent and the tool) hands the answer back and waits for what
//   comes next: another question or the result. A retry that never comes ends the call.
// A client that did not declare the capability gets nothing: the server gets a clear refusal.
import { randomUUID } from 'node:crypto'
import { CreateMessageResultSchema, ElicitResultSchema } from '@modelcontextprotocol/core'
import {
  inputRequired,
  ProtocolError,
  ProtocolErrorCode,
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  type RequestStateCodec,
  type ServerContext,
} from '@modelcontextprotocol/server'
import type { AskMethod, CallAsker } from '../upstream/server-requests'
import type { InClientState } from './in-client'

/** How long a relayed question waits for the person (and a 2026-07-28 agent's retry). */
export const ASK_WAIT_MS = 10 * 60_000

const refuse = (message: string): ProtocolError => new ProtocolError(ProtocolErrorCode.InvalidRequest, message)

/** Does the client take this request (its declared capabilities)? An empty elicitation capability means form (2025-06-18). */
export function clientTakes(caps: ClientCapabilities | undefined, method: AskMethod, params: Record<string, unknown>): boolean {
  if (method === 'sampling/createMessage') return caps?.sampling !== undefined && caps.sampling !== null
  const el = caps?.elicitation as { form?: unknown; url?: unknown } | undefined | null
  if (el === undefined || el === null) return false
  if (params.mode === 'url') return el.url !== undefined
  return el.form !== undefined || el.url === undefined
}

function notTaken(method: AskMethod, params: Record<string, unknown>, client: string | null): ProtocolError {
  const what = method === 'sampling/createMessage' ? 'sampling' : `${params.mode === 'url' ? 'URL' : 'form'} elicitation`
  return refuse(`the agent's client${client ? ` "${client}"` : ''} does not support ${what} (it did not declare it), so nobody was asked.`)
}

/** The answer of a client, checked before it reaches the server. */
function checkedAnswer(method: AskMethod, answer: unknown): Record<string, unknown> {
  const parsed = (method === 'sampling/createMessage' ? CreateMessageResultSchema : ElicitResultSchema).safeParse(answer)
  if (!parsed.success) throw refuse(`the agent's client answered the ${method} with something that is not a valid answer; nothing was passed on.`)
  return parsed.data as Record<string, unknown>
}

/** A 2025 session's asker: the question goes to its client on the call's own stream. */
export function sessionAsker(owner: string, caps: () => ClientCapabilities | undefined, client: string | null, ctx: ServerContext): CallAsker {
  return {
    owner,
    takes: (method, params) => clientTakes(caps(), method, params),
    ask: async (method, params, signal) => {
      if (!clientTakes(caps(), method, params)) throw notTaken(method, params, client)
      const schema = method === 'sampling/createMessage' ? CreateMessageResultSchema : ElicitResultSchema
      // a 2025 URL elicitation names itself (a 2026-07-28 server's has no id: Toolgate gives one)
      const sent = params.mode === 'url' && typeof params.elicitationId !== 'string' ? { ...params, elicitationId: randomUUID() } : params
      const answer = await ctx.mcpReq.send({ method, params: sent }, schema, { signal, timeout: ASK_WAIT_MS })
      return checkedAnswer(method, answer)
    },
  }
}

/** What a relayed question's requestState says (signed with the confirmations' codec; `k` tells it apart). */
export interface RelayState {
  v: 1
  k: 'relay'
  /** the RelayCall */
  r: string
  /** the credential */
  p: string
  /** the tool id ("server:tool") */
  t: string
}

export function isRelayState(v: unknown): v is RelayState {
  const s = v as Partial<RelayState> | null
  return typeof s === 'object' && s !== null && s.v === 1 && s.k === 'relay' && typeof s.r === 'string' && typeof s.p === 'string' && typeof s.t === 'string'
}

interface Parked {
  key: string
  method: AskMethod
  params: Record<string, unknown>
  resolve(answer: Record<string, unknown>): void
  reject(err: Error): void
}

export type Step = { result: CallToolResult } | { asks: Parked[] }

/** One call of a 2026-07-28 agent whose upstream asks: the call runs on while the agent answers by retrying. */
export class RelayCall {
  readonly id = randomUUID()
  readonly abort = new AbortController()
  private queued: Parked[] = []
  private readonly sent = new Map<string, Parked>()
  private result: CallToolResult | null = null
  private wake: (() => void) | null = null
  private seq = 0
  private timer: NodeJS.Timeout | null = null

  constructor(
    readonly principal: string,
    readonly agent: string | null,
    readonly tool: string,
    private readonly caps: ClientCapabilities | undefined,
    private readonly client: string | null,
    private readonly onEnd: () => void,
    private readonly format: (call: RelayCall, step: Step) => Promise<CallToolResult | InputRequiredResult>,
  ) {}

  /** A step as the agent gets it: the result, or input_required with the questions and a signed state. */
  stepResult(step: Step): Promise<CallToolResult | InputRequiredResult> {
    return this.format(this, step)
  }

  readonly asker: CallAsker = {
    owner: `relay:${this.id}`,
    takes: (method, params) => clientTakes(this.caps, method, params),
    ask: (method, params, signal) => {
      if (!clientTakes(this.caps, method, params)) return Promise.reject(notTaken(method, params, this.client))
      return new Promise((resolve, reject) => {
        // the 2026-07-28 URL elicitation has no elicitationId (the call's state correlates it)
        const { elicitationId, ...shaped } = params
        void elicitationId
        const p: Parked = { key: `toolgate_ask_${++this.seq}`, method, params: shaped, resolve, reject }
        signal.addEventListener('abort', () => this.drop(p, new Error(`the ${method} was withdrawn`)), { once: true })
        this.queued.push(p)
        this.poke()
      })
    },
  }

  /** Runs the call; resolves with its first step (a question for the agent, or the result). */
  start(work: (asker: CallAsker, signal: AbortSignal) => Promise<CallToolResult>): Promise<Step> {
    void work(this.asker, this.abort.signal).then((r) => {
      this.result = r
      this.poke()
    })
    return this.next()
  }

  /** The agent's answers (its retry's inputResponses): each to the question it answers, checked. */
  answer(responses: Record<string, unknown> | undefined): void {
    for (const [key, p] of this.sent) {
      if (responses?.[key] === undefined) continue
      this.sent.delete(key)
      try {
        p.resolve(checkedAnswer(p.method, responses[key]))
      } catch (e) {
        p.reject(e as Error)
      }
    }
    // a question the retry did not answer is asked again
    this.queued.unshift(...this.sent.values())
    this.sent.clear()
  }

  /** Waits for the next step; the call ends when no retry comes within ASK_WAIT_MS. */
  next(): Promise<Step> {
    this.stopTimer()
    return new Promise<Step>((resolve) => {
      const check = (): boolean => {
        if (this.result) {
          this.onEnd()
          resolve({ result: this.result })
          return true
        }
        if (this.queued.length === 0) return false
        const asks = this.queued
        this.queued = []
        for (const p of asks) this.sent.set(p.key, p)
        // the agent retries with its answers, or the call ends
        this.timer = setTimeout(() => this.end(new Error('the agent did not answer in time')), ASK_WAIT_MS)
        this.timer.unref()
        resolve({ asks })
        return true
      }
      if (check()) return
      this.wake = () => {
        if (check()) this.wake = null
      }
    })
  }

  /** Ends the call: questions still open are refused, the upstream call is cancelled. */
  end(why: Error): void {
    this.stopTimer()
    for (const p of [...this.queued, ...this.sent.values()]) p.reject(why)
    this.queued = []
    this.sent.clear()
    this.abort.abort(why)
    this.onEnd()
  }

  private drop(p: Parked, why: Error): void {
    this.queued = this.queued.filter((x) => x !== p)
    this.sent.delete(p.key)
    p.reject(why)
  }

  private poke(): void {
    this.wake?.()
  }

  private stopTimer(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }
}

/** The RelayCalls of 2026-07-28 agents waiting for their retry. */
export class RelayCalls {
  private readonly calls = new Map<string, RelayCall>()

  constructor(private readonly codec: RequestStateCodec<InClientState>) {}

  open(principal: string, agent: string | null, tool: string, caps: ClientCapabilities | undefined, client: string | null): RelayCall {
    const call: RelayCall = new RelayCall(
      principal,
      agent,
      tool,
      caps,
      client,
      () => this.calls.delete(call.id),
      (c, step) => this.answerOf(c, step),
    )
    this.calls.set(call.id, call)
    return call
  }

  get size(): number {
    return this.calls.size
  }

  /** A step as the agent gets it: the result, or input_required with the questions and a signed state. */
  async answerOf(call: RelayCall, step: Step): Promise<CallToolResult | InputRequiredResult> {
    if ('result' in step) return step.result
    const state: RelayState = { v: 1, k: 'relay', r: call.id, p: call.principal, t: call.tool }
    // the confirmations' codec signs it (the server verifies every requestState with it); `k` tells it apart
    const requestState = await this.codec.mint(state)
    const inputRequests = Object.fromEntries(step.asks.map((p) => [p.key, { method: p.method, params: p.params }]))
    return inputRequired({ inputRequests: inputRequests as never, requestState })
  }

  /**
   * The retry of a call that asked: only by the credential and agent that made it, for the same
   * tool; the answers go to the upstream, and the agent gets what comes next.
   */
  async resume(
    state: RelayState,
    principal: string,
    agent: string | null,
    tool: string,
    responses: Record<string, unknown> | undefined,
  ): Promise<CallToolResult | InputRequiredResult> {
    const call = this.calls.get(state.r)
    if (!call || call.principal !== principal || state.p !== principal || call.agent !== agent || call.tool !== tool || state.t !== tool) {
      return {
        isError: true,
        content: [
          { type: 'text', text: 'CALL_ENDED: the answer (requestState) belongs to no call of yours that waits; nothing was passed on. Call the tool again.' },
        ],
      }
    }
    call.answer(responses)
    return call.stepResult(await call.next())
  }
}
