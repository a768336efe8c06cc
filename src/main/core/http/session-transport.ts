// A 2025 session's Streamable HTTP transport, on node:http directly. It answers as the SDK's
// WebStandardStreamableHTTPServerTransport (2.4.0, as Toolgate configured it: SSE answers, no
// event store) does, check for check and message for message, and is proved so by
// test/integration/session-transport-parity.test.ts, which sends the same requests, malformed ones
// first, to both. One difference is on purpose: a POST of one request whose only message is its
// answer gets that answer as plain JSON with a Content-Length (Streamable HTTP lets the server pick
// JSON or SSE per request); a client reads it whole, where an SSE answer costs the SDK's client a
// decoder and an event parser per response (docs/performance.md, the call after session 9).
// Anything sent on the stream before the answer (progress, a question) makes it the SSE stream it
// always was, and so is a batch's. What it leaves out is per-message work: the SDK's transport
// classifies every message of a POST with `isInitializeRequest` twice (a zod parse that fails for
// anything but an initialize and builds an error with a message for each of its issues: ≈ 16 µs
// each), and answers through a web-standard Response over a ReadableStream that Toolgate copied
// back onto node:http. Untrusted input is validated as strictly as before: every message of a
// POST is parsed with the SDK's JSONRPCMessageSchema, and what reaches the agent server is what
// that parse returned; which of the four kinds a parsed message is, is read from its members
// (isRequest), not from a second parse of the same bytes.
import type { IncomingMessage, ServerResponse } from 'node:http'
import {
  isInitializeRequest,
  isJsonContentType,
  parseJSONRPCMessage,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type Transport,
  type TransportSendOptions,
} from '@modelcontextprotocol/server'
import { sessionRequestView } from './web-bridge'

type RequestId = string | number

/** As the SDK's transport: at most this many messages in one JSON-RPC batch (2025-03-26). */
const MAX_BATCH_SIZE = 100
/** As the SDK's transport: a comment line on an open stream this often, so idle streams are not cut. */
const KEEP_ALIVE_MS = 15_000
const STANDALONE = '_GET_stream'
const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const

/**
 * One open answer stream: a POST's (its requests' answers) or the session's GET stream. A POST's
 * headers wait for its first message: a POST of one request whose only message is its answer gets
 * that answer as JSON (`application/json` with a Content-Length), anything else an SSE stream.
 */
interface Stream {
  res: ServerResponse
  keepAlive: NodeJS.Timeout | undefined
  /** the SSE headers, until written */
  headers: Record<string, string> | null
  /** one request, not in a batch: its answer may go as plain JSON if nothing went on the stream before it */
  single: boolean
}

/** An initialize request. A message whose method is not "initialize" never is one, so only those pay the schema. */
function isInitialize(m: JSONRPCMessage): boolean {
  return (m as { method?: unknown }).method === 'initialize' && isInitializeRequest(m)
}

/**
 * A request, of messages parseJSONRPCMessage returned: its four schemas are strict, and only a
 * request's has both a method and an id (a notification has no id, an answer no method). The SDK's
 * `isJSONRPCRequest` would parse the message a second time, against a schema the first parse
 * already held it to (test/integration/session-transport-parity.test.ts sends messages that look
 * like requests and are not: they are refused before any reaches the agent server).
 */
function isRequest(m: JSONRPCMessage): boolean {
  return 'method' in m && 'id' in m
}

/** A result or an error answer: what the agent server sends (messages the SDK's Protocol built), not an agent's input. */
function isAnswer(m: JSONRPCMessage): m is JSONRPCMessage & { id?: RequestId } {
  const r = m as { result?: unknown; error?: unknown; method?: unknown }
  return r.method === undefined && (r.result !== undefined || r.error !== undefined)
}

