// The control API (docs/contract.md §5): JSON over HTTP onto the ControlService, SSE for events. The
// routes come from the table of operations (shared/operations.ts); two operator extras and the
// event stream are added here. Errors are {"error": {"code", "message"}} with a fitting status.
import type { IncomingMessage, ServerResponse } from 'node:http'
import { ApiError, type Api } from '../../../shared/api'
import { argsOfRequest, matchRoute } from '../../../shared/operation'
import { callOperation, OPERATIONS } from '../../../shared/operations'

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

export interface ControlExtras {
  createAgentToken(agent: string): Promise<string>
  /** forgets what retrieve_tools learned from agents' calls (search.learn) */
  forgetLearned(): Promise<number>
}

export async function handleControl(api: Api, extras: ControlExtras, req: IncomingMessage, res: ServerResponse, url: URL, body?: unknown): Promise<void> {
  const parts = url.pathname
    .replace(/^\/api\/v1\/?/, '')
    .split('/')
    .filter(Boolean)
    .map(decode)
  const method = req.method ?? 'GET'
  if (method === 'GET' && parts.length === 1 && parts[0] === 'events') return openEvents(api, req, res)
  if (method === 'DELETE' && parts.length === 2 && parts[0] === 'search' && parts[1] === 'learned') {
    return sendJson(res, 200, { forgotten: await extras.forgetLearned() })
  }
  if (method === 'POST' && parts.length === 3 && parts[0] === 'agents' && parts[2] === 'token') {
    return sendJson(res, 200, { agent: parts[1], token: await extras.createAgentToken(parts[1]) })
  }
  const found = matchRoute(OPERATIONS, method, parts)
  if (!found) {
    const route = `${method} ${parts.length ? parts[0] : ''}`
    throw new ApiError('not_found', `no such endpoint: ${route.trim()} ${url.pathname}; see docs/control-api.md for the control API`, 404)
  }
  const spec = OPERATIONS[found.name]
  const args = argsOfRequest(spec, found.params, Object.fromEntries(url.searchParams), body)
  const result = await callOperation(api, found.name, args)
  // search answers the text retrieve_tools answers, byte for byte
  return sendJson(res, 200, spec.result.kind === 'text' ? String(result) : JSON.stringify(result))
}
