// The web-UI adapter: the shared Api over the control API of `toolgate serve` (CONTRACT.md §5).
import {
  ApiError,
  type ActionResult,
  type Api,
  type ApiEvent,
  type AppInfo,
  type SearchArgs,
  type ServerAction,
  type ServerInfo,
  type Stats,
  type StatusInfo,
  type ToolAction,
  type ToolInfo,
} from '../../shared/api'
import { openEventStream } from './sse'

export interface HttpApiOptions {
  key: string
  /** origin + path prefix of the control API host; '' = same origin */
  baseUrl?: string
  fetch?: typeof fetch
}

const enc = encodeURIComponent

export class HttpApi implements Api {
  private readonly key: string
  private readonly base: string
  private readonly fetchFn: typeof fetch
  private readonly listeners = new Set<(event: ApiEvent) => void>()
  private stopStream: (() => void) | null = null

  constructor(opts: HttpApiOptions) {
    this.key = opts.key
    this.base = (opts.baseUrl ?? '').replace(/\/$/, '')
    // bind: window.fetch throws "Illegal invocation" when called as a method of another object
    this.fetchFn = opts.fetch ?? globalThis.fetch.bind(globalThis)
  }

  info(): Promise<AppInfo> {
    return this.json('GET', '/api/v1/info')
  }
  status(): Promise<StatusInfo> {
    return this.json('GET', '/api/v1/status')
  }
  servers(): Promise<{ servers: ServerInfo[] }> {
    return this.json('GET', '/api/v1/servers')
  }
  tools(server: string): Promise<{ tools: ToolInfo[] }> {
    return this.json('GET', `/api/v1/servers/${enc(server)}/tools`)
  }
  serverAction(server: string, action: ServerAction): Promise<ActionResult> {
    return this.json('POST', `/api/v1/servers/${enc(server)}/${enc(action)}`)
  }
  toolAction(server: string, tool: string, action: ToolAction): Promise<ActionResult> {
    return this.json('POST', `/api/v1/servers/${enc(server)}/tools/${enc(tool)}/${enc(action)}`)
  }
  approveAll(server: string): Promise<ActionResult> {
    return this.json('POST', `/api/v1/servers/${enc(server)}/tools/approve-all`)
  }
  async search(args: SearchArgs): Promise<string> {
    const q = new URLSearchParams({ q: args.query })
    if (args.limit !== undefined) q.set('limit', String(args.limit))
    if (args.include_disabled !== undefined) q.set('include_disabled', args.include_disabled ? 'true' : 'false')
    const res = await this.request('GET', `/api/v1/search?${q.toString()}`)
    return res.text() // raw: byte-identical to retrieve_tools, never re-serialized
  }
  stats(): Promise<Stats> {
    return this.json('GET', '/api/v1/stats')
  }

  subscribe(listener: (event: ApiEvent) => void): () => void {
    this.listeners.add(listener)
    if (!this.stopStream) {
      this.stopStream = openEventStream({
        url: `${this.base}/api/v1/events`,
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
    return { Authorization: `Bearer ${this.key}` }
  }

  private async json<T>(method: 'GET' | 'POST', path: string): Promise<T> {
    const res = await this.request(method, path)
    return (await res.json()) as T
  }

  private async request(method: 'GET' | 'POST', path: string): Promise<Response> {
    let res: Response
    try {
      res = await this.fetchFn(`${this.base}${path}`, {
        method,
        headers: { Accept: 'application/json', ...this.authHeaders(), ...(method === 'POST' ? { 'Content-Type': 'application/json' } : {}) },
        ...(method === 'POST' ? { body: '{}' } : {}),
        cache: 'no-store',
      })
    } catch (err) {
      throw new ApiError('unreachable', `Cannot reach Toolgate (${err instanceof Error ? err.message : String(err)}). Is \`toolgate serve\` still running?`, 0)
    }
    if (!res.ok) throw await toApiError(res)
    return res
  }
}

async function toApiError(res: Response): Promise<ApiError> {
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
