// node:http ⇄ web-standard Request/Response, for the MCP SDK v2 server entries (which speak
// fetch's Request/Response). The body is never re-read: callers pass the JSON they already parsed
// (`parsedBody`), so the Request carries headers only. A response is streamed as it comes (SSE:
// each event as the handler writes it), a JSON answer goes out whole with its length; the client
// going away aborts the Request's signal and cancels the response stream.
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

/** Strips what undici's Headers strips from a value (HTTP whitespace: tab, LF, CR, space) at either end. */
function httpTrim(v: string): string {
  const ws = (c: number): boolean => c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d
  let a = 0
  let b = v.length
  while (a < b && ws(v.charCodeAt(a))) a++
  while (b > a && ws(v.charCodeAt(b - 1))) b--
  return a === 0 && b === v.length ? v : v.slice(a, b)
}

/**
 * `get` and `has` of undici's Headers over `req.rawHeaders`: every value sent under a name (any
 * case), joined with ", " in the order they came. Node's own `req.headers` keeps only the first
 * of a repeated Content-Type or Authorization, which is why this reads the raw list.
 */
function rawHeaderGet(raw: string[], name: string): string | null {
  const want = name.toLowerCase()
  let out: string | null = null
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const n = raw[i]
    if (n.length !== want.length || n.toLowerCase() !== want) continue
    const v = httpTrim(raw[i + 1])
    out = out === null ? v : `${out}, ${v}`
  }
  return out
}

/**
 * The view of a POST whose body was read and parsed, for the SDK's 2026-07-28 handler
 * (`createMcpHandler(…).fetch(view, { parsedBody })`): the method, the URL, the headers as
 * undici's Headers would give them (`get`, `has`) and a signal that aborts when the client goes
 * away. That is all the handler reads of a request it is given the body of (it clones and reads a
 * request only for a body it was not given; test/integration/modern-request-parity.test.ts sends
 * the same requests, malformed ones too, through this view and through undici's Request). It
 * saves undici's Request constructor and its copy of every header (≈ 29 µs of CPU per request).
 * Only for `target` paths that are a plain path (a Request's URL would not parse otherwise).
 */
export function postRequestView(req: IncomingMessage, res: ServerResponse): Request {
  const raw = req.rawHeaders
  const gone = new AbortController()
  res.once('close', () => {
    if (!res.writableFinished) gone.abort(new Error('the client closed the connection'))
  })
  const headers = { get: (name: string) => rawHeaderGet(raw, name), has: (name: string) => rawHeaderGet(raw, name) !== null }
  const view = { method: 'POST', url: `http://localhost${req.url ?? '/mcp'}`, headers, signal: gone.signal }
  return view as unknown as Request
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

/**
 * Writes `response` to `res`, streaming its body; resolves when it ended (or the client left). A
 * JSON answer (`application/json`: every answer of the SDK's handler that is not an SSE stream)
 * is read whole and sent with its Content-Length, headers and body in one write: no chunked
 * framing for the proxy to write and the client to undo.
 */
export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string> = {}
  response.headers.forEach((value, key) => {
    headers[key] = value
  })
  const body = response.body
  if (!body) {
    res.writeHead(response.status, headers)
    res.end()
    return
  }
  if (headers['content-type'] === 'application/json') return sendWhole(res, response.status, headers, body)
  res.writeHead(response.status, headers)
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

/** A body that is already whole in memory (Response.json), sent with its length. */
async function sendWhole(res: ServerResponse, status: number, headers: Record<string, string>, body: ReadableStream<Uint8Array>): Promise<void> {
  const chunks: Uint8Array[] = []
  let size = 0
  const reader = body.getReader()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      size += value.byteLength
    }
  } catch {
    // failed mid-way: as a stream that failed, the answer ends with what there is (nothing)
    if (!res.headersSent) res.writeHead(status, headers)
    res.end()
    return
  }
  if (res.destroyed) return
  headers['content-length'] = String(size)
  res.writeHead(status, headers)
  res.end(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size))
}