function sseEvent(message: JSONRPCMessage): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`
}

export class SessionHttpTransport implements Transport {
  sessionId?: string
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void
  private started = false
  private closed = false
  private initialized = false
  private supported: string[] = SUPPORTED_PROTOCOL_VERSIONS
  private readonly streams = new Map<string, Stream>()
  private readonly requestStream = new Map<RequestId, string>()
  private readonly answered = new Set<RequestId>()
  private nextStream = 0

  constructor(
    private readonly newSessionId: () => string,
    private readonly onSessionInitialized: (id: string) => void,
  ) {}

  async start(): Promise<void> {
    if (this.started) throw new Error('Transport already started')
    this.started = true
  }

  /** The server tells the versions it speaks at connect(): an MCP-Protocol-Version header outside them is refused. */
  setSupportedProtocolVersions(versions: string[]): void {
    this.supported = versions
  }

  /** One HTTP request of this session (POST, GET, DELETE); `body` is the JSON the listener already read (undefined: none). */
  async handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    if (this.closed) return this.jsonError(res, 404, -32001, 'Session not found')
    switch (req.method) {
      case 'POST':
        return this.post(req, res, body)
      case 'GET':
        return this.get(req, res)
      case 'DELETE':
        return this.delete(req, res)
      default:
        this.fail('Method not allowed.')
        return this.jsonError(res, 405, -32000, 'Method not allowed.', { allow: 'GET, POST, DELETE' })
    }
  }

  private async post(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const accept = req.headers.accept
    if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) {
      return this.refuse(res, 406, -32000, 'Not Acceptable: Client must accept both application/json and text/event-stream')
    }
    if (!isJsonContentType(req.headers['content-type'] ?? null)) {
      return this.refuse(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json')
    }
    if (body === undefined) return this.refuse(res, 400, -32700, 'Parse error: Invalid JSON')
    if (Array.isArray(body) && body.length > MAX_BATCH_SIZE) {
      return this.refuse(res, 400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`)
    }
    let messages: JSONRPCMessage[]
    try {
      messages = Array.isArray(body) ? body.map((m) => parseJSONRPCMessage(m)) : [parseJSONRPCMessage(body)]
    } catch (e) {
      this.onerror?.(e as Error)
      return this.jsonError(res, 400, -32700, 'Parse error: Invalid JSON-RPC message')
    }
    if (this.closed) return this.jsonError(res, 404, -32001, 'Session not found')
    const init = messages.some(isInitialize)
    if (init) {
      if (this.initialized && this.sessionId !== undefined) return this.refuse(res, 400, -32600, 'Invalid Request: Server already initialized')
      if (messages.length > 1) return this.refuse(res, 400, -32600, 'Invalid Request: Only one initialization request is allowed')
      this.sessionId = this.newSessionId()
      this.initialized = true
      this.onSessionInitialized(this.sessionId)
    } else if (!this.validSession(req, res) || !this.validVersion(req, res)) return
    if (this.closed) return this.jsonError(res, 404, -32001, 'Session not found')
    const request = sessionRequestView(req)
    const requests = messages.filter(isRequest)
    if (requests.length === 0) {
      for (const m of messages) this.onmessage?.(m, { request })
      res.writeHead(202).end()
      return
    }
    const streamId = String(this.nextStream++)
    const stream: Stream = { res, keepAlive: undefined, headers: this.withSession(SSE_HEADERS), single: !Array.isArray(body) }
    this.streams.set(streamId, stream)
    for (const m of requests) this.requestStream.set((m as { id: RequestId }).id, streamId)
    res.once('close', () => this.drop(streamId, stream))
    for (const m of messages) this.onmessage?.(m, { request })
    // answered at once (an error the server sent synchronously): no stream left to keep alive
    if (this.streams.get(streamId) === stream) stream.keepAlive = this.keepAlive(stream)
  }

  private async get(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!req.headers.accept?.includes('text/event-stream')) return this.refuse(res, 406, -32000, 'Not Acceptable: Client must accept text/event-stream')
    if (!this.validSession(req, res) || !this.validVersion(req, res)) return
    if (this.streams.has(STANDALONE)) return this.refuse(res, 409, -32000, 'Conflict: Only one SSE stream is allowed per session')
    res.writeHead(200, this.withSession(SSE_HEADERS))
    const stream: Stream = { res, keepAlive: undefined, headers: null, single: false }
    stream.keepAlive = this.keepAlive(stream)
    this.streams.set(STANDALONE, stream)
    res.once('close', () => this.drop(STANDALONE, stream))
  }

  private async delete(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.validSession(req, res) || !this.validVersion(req, res)) return
    try {
      res.writeHead(200).end()
    } finally {
      await this.close()
    }
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const answer = isAnswer(message) ? message.id : undefined
    if (isAnswer(message) && answer === undefined)
      throw new Error('Cannot send a response on a standalone SSE stream unless resuming a previous client request')
    const requestId = answer ?? options?.relatedRequestId
    if (requestId === undefined) {
      // a notification or request of the server's own: on the GET stream, if the client opened one
      const standalone = this.streams.get(STANDALONE)
      if (standalone) standalone.res.write(sseEvent(message))
      return
    }
    const streamId = this.requestStream.get(requestId)
    if (streamId === undefined) throw new Error(`No connection established for request ID: ${String(requestId)}`)
    const stream = this.streams.get(streamId)
    if (answer === undefined) {
      if (stream) this.sse(stream).write(sseEvent(message))
      return
    }
    this.answered.add(answer)
    const related: RequestId[] = []
    for (const [id, sid] of this.requestStream) if (sid === streamId) related.push(id)
    const done = related.every((id) => this.answered.has(id))
    if (done) {
      for (const id of related) {
        this.answered.delete(id)
        this.requestStream.delete(id)
      }
    }
    if (!stream) {
      if (done)
        this.onerror?.(
          new Error(`Response for request ID ${String(requestId)} is undeliverable: per-request stream is disconnected and no eventStore is configured`),
        )
      return
    }
    if (!done) {
      this.sse(stream).write(sseEvent(message))
      return
    }
    this.drop(streamId, stream)
    if (stream.single && stream.headers !== null) {
      // the answer is all this POST gets: plain JSON with its length, which a client reads whole
      // (no SSE parser, no chunked encoding), headers and body in one write
      const json = JSON.stringify(message)
      stream.headers = null
      stream.res.writeHead(200, this.withSession({ 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(json)) }))
      stream.res.end(json)
      return
    }
    // the last answer of the POST: written with the end (and the headers, for a short answer) in one go
    this.sse(stream).end(sseEvent(message))
  }

  /** Ends the answer stream of `requestId`'s POST (its requests stay known until answered). */
  closeSSEStream(requestId: RequestId): void {
    const streamId = this.requestStream.get(requestId)
    const stream = streamId === undefined ? undefined : this.streams.get(streamId)
    if (streamId === undefined || !stream) return
    this.drop(streamId, stream)
    this.sse(stream).end()
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    for (const [id, stream] of [...this.streams]) {
      this.drop(id, stream)
      this.sse(stream).end()
    }
    this.requestStream.clear()
    this.answered.clear()
    this.onclose?.()
  }

  /** As the SDK's validateSession: only an initialized session, and only with its own id. */
  private validSession(req: IncomingMessage, res: ServerResponse): boolean {
    if (!this.initialized) {
      this.refuse(res, 400, -32000, 'Bad Request: Server not initialized')
      return false
    }
    const sid = req.headers['mcp-session-id']
    if (!sid) {
      this.refuse(res, 400, -32000, 'Bad Request: Mcp-Session-Id header is required')
      return false
    }
    if (sid !== this.sessionId) {
      this.refuse(res, 404, -32001, 'Session not found')
      return false
    }
    return true
  }

  /** As the SDK's validateProtocolVersion: a version header must name one the server speaks (none: the negotiated one). */
  private validVersion(req: IncomingMessage, res: ServerResponse): boolean {
    const v = req.headers['mcp-protocol-version']
    if (v === undefined || (typeof v === 'string' && this.supported.includes(v))) return true
    const version = Array.isArray(v) ? v.join(', ') : v
    this.refuse(res, 400, -32000, `Bad Request: Unsupported protocol version: ${version} (supported versions: ${this.supported.join(', ')})`)
    return false
  }

  /** The stream's response as an SSE stream: its headers are set now if nothing was written yet. */
  private sse(stream: Stream): ServerResponse {
    if (stream.headers !== null) {
      if (!stream.res.headersSent) stream.res.writeHead(200, stream.headers)
      stream.headers = null
    }
    return stream.res
  }

  private withSession(headers: Record<string, string>): Record<string, string> {
    return this.sessionId === undefined ? headers : { ...headers, 'mcp-session-id': this.sessionId }
  }

  private keepAlive(stream: Stream): NodeJS.Timeout {
    const timer = setInterval(() => {
      if (!stream.res.writableEnded) this.sse(stream).write(': keepalive\n\n')
    }, KEEP_ALIVE_MS)
    timer.unref()
    return timer
  }

  private drop(id: string, stream: Stream): void {
    if (stream.keepAlive !== undefined) clearInterval(stream.keepAlive)
    stream.keepAlive = undefined
    if (this.streams.get(id) === stream) this.streams.delete(id)
  }

  private fail(message: string): void {
    this.onerror?.(new Error(message))
  }

  private refuse(res: ServerResponse, status: number, code: number, message: string): void {
    this.fail(message)
    this.jsonError(res, status, code, message)
  }

  private jsonError(res: ServerResponse, status: number, code: number, message: string, headers: Record<string, string> = {}): void {
    res.writeHead(status, { 'content-type': 'application/json', ...headers })
    res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }))
  }
}
