// MCP over stdio, newline-delimited JSON-RPC. Unlike the SDK's transport (2.4.0 too), a line
// that is not JSON gets a parse error (-32700, id null) and a malformed message an invalid-request
// error, and the session goes on (docs/contract.md §4). A line longer than MAX_LINE_BYTES is refused as
// soon as that many bytes arrived without a newline (never buffered whole); the rest of it, up to
// its newline, is dropped. A JSON-RPC batch (an array: protocol 2025-03-26 allows them, later
// versions do not) is answered with one array of the responses to its requests. Nothing but
// JSON-RPC is written to stdout. send() honours back-pressure and stdout errors as the SDK's
// transport does: it resolves once stdout took the message (at once, or on 'drain' when its
// buffer is full) and rejects when stdout fails, which also reports the error and closes the
// transport; later write errors are swallowed, not thrown.
import { StringDecoder } from 'node:string_decoder'
import type { Readable, Writable } from 'node:stream'
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server'
import { JSONRPCMessageSchema } from '@modelcontextprotocol/core'

/**
 * A JSON-RPC 2.0 message, or null. The common shapes (a request, a notification, a response) are
 * checked by hand: the SDK validates each message again for its method, so a full schema parse of
 * every line here (every argument of every call) was paid twice. Anything else gets the schema.
 */
function asMessage(raw: unknown): JSONRPCMessage | null {
  if (raw === null || typeof raw !== 'object' || (raw as { jsonrpc?: unknown }).jsonrpc !== '2.0') return null
  const m = raw as { method?: unknown; id?: unknown; params?: unknown; result?: unknown; error?: unknown }
  const id = m.id === undefined || typeof m.id === 'string' || (typeof m.id === 'number' && Number.isFinite(m.id))
  const params = m.params === undefined || (typeof m.params === 'object' && m.params !== null && !Array.isArray(m.params))
  if (typeof m.method === 'string' && id && params && m.result === undefined && m.error === undefined) return raw as JSONRPCMessage
  const parsed = JSONRPCMessageSchema.safeParse(raw)
  return parsed.success ? parsed.data : null
}

export const MAX_LINE_BYTES = 4 * 1024 * 1024

/** Marks the stdout 'error' listener a closed transport leaves behind to swallow late write errors (a new transport on the same stream removes it). */
const swallowsAfterClose = Symbol('swallowsAfterClose')
type StdoutErrorListener = ((error: Error) => void) & { [swallowsAfterClose]?: true }
/** The last protocol version with JSON-RPC batches (2025-06-18 removed them). */
export const LAST_BATCH_VERSION = '2025-03-26'

type Id = string | number

/** A batch being answered: the ids of its requests still unanswered, and the responses so far. */
interface Batch {
  waiting: Set<Id>
  responses: JSONRPCMessage[]
}

