// The one client of the control API (docs/contract.md §5): the Api over HTTP with `fetch` only, used by
// the web UI and by the CLI's operator commands. Each operation's request comes from the table
// (operations.ts); it sends the admin key and turns `{"error": {code, message}}` answers into
// ApiError; events come over SSE (sse.ts).
import { ApiError, type ApiEvent } from './api'
import { OPERATIONS, proxyOperations, type Api, type ApiOps, type OpName } from './operations'
import { requestOf } from './operation'
import { openEventStream } from './sse'

export interface ControlClientOptions {
  key: string
  /** origin + path prefix of the Toolgate listener; '' = same origin (the web UI) */
  baseUrl?: string
  fetch?: typeof fetch
  /** what to say when the listener cannot be reached, after the network error */
  unreachableHint?: string
  /** which surface this is (X-Toolgate-Client): labels decisions in the activity record, grants nothing */
  surface?: 'ui' | 'cli'
}

const enc = encodeURIComponent

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE'

/** The routes that are not operations of the Api: the event stream and two operator extras. */
export const extraRoutes = {
  events: () => '/api/v1/events',
  agentToken: (agent: string) => `/api/v1/agents/${enc(agent)}/token`,
  searchLearned: () => '/api/v1/search/learned',
}

// the operations are assigned in the constructor (proxyOperations), one per entry of the table
export interface ControlClient extends ApiOps {}

export class ControlClient implements Api {
  private readonly key: string
  private readonly base: string
  private readonly fetchFn: typeof fetch
  private readonly hint: string
  private readonly surface: 'ui' | 'cli' | undefined
  private readonly listeners = new Set<(event: ApiEvent) => void>()
  private stopStream: (() => void) | null = null

  constructor(opts: ControlClientOptions) {
    this.key = opts.key
    this.base = (opts.baseUrl ?? '').replace(/\/$/, '')
    // bind: window.fetch throws "Illegal invocation" when called as a method of another object
    this.fetchFn = opts.fetch ?? globalThis.fetch.bind(globalThis)
    this.hint = opts.unreachableHint ?? 'Is Toolgate still running?'
    this.surface = opts.surface
    Object.assign(
      this,
      proxyOperations((op, args) => this.call(op, args)),
    )
  }

  /** One operation as its request (the table's method, path, query and body). */
  private async call(op: OpName, args: unknown[]): Promise<unknown> {
    const spec = OPERATIONS[op]
    const r = requestOf(spec, args)
    const res = await this.request(r.method, `/api/v1${r.path}`, r.body)
    // search: raw, byte-identical to retrieve_tools, never re-serialized
    return spec.result.kind === 'text' ? res.text() : res.json()
  }

  /** A new token for an agent of the config (the control API's extra route, not part of the Api). */
  async createAgentToken(agent: string): Promise<string> {
    return (await this.json<{ token: string }>('POST', extraRoutes.agentToken(agent))).token
  }
  /** Forgets what learning from use recorded; answers how many records went (extra route, not part of the Api). */
  async forgetLearned(): Promise<number> {
    return (await this.json<{ forgotten: number }>('DELETE', extraRoutes.searchLearned())).forgotten
  }

  subscribe(listener: (event: ApiEvent) => void): () => void {
    this.listeners.add(listener)
    if (!this.stopStream) {
      this.stopStream = openEventStream({
        url: `${this.base}${extraRoutes.events()}`,
        headers: () => this.authHeaders(),
        fetch: this.fetchFn,
        onEvent: (ev) => this.emit(ev),
        // events may have been missed while disconnected: tell listeners to refetch everything
        onReconnect: () => this.emit({ type: 'config.reloaded', data: { reconnected: true } }),
      })
    }
    return () => {
      this.listeners.delete(listener)
      if (this.listeners.size === 0 && this.stopStream) {
        this.stopStream()
        this.stopStream = null
      }
    }
  }

  private emit(ev: ApiEvent): void {
    for (const l of [...this.listeners]) {
      try {
        l(ev)
      } catch {
        // one broken listener must not starve the others
      }
    }
  }

  private authHeaders(): Record<string, string> {
    return { Authorization: `Bearer ${this.key}`, ...(this.surface ? { 'X-Toolgate-Client': this.surface } : {}) }
  }

  private async json<T>(method: Method, path: string, body?: unknown): Promise<T> {
    const res = await this.request(method, path, body)
    return (await res.json()) as T
  }

  private async request(method: Method, path: string, body?: unknown): Promise<Response> {
    const url = `${this.base}${path}`
    const sends = method === 'POST' || method === 'PUT'
    let res: Response
    try {
      res = await this.fetchFn(url, {
        method,
        headers: { Accept: 'application/json', ...this.authHeaders(), ...(sends ? { 'Content-Type': 'application/json' } : {}) },
        ...(sends ? { body: JSON.stringify(body ?? {}) } : {}),
      })
    } catch (err) {
      const why = err instanceof Error ? err.message : String(err)
      throw new ApiError('unreachable', `Cannot reach Toolgate${this.base ? ` at ${this.base}` : ''} (${why}). ${this.hint}`, 0)
    }
    if (!res.ok) throw await toApiError(res)
    return res
  }
}

/** An error answer as ApiError: the body's {"error": {code, message}}, else the status line. */
export async function toApiError(res: Response): Promise<ApiError> {
  let text = ''
  try {
    text = await res.text()
  } catch {
    // no body
  }
  try {
    const body = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } }
    if (body?.error && typeof body.error.message === 'string') {
      const code = typeof body.error.code === 'string' ? body.error.code : `http_${res.status}`
      return new ApiError(code, body.error.message, res.status)
    }
  } catch {
    // not JSON
  }
  const fallback = res.status === 401 ? 'The API key was not accepted.' : `HTTP ${res.status} ${res.statusText}`.trim()
  return new ApiError(res.status === 401 ? 'unauthorized' : `http_${res.status}`, text.trim() || fallback, res.status)
}
