// A 2025 session's cancelled request closes its answer stream. The client's
// notifications/cancelled aborts the request's handler (the SDK; an upstream call is cancelled
// upstream), and MCP says no answer is sent for it, so the SDK's transport would keep that
// request's SSE stream open for good, waiting for an answer that never comes: one open HTTP
// response per cancelled call. Here each POST's requests are remembered until its stream ends
// (the answers the agent server sends are watched), and once every request of a POST is either
// answered or cancelled, with at least one cancelled, its stream is closed after the last answer
// was written. A batch (2025-03-26) whose other requests still run keeps its stream for them.
import type { ServerResponse } from 'node:http'
import type { JSONRPCMessage } from '@modelcontextprotocol/server'
import type { SessionHttpTransport } from './session-transport'

type RequestId = string | number

/** The ids of the requests in a POST's body (one message or a batch). */
function requestIds(body: unknown): RequestId[] {
  const out: RequestId[] = []
  for (const m of Array.isArray(body) ? body : [body]) {
    const r = m as { method?: unknown; id?: unknown } | null
    if (typeof r === 'object' && r !== null && typeof r.method === 'string' && (typeof r.id === 'string' || typeof r.id === 'number')) out.push(r.id)
  }
  return out
}

/** The request ids a POST's body cancels (notifications/cancelled). */
function cancelledIds(body: unknown): RequestId[] {
  const out: RequestId[] = []
  for (const m of Array.isArray(body) ? body : [body]) {
    const n = m as { method?: unknown; id?: unknown; params?: { requestId?: unknown } } | null
    if (typeof n !== 'object' || n === null || n.method !== 'notifications/cancelled' || n.id !== undefined) continue
    const id = n.params?.requestId
    if (typeof id === 'string' || typeof id === 'number') out.push(id)
  }
  return out
}

/** The id of an answer (a result or an error), or undefined for anything else. */
function answerId(m: JSONRPCMessage): RequestId | undefined {
  const r = m as { id?: unknown; result?: unknown; error?: unknown }
  if (!('result' in r) && !('error' in r)) return undefined
  return typeof r.id === 'string' || typeof r.id === 'number' ? r.id : undefined
}

interface Post {
  ids: RequestId[]
  cancelled: Set<RequestId>
  answered: Set<RequestId>
}

export class SessionCancels {
  /** each request in flight on this session, with the POST it came in */
  private readonly posts = new Map<RequestId, Post>()

  constructor(private readonly transport: SessionHttpTransport) {
    // the agent server's answers go out through the transport: each one is noted after it was written
    const send = transport.send.bind(transport)
    transport.send = async (message, options) => {
      await send(message, options)
      const id = answerId(message)
      const post = id === undefined ? undefined : this.posts.get(id)
      if (post && id !== undefined) {
        post.answered.add(id)
        this.settle(post)
      }
    }
  }

  /** A POST's requests, remembered until its answer stream ends (answered, cancelled, or the client left). */
  track(res: ServerResponse, body: unknown): void {
    const ids = requestIds(body)
    if (ids.length === 0) return
    const post: Post = { ids, cancelled: new Set(), answered: new Set() }
    for (const id of ids) this.posts.set(id, post)
    res.once('close', () => this.forget(post))
  }

  /** After the transport took a POST: the requests it cancels are marked, and their POSTs settled. */
  afterPost(body: unknown): void {
    for (const id of cancelledIds(body)) {
      const post = this.posts.get(id)
      if (!post || post.answered.has(id)) continue
      post.cancelled.add(id)
      this.settle(post)
    }
  }

  /**
   * A POST whose requests are all answered or cancelled, some cancelled: its stream is closed
   * (after the answers written on it), and the SDK is handed an answer for each cancelled request
   * on the closed stream, where nothing is written, so that it forgets them as it does answered ones.
   */
  private settle(post: Post): void {
    if (post.cancelled.size === 0 || post.ids.some((id) => !post.cancelled.has(id) && !post.answered.has(id))) return
    this.forget(post)
    const [first] = post.ids
    if (first !== undefined) this.transport.closeSSEStream(first)
    for (const id of post.cancelled)
      void this.transport.send({ jsonrpc: '2.0', id, error: { code: -32800, message: 'request cancelled by the client' } }).catch(() => {})
  }

  private forget(post: Post): void {
    for (const id of post.ids) if (this.posts.get(id) === post) this.posts.delete(id)
  }
}