export class LineStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  private closed = false
  /** the start of the current line: complete chunks (bytes) not yet ended by a newline */
  private pending: Buffer[] = []
  private pendingBytes = 0
  /** inside a line that was refused for its size: drop bytes until its newline */
  private skipping = false
  private readonly onData = (chunk: Buffer | string): void => this.feed(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  private readonly onStdoutError: StdoutErrorListener = (error: Error): void => {
    if (this.closed) return
    this.onerror?.(error)
    void this.close()
  }
  private readonly onEnd = (): void => {
    if (!this.skipping && this.pendingBytes > 0) this.line(Buffer.concat(this.pending))
    this.pending = []
    void this.close()
    this.onEnded?.()
  }
  /** the protocol version the session agreed to (the server, or the bridge, tells it) */
  private version: string | undefined
  /** open batches, by the id of each request in them */
  private readonly batches = new Map<Id, Batch>()
  /** The client closed stdin (told after onclose, which the serving entry owns). */
  onEnded?: () => void

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
  ) {}

  setProtocolVersion(version: string): void {
    this.version = version
  }

  private started = false

  /** Starts reading (once: the serving entry may start it again). */
  async start(): Promise<void> {
    if (this.started) return
    this.started = true
    for (const l of this.output.listeners('error') as StdoutErrorListener[]) if (l[swallowsAfterClose]) this.output.off('error', l)
    this.output.on('error', this.onStdoutError)
    this.input.on('data', this.onData)
    this.input.on('end', this.onEnd)
    this.input.on('close', this.onEnd)
  }

  private feed(chunk: Buffer): void {
    let from = 0
    for (;;) {
      const nl = chunk.indexOf(10, from)
      if (nl < 0) break
      const part = chunk.subarray(from, nl)
      if (this.skipping) this.skipping = false
      else if (this.pendingBytes + part.length > MAX_LINE_BYTES) this.refuse()
      else this.line(this.pendingBytes ? Buffer.concat([...this.pending, part]) : part)
      this.pending = []
      this.pendingBytes = 0
      from = nl + 1
    }
    if (from >= chunk.length || this.skipping) return
    const rest = chunk.subarray(from)
    if (this.pendingBytes + rest.length > MAX_LINE_BYTES) {
      this.refuse()
      this.skipping = true
      this.pending = []
      this.pendingBytes = 0
      return
    }
    this.pending.push(Buffer.from(rest))
    this.pendingBytes += rest.length
  }

  private refuse(): void {
    this.reply({ code: -32600, message: `message larger than ${MAX_LINE_BYTES} bytes: refused (the rest of the line is dropped)` })
  }

  private line(bytes: Buffer): void {
    const text = new StringDecoder('utf8').end(bytes)
    this.onLine(text.endsWith('\r') ? text.slice(0, -1) : text)
  }

  private reply(error: { code: number; message: string }, id: string | number | null = null): void {
    this.write({ jsonrpc: '2.0', id, error } as unknown as JSONRPCMessage)
  }

  private onLine(line: string): void {
    if (!line.trim()) return
    let raw: unknown
    try {
      raw = JSON.parse(line)
    } catch {
      return this.reply({ code: -32700, message: 'Parse error: the line is not valid JSON' })
    }
    if (Array.isArray(raw)) return this.onBatch(raw)
    const message = asMessage(raw)
    if (!message) return this.reply({ code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 message' }, idOf(raw))
    this.deliver(message)
  }

  /** While held (hold()), messages wait here instead of going to onmessage. */
  private held: JSONRPCMessage[] | null = null

  /** Keeps the messages that arrive from now on, in order, until release(). */
  hold(): void {
    this.held ??= []
  }

  /** Delivers what was held, in order, to the current onmessage, then goes on as usual. */
  release(): void {
    const waiting = this.held ?? []
    this.held = null
    for (const m of waiting) this.deliver(m)
  }

  private deliver(message: JSONRPCMessage): void {
    if (this.held) {
      this.held.push(message)
      return
    }
    try {
      this.onmessage?.(message)
    } catch (e) {
      this.onerror?.(e as Error)
    }
  }

  /** A JSON-RPC batch: each message goes in on its own; the responses to its requests go out as one array. */
  private onBatch(items: unknown[]): void {
    if (items.length === 0) return this.reply({ code: -32600, message: 'Invalid Request: an empty batch' })
    if (this.version === undefined || this.version > LAST_BATCH_VERSION) {
      const why = this.version === undefined ? 'before initialize (which must not be part of a batch)' : `in protocol ${this.version}`
      return this.reply({
        code: -32600,
        message: `Invalid Request: JSON-RPC batches are not supported ${why}; protocol ${LAST_BATCH_VERSION} is the last one with batches`,
      })
    }
    const batch: Batch = { waiting: new Set(), responses: [] }
    const messages: JSONRPCMessage[] = []
    for (const item of items) {
      const m = asMessage(item)
      if (!m) {
        batch.responses.push({
          jsonrpc: '2.0',
          id: idOf(item),
          error: { code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 message' },
        } as unknown as JSONRPCMessage)
        continue
      }
      if ('method' in m && 'id' in m && (typeof m.id === 'string' || typeof m.id === 'number') && !this.batches.has(m.id)) {
        batch.waiting.add(m.id)
        this.batches.set(m.id, batch)
      }
      messages.push(m)
    }
    for (const m of messages) this.deliver(m)
    if (batch.waiting.size === 0 && batch.responses.length > 0) this.write(batch.responses)
  }

  /** Our own error answers (a line that does not parse): sent without waiting; a failure is stdout's error, reported once. */
  private write(message: JSONRPCMessage | JSONRPCMessage[]): void {
    if (this.closed) return
    this.writeRaw(message).catch(() => {})
  }

  /** One line to stdout: resolves once stdout took it (at once, or on 'drain'), rejects when stdout fails. */
  private writeRaw(message: JSONRPCMessage | JSONRPCMessage[]): Promise<void> {
    if (this.closed) return Promise.reject(new Error('the stdio transport is closed'))
    return new Promise((resolve, reject) => {
      let settled = false
      const done = (error?: Error): void => {
        if (settled) return
        settled = true
        this.output.off('error', onError)
        this.output.off('drain', onDrain)
        if (error) reject(error)
        else resolve()
      }
      const onError = (error: Error): void => done(error)
      const onDrain = (): void => done()
      this.output.once('error', onError)
      // false: stdout's buffer is full; the message is queued, and the caller waits for it to drain
      if (this.output.write(JSON.stringify(message) + '\n')) done()
      else if (!settled) this.output.once('drain', onDrain)
    })
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error('the stdio transport is closed')
    const id = 'id' in message && !('method' in message) ? (message.id as Id | null) : null
    const batch = id === null ? undefined : this.batches.get(id)
    if (!batch || id === null) return this.writeRaw(message)
    this.batches.delete(id)
    batch.waiting.delete(id)
    batch.responses.push(message)
    // the batch's answer goes out with its last response; the others are held, not written
    if (batch.waiting.size === 0) return this.writeRaw(batch.responses)
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.batches.clear()
    this.closed = true
    this.input.off('data', this.onData)
    this.input.off('end', this.onEnd)
    this.input.off('close', this.onEnd)
    // stays attached, doing nothing: a write still in flight that fails (EPIPE) must not crash the process
    this.onStdoutError[swallowsAfterClose] = true
    this.onclose?.()
  }
}

function idOf(raw: unknown): Id | null {
  return raw !== null && typeof raw === 'object' && 'id' in raw && (typeof raw.id === 'string' || typeof raw.id === 'number') ? raw.id : null
}
