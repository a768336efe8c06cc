// The one client of the control API (CONTRACT.md §5): the Api over HTTP with `fetch` only, used by
// the web UI and by the CLI's operator commands. It builds every route, sends the admin key and
// turns `{"error": {code, message}}` answers into ApiError; events come over SSE (sse.ts).
import {
  ApiError,
  type AgentInfo,
  type AgentTokenInfo,
  type ActionResult,
  type Api,
  type ApiEvent,
  type AppInfo,
  type AuthStatus,
  type SearchArgs,
  type RemoveResult,
  type ServerEntryView,
  type ServerInput,
  type SecretInfo,
  type SecretStoreInfo,
  type SignInStart,
  type ServerAction,
  type ServerActionOptions,
  type ServerInfo,
  type Stats,
  type StatusInfo,
  type ToolAction,
  type ToolActionOptions,
  type ToolInfo,
  type RequestActionResult,
  type GrantOptions,
  type ConfirmationActionResult,
} from './api'
import type { AccessRequest, RequestFilter } from './requests'
import type { ActivityPage, ActivityQuery } from './activity'
import type { AgentView } from './agents'
import type { Confirmation, ConfirmationFilter } from './confirmations'
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

/** The route of every request, in one place. */
export const controlRoutes = {
  info: () => '/api/v1/info',
  status: () => '/api/v1/status',
  servers: () => '/api/v1/servers',
  server: (name: string) => `/api/v1/servers/${enc(name)}`,
  stats: () => '/api/v1/stats',
  events: () => '/api/v1/events',
  tools: (server: string) => `/api/v1/servers/${enc(server)}/tools`,
  serverAction: (server: string, action: ServerAction) => `/api/v1/servers/${enc(server)}/${enc(action)}`,
  toolAction: (server: string, tool: string, action: ToolAction) => `/api/v1/servers/${enc(server)}/tools/${enc(tool)}/${enc(action)}`,
  approveAll: (server: string) => `/api/v1/servers/${enc(server)}/tools/approve-all`,
  auth: (server: string) => `/api/v1/servers/${enc(server)}/auth`,
  signIn: (server: string) => `/api/v1/servers/${enc(server)}/auth/login`,
  signOut: (server: string) => `/api/v1/servers/${enc(server)}/auth/logout`,
  agentToken: (agent: string) => `/api/v1/agents/${enc(agent)}/token`,
  searchLearned: () => '/api/v1/search/learned',
  agents: () => '/api/v1/agents',
  /** the tokens of an agent, or one of them */
  agentTokens: (agent: string, id?: string) => `/api/v1/agents/${enc(agent)}/tokens${id === undefined ? '' : `/${enc(id)}`}`,
  requests: (filter: RequestFilter = {}) => `/api/v1/requests${filter.status ? `?status=${enc(filter.status)}` : ''}`,
  grantRequest: (id: string) => `/api/v1/requests/${enc(id)}/grant`,
  denyRequest: (id: string) => `/api/v1/requests/${enc(id)}/deny`,
  activity(query: ActivityQuery): string {
    const q = new URLSearchParams()
    for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') q.set(k, String(v))
    return `/api/v1/activity${q.size ? `?${q.toString()}` : ''}`
  },
  serverEntry: (server: string) => `/api/v1/servers/${enc(server)}/entry`,
  restoreServer: (server: string) => `/api/v1/servers/${enc(server)}/restore`,
  secrets: () => '/api/v1/secrets',
  secret: (name: string) => `/api/v1/secrets/${enc(name)}`,
  confirmations: (filter: ConfirmationFilter = {}) => `/api/v1/confirmations${filter.status ? `?status=${enc(filter.status)}` : ''}`,
  answerConfirmation: (id: string, answer: 'allow' | 'deny') => `/api/v1/confirmations/${enc(id)}/${answer}`,
  askBeforeCall: (server: string, tool: string | null) =>
    tool === null ? `/api/v1/servers/${enc(server)}/confirm` : `/api/v1/servers/${enc(server)}/tools/${enc(tool)}/confirm`,
  search(args: SearchArgs): string {
    const q = new URLSearchParams({ q: args.query })
    if (args.limit !== undefined) q.set('limit', String(args.limit))
    if (args.include_disabled !== undefined) q.set('include_disabled', args.include_disabled ? 'true' : 'false')
    return `/api/v1/search?${q.toString()}`
  },
}

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
  }

  info(): Promise<AppInfo> {
    return this.json('GET', controlRoutes.info())
  }
  status(): Promise<StatusInfo> {
    return this.json('GET', controlRoutes.status())
  }
  servers(): Promise<{ servers: ServerInfo[] }> {
    return this.json('GET', controlRoutes.servers())
  }
  server(name: string): Promise<{ server: ServerInfo }> {
    return this.json('GET', controlRoutes.server(name))
  }
  tools(server: string): Promise<{ tools: ToolInfo[] }> {
    return this.json('GET', controlRoutes.tools(server))
  }
  serverAction(server: string, action: ServerAction, options?: ServerActionOptions): Promise<ActionResult> {
    return this.json('POST', controlRoutes.serverAction(server, action), options)
  }
  toolAction(server: string, tool: string, action: ToolAction, options?: ToolActionOptions): Promise<ActionResult> {
    return this.json('POST', controlRoutes.toolAction(server, tool, action), options)
  }
  requests(filter?: RequestFilter): Promise<{ requests: AccessRequest[] }> {
    return this.json('GET', controlRoutes.requests(filter))
  }
  grantRequest(id: string, grantFor: string, options?: GrantOptions): Promise<RequestActionResult> {
    return this.json('POST', controlRoutes.grantRequest(id), { for: grantFor, ...(options?.hash ? { hash: options.hash } : {}) })
  }
  denyRequest(id: string): Promise<RequestActionResult> {
    return this.json('POST', controlRoutes.denyRequest(id))
  }
  confirmations(filter?: ConfirmationFilter): Promise<{ confirmations: Confirmation[] }> {
    return this.json('GET', controlRoutes.confirmations(filter))
  }
  allowConfirmation(id: string): Promise<ConfirmationActionResult> {
    return this.json('POST', controlRoutes.answerConfirmation(id, 'allow'))
  }
  denyConfirmation(id: string): Promise<ConfirmationActionResult> {
    return this.json('POST', controlRoutes.answerConfirmation(id, 'deny'))
  }
  setAskBeforeCall(server: string, tool: string | null, ask: boolean): Promise<ActionResult> {
    return this.json('POST', controlRoutes.askBeforeCall(server, tool), { ask })
  }
  approveAll(server: string): Promise<ActionResult> {
    return this.json('POST', controlRoutes.approveAll(server))
  }
  signIn(server: string): Promise<SignInStart> {
    return this.json('POST', controlRoutes.signIn(server))
  }
  authStatus(server: string): Promise<AuthStatus> {
    return this.json('GET', controlRoutes.auth(server))
  }
  signOut(server: string): Promise<ActionResult> {
    return this.json('POST', controlRoutes.signOut(server))
  }
  async search(args: SearchArgs): Promise<string> {
    const res = await this.request('GET', controlRoutes.search(args))
    return res.text() // raw: byte-identical to retrieve_tools, never re-serialized
  }
  stats(): Promise<Stats> {
    return this.json('GET', controlRoutes.stats())
  }
  serverEntry(server: string): Promise<{ entry: ServerEntryView }> {
    return this.json('GET', controlRoutes.serverEntry(server))
  }
  addServer(input: ServerInput): Promise<ActionResult> {
    return this.json('POST', controlRoutes.servers(), input)
  }
  editServer(server: string, input: ServerInput): Promise<ActionResult> {
    return this.json('PUT', controlRoutes.server(server), input)
  }
  removeServer(server: string): Promise<RemoveResult> {
    return this.json('DELETE', controlRoutes.server(server))
  }
  restoreServer(server: string): Promise<ActionResult> {
    return this.json('POST', controlRoutes.restoreServer(server))
  }
  secrets(): Promise<{ secrets: SecretInfo[]; store: SecretStoreInfo }> {
    return this.json('GET', controlRoutes.secrets())
  }
  setSecret(name: string, value: string): Promise<ActionResult> {
    return this.json('PUT', controlRoutes.secret(name), { value })
  }
  deleteSecret(name: string): Promise<ActionResult> {
    return this.json('DELETE', controlRoutes.secret(name))
  }
  /** A new token for an agent of the config (the control API's extra route, not part of the Api). */
  async createAgentToken(agent: string): Promise<string> {
    return (await this.json<{ token: string }>('POST', controlRoutes.agentToken(agent))).token
  }
  /** Forgets what learning from use recorded; answers how many records went (extra route, not part of the Api). */
  async forgetLearned(): Promise<number> {
    return (await this.json<{ forgotten: number }>('DELETE', controlRoutes.searchLearned())).forgotten
  }
  agentTokens(agent: string): Promise<{ tokens: AgentTokenInfo[] }> {
    return this.json('GET', controlRoutes.agentTokens(agent))
  }
  revokeAgentTokens(agent: string, id?: string): Promise<ActionResult> {
    return this.json('DELETE', controlRoutes.agentTokens(agent, id))
  }
  activity(query: ActivityQuery): Promise<ActivityPage> {
    return this.json('GET', controlRoutes.activity(query))
  }
  agents(): Promise<{ agents: AgentView[] }> {
    return this.json('GET', controlRoutes.agents())
  }

  subscribe(listener: (event: ApiEvent) => void): () => void {
    this.listeners.add(listener)
    if (!this.stopStream) {
      this.stopStream = openEventStream({
        url: `${this.base}${controlRoutes.events()}`,
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
