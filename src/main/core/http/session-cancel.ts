// A 2025 session's cancelled request closes its answer stream. The client's
// notifications/cancelled aborts the request's handler (the SDK; an upstream call is cancelled
// upstream), and MCP says no answer is sent for it, so the SDK's transport would keep that
// request's SSE stream open for good, waiting for an answer that never comes: one open HTTP
// response per cancelled call. Here each POST's requests are remembered until its stream ends, and
// a cancellation that leaves every request of its POST cancelled closes that stream (nothing is
// written on it). A batch (2025-03-26) with requests still running keeps its stream for them.
import type { ServerResponse } from 'node:http'
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server'

type RequestId = string | number

/** The ids of the requests in a POST's body (one message or a batch); initialize has its own stream too. */
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

interface Post {
  ids: RequestId[]
  cancelled: Set<RequestId>
}

export class SessionCancels {
  /** each request in flight on this session, with the POST it came in */
  private readonly posts = new Map<RequestId, Post>()

  constructor(private readonly transport: WebStandardStreamableHTTPServerTransport) {}

  /** A POST's requests, remembered until its answer stream ends (answered, cancelled, or the client left). */
  track(res: ServerResponse, body: unknown): void {
    const ids = requestIds(body)
    if (ids.length === 0) return
    const post: Post = { ids, cancelled: new Set() }
    for (const id of ids) this.posts.set(id, post)
    res.once('close', () => {
      for (const id of ids) if (this.posts.get(id) === post) this.posts.delete(id)
    })
  }

  /**
   * After the transport took a POST: each request it cancels is marked, and a POST whose requests
   * are now all cancelled gets its stream closed. The SDK is then handed an answer for each of them
   * (on the closed stream, where nothing is written) so that it forgets the requests, as it does
   * for an answered one.
   */
  afterPost(body: unknown): void {
    for (const id of cancelledIds(body)) {
      const post = this.posts.get(id)
      if (!post) continue
      post.cancelled.add(id)
      if (post.cancelled.size < post.ids.length) continue
      for (const x of post.ids) this.posts.delete(x)
      this.transport.closeSSEStream(id)
      for (const x of post.ids)
        void this.transport.send({ jsonrpc: '2.0', id: x, error: { code: -32800, message: 'request cancelled by the client' } }).catch(() => {})
    }
  }
}
