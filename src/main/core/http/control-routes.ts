// The control API (CONTRACT.md §5): JSON over HTTP onto the ControlService, SSE for events.
// Errors are {"error": {"code", "message"}} with a fitting status.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { z } from 'zod'
import { ApiError, isServerAction, isToolAction, type Api, type ServerActionOptions, type ServerInput, type ToolActionOptions } from '../../../shared/api'
import { GrantBodySchema, grantForText, TimedActionBodySchema } from '../../../shared/grant-for'
import { RequestFilterSchema } from '../../../shared/requests'
import { AskSwitchBodySchema, ConfirmAnswerBodySchema, ConfirmationFilterSchema } from '../../../shared/confirmations'

export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' })
  res.end(text)
}

export function sendError(res: ServerResponse, err: unknown): void {
  if (err instanceof ApiError) return sendJson(res, err.status, { error: { code: err.code, message: err.message } })
  sendJson(res, 500, { error: { code: 'internal', message: (err as Error)?.message ?? String(err) } })
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part)
  } catch {
    throw new ApiError('bad_path', `malformed path segment "${part}"`, 400)
  }
}

const SearchQuery = z.object({
  q: z.string({ error: 'q is required: GET /api/v1/search?q=read+a+file' }),
  limit: z
    .string()
    .regex(/^-?\d+$/, 'limit must be an integer from 1 to 100')
    .transform(Number)
    .optional(),
  include_disabled: z.enum(['true', 'false', '1', '0'], { error: 'include_disabled must be true or false' }).optional(),
})

/** A filter query's parameters; an empty one (`?agent=&status=`, as a form or a URL template sends it) means no filter. */
function filterParams(url: URL): Record<string, string> {
  return Object.fromEntries([...url.searchParams].filter(([, v]) => v !== ''))
}

function openEvents(api: Api, req: IncomingMessage, res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' })
  res.write(': toolgate events\n\n')
  const unsubscribe = api.subscribe((ev) => res.write(`event: ${ev.type}\ndata: ${JSON.stringify(ev.data)}\n\n`))
  const ping = setInterval(() => res.write(': ping\n\n'), 15000)
  const end = (): void => {
    clearInterval(ping)
    unsubscribe()
  }
  req.on('close', end)
  res.on('error', end)
}

const InspectBody = z
  .object({ network: z.boolean({ error: 'network must be true or false' }).optional() }, { error: 'the body must be an object like {"network": true}' })
  .passthrough()

/** Inspect's options: `{"network": true}` in the body or `?network=true` (lets the unreviewed server reach the network). */
function inspectOptions(raw: unknown, url: URL): ServerActionOptions | undefined {
  const body = InspectBody.safeParse(raw ?? {})
  if (!body.success) throw new ApiError('invalid_arguments', body.error.issues[0].message, 400)
  const q = url.searchParams.get('network')
  if (q !== null && !['true', 'false', '1', '0'].includes(q)) throw new ApiError('invalid_arguments', 'network must be true or false', 400)
  const network = body.data.network === true || q === 'true' || q === '1'
  return network ? { network: true } : undefined
}

/** `{"for": "1h"}` of enable/approve, validated; undefined when absent. */
function timedFor(raw: unknown): string | undefined {
  const body = TimedActionBodySchema.safeParse(raw ?? {})
  if (!body.success) throw new ApiError('invalid_arguments', body.error.issues[0].message, 400)
  return body.data.for ? grantForText(body.data.for) : undefined
}

const HashBody = z
  .object(
    { hash: z.string({ error: 'hash must be a string' }).min(1, 'hash must not be empty').optional() },
    { error: 'the body must be an object like {"hash": "…"}' },
  )
  .passthrough()

/** `{"hash": "…"}`: the tool definition (tool actions) or the server launch (`launch_hash`: approve, inspect) the user reviewed. */
function reviewedHash(raw: unknown): string | undefined {
  const body = HashBody.safeParse(raw ?? {})
  if (!body.success) throw new ApiError('invalid_arguments', body.error.issues[0].message, 400)
  return body.data.hash
}

