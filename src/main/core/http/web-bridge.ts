// node:http ⇄ web-standard Request/Response, for the MCP SDK v2 server entries (which speak
// fetch's Request/Response). The body is never re-read: callers pass the JSON they already parsed
// (`parsedBody`), so the Request carries headers only. A response is streamed as it comes (SSE:
// each event as the handler writes it); the client going away aborts the Request's signal and
// cancels the response stream.
import type { IncomingMessage, ServerResponse } from 'node:http'

/** A Request with the method, URL and headers of `req`; `signal` aborts when the client goes away. */
export function toWebRequest(req: IncomingMessage, res: ServerResponse): Request {
  const headers = new Headers()
  const raw = req.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) headers.append(raw[i], raw[i + 1])
  const gone = new AbortController()
  res.once('close', () => {
    if (!res.writableFinished) gone.abort(new Error('the client closed the connection'))
  })
  return new Request(`http://localhost${req.url ?? '/mcp'}`, { method: req.method, headers, signal: gone.signal })
}

/**
 * The view of `req` a 2025 session's messages carry to the agent server (`ctx.http.req`: the SDK
 * reads `headers.get()` of it, e.g. the session id for logging/setLevel): method, URL and headers,
 * without building a fetch Request (undici's constructor, a Headers copy, an AbortController:
 * ~30 µs of CPU per request). The 2026-07-28 path builds the real Request (the SDK classifies it,
 * reads its signal).
 */
export function sessionRequestView(req: IncomingMessage): Request {
  const get = (name: string): string | null => {
    const v = req.headers[name.toLowerCase()]
    return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v
  }
  const view = { method: req.method ?? 'GET', url: `http://localhost${req.url ?? '/mcp'}`, headers: { get, has: (name: string) => get(name) !== null } }
  return view as unknown as Request
}

/** Writes `response` to `res`, streaming its body; resolves when it ended (or the client left). */
export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {}
  response.headers.forEach((value, key) => {
    headers[key] = value
  })
  res.writeHead(response.status, headers)
  const body = response.body
  if (!body) {
    res.end()
    return
  }
  const reader = body.getReader()
  const cancel = (): void => void reader.cancel().catch(() => undefined)
  res.once('close', cancel)
  // Writes of one tick go out together (headers, an event, the end of a short answer: one packet,
  // not three); a stream that waits (progress, a confirmation) still sends each event at once.
  let corked = false
  const uncork = (): void => {
    corked = false
    res.uncork()
  }
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      if (!corked) {
        corked = true
        res.cork()
        process.nextTick(uncork)
      }
      if (!res.write(value)) await new Promise<void>((resolve) => res.once('drain', resolve).once('close', resolve))
      if (res.destroyed) break
    }
  } catch {
    // the stream was cancelled (client gone) or failed mid-way: nothing more to send
  } finally {
    res.off('close', cancel)
    if (!res.writableEnded) res.end()
  }
}