/** A tool action's options: `{"hash": "…"}` approves or rejects exactly that definition; `{"for": "1h"}` times enable/approve. */
function toolActionOptions(raw: unknown, action: string): ToolActionOptions | undefined {
  const hash = reviewedHash(raw)
  const f = action === 'enable' || action === 'approve' ? timedFor(raw) : undefined
  const options: ToolActionOptions = { ...(hash ? { hash } : {}), ...(f ? { for: f } : {}) }
  return Object.keys(options).length ? options : undefined
}

export interface ControlExtras {
  createAgentToken(agent: string): Promise<string>
  /** forgets what retrieve_tools learned from agents' calls (search.learn) */
  forgetLearned(): Promise<number>
}

const SecretBody = z.object(
  { value: z.string({ error: 'send {"value": "<the secret>"} as the JSON body' }) },
  { error: 'send {"value": "<the secret>"} as the JSON body' },
)

export async function handleControl(api: Api, extras: ControlExtras, req: IncomingMessage, res: ServerResponse, url: URL, body?: unknown): Promise<void> {
  const parts = url.pathname
    .replace(/^\/api\/v1\/?/, '')
    .split('/')
    .filter(Boolean)
    .map(decode)
  const method = req.method ?? 'GET'
  const route = `${method} ${parts.length ? parts[0] : ''}`
  if (method === 'GET' && parts.length === 1) {
    switch (parts[0]) {
      case 'status':
        return sendJson(res, 200, await api.status())
      case 'info':
        return sendJson(res, 200, await api.info())
      case 'servers':
        return sendJson(res, 200, await api.servers())
      case 'stats':
        return sendJson(res, 200, await api.stats())
      case 'agents':
        return sendJson(res, 200, await api.agents())
      case 'activity':
        return sendJson(res, 200, await api.activity(filterParams(url)))
      case 'secrets':
        return sendJson(res, 200, await api.secrets())
      case 'events':
        return openEvents(api, req, res)
      case 'confirmations': {
        const f = ConfirmationFilterSchema.safeParse(filterParams(url))
        if (!f.success) throw new ApiError('invalid_arguments', f.error.issues[0].message, 400)
        return sendJson(res, 200, await api.confirmations(f.data))
      }
      case 'requests': {
        const f = RequestFilterSchema.safeParse(filterParams(url))
        if (!f.success) throw new ApiError('invalid_arguments', f.error.issues[0].message, 400)
        return sendJson(res, 200, await api.requests(f.data))
      }
      case 'search': {
        const q = SearchQuery.safeParse(Object.fromEntries(url.searchParams))
        if (!q.success) throw new ApiError('invalid_arguments', q.error.issues[0].message, 400)
        const text = await api.search({
          query: q.data.q,
          ...(q.data.limit !== undefined ? { limit: q.data.limit } : {}),
          ...(q.data.include_disabled !== undefined ? { include_disabled: q.data.include_disabled === 'true' || q.data.include_disabled === '1' } : {}),
        })
        return sendJson(res, 200, text)
      }
    }
  }
  if (method === 'DELETE' && parts.length === 2 && parts[0] === 'search' && parts[1] === 'learned') {
    return sendJson(res, 200, { forgotten: await extras.forgetLearned() })
  }
  if (parts[0] === 'servers' && parts.length === 1 && method === 'POST') return sendJson(res, 200, await api.addServer(body as ServerInput))
  if (parts[0] === 'servers' && parts.length === 2) {
    if (method === 'PUT') return sendJson(res, 200, await api.editServer(parts[1], body as ServerInput))
    if (method === 'DELETE') return sendJson(res, 200, await api.removeServer(parts[1]))
  }
  if (parts[0] === 'servers' && parts.length === 3 && method === 'GET' && parts[2] === 'entry') return sendJson(res, 200, await api.serverEntry(parts[1]))
  if (parts[0] === 'servers' && parts.length === 3 && method === 'POST' && parts[2] === 'restore') return sendJson(res, 200, await api.restoreServer(parts[1]))
  if (parts[0] === 'secrets' && parts.length === 2) {
    if (method === 'PUT') {
      const b = SecretBody.safeParse(body)
      if (!b.success) throw new ApiError('invalid_arguments', b.error.issues[0].message, 400)
      return sendJson(res, 200, await api.setSecret(parts[1], b.data.value))
    }
    if (method === 'DELETE') return sendJson(res, 200, await api.deleteSecret(parts[1]))
  }
  if (parts[0] === 'agents' && parts.length >= 3) {
    const agent = parts[1]
    if (method === 'POST' && parts.length === 3 && parts[2] === 'token') {
      return sendJson(res, 200, { agent, token: await extras.createAgentToken(agent) })
    }
    if (parts[2] === 'tokens' && parts.length <= 4) {
      if (method === 'GET' && parts.length === 3) return sendJson(res, 200, await api.agentTokens(agent))
      if (method === 'DELETE') return sendJson(res, 200, await api.revokeAgentTokens(agent, parts[3]))
    }
  }
  if (method === 'POST' && parts.length === 3 && parts[0] === 'requests' && (parts[2] === 'grant' || parts[2] === 'deny')) {
    if (parts[2] === 'deny') return sendJson(res, 200, await api.denyRequest(parts[1]))
    const b = GrantBodySchema.safeParse(body ?? {})
    if (!b.success) throw new ApiError('invalid_arguments', b.error.issues[0].message, 400)
    const grantFor = grantForText(b.data.for)
    return sendJson(res, 200, await (b.data.hash ? api.grantRequest(parts[1], grantFor, { hash: b.data.hash }) : api.grantRequest(parts[1], grantFor)))
  }
  if (method === 'POST' && parts.length === 3 && parts[0] === 'confirmations' && (parts[2] === 'allow' || parts[2] === 'deny')) {
    const b = ConfirmAnswerBodySchema.safeParse(body ?? {})
    if (!b.success) throw new ApiError('invalid_arguments', b.error.issues[0].message, 400)
    return sendJson(res, 200, parts[2] === 'allow' ? await api.allowConfirmation(parts[1]) : await api.denyConfirmation(parts[1]))
  }
  if (
    method === 'POST' &&
    parts[0] === 'servers' &&
    parts[parts.length - 1] === 'confirm' &&
    (parts.length === 3 || (parts.length === 5 && parts[2] === 'tools'))
  ) {
    const b = AskSwitchBodySchema.safeParse(body ?? {})
    if (!b.success) throw new ApiError('invalid_arguments', b.error.issues[0].message, 400)
    return sendJson(res, 200, await api.setAskBeforeCall(parts[1], parts.length === 5 ? parts[3] : null, b.data.ask))
  }
  if (parts[0] === 'servers' && parts.length >= 2) {
    const server = parts[1]
    if (method === 'GET' && parts.length === 2) return sendJson(res, 200, await api.server(server))
    if (method === 'GET' && parts.length === 3 && parts[2] === 'tools') return sendJson(res, 200, await api.tools(server))
    if (parts[2] === 'auth') {
      if (method === 'GET' && parts.length === 3) return sendJson(res, 200, await api.authStatus(server))
      if (method === 'POST' && parts.length === 4 && parts[3] === 'login') return sendJson(res, 200, await api.signIn(server))
      if (method === 'POST' && parts.length === 4 && parts[3] === 'logout') return sendJson(res, 200, await api.signOut(server))
    }
    const action = parts[parts.length - 1]
    if (method === 'POST' && parts.length === 3 && isServerAction(action)) {
      const f = action === 'enable' || action === 'approve' ? timedFor(body) : undefined
      const hash = action === 'approve' || action === 'inspect' ? reviewedHash(body) : undefined
      const options: ServerActionOptions = { ...(action === 'inspect' ? inspectOptions(body, url) : f ? { for: f } : {}), ...(hash ? { hash } : {}) }
      return sendJson(res, 200, await api.serverAction(server, action, ...(Object.keys(options).length ? [options] : [])))
    }
    if (method === 'POST' && parts.length === 4 && parts[2] === 'tools' && parts[3] === 'approve-all') {
      return sendJson(res, 200, await api.approveAll(server))
    }
    if (method === 'POST' && parts.length === 5 && parts[2] === 'tools' && isToolAction(action)) {
      const options = toolActionOptions(body, action)
      return sendJson(res, 200, await api.toolAction(server, parts[3], action, ...(options ? [options] : [])))
    }
  }
  throw new ApiError('not_found', `no such endpoint: ${route.trim()} ${url.pathname}; see CONTRACT §5 for the control API`, 404)
}
