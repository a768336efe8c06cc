// MCP over stdio, newline-delimited JSON-RPC. Unlike the SDK's transport, a line that is not
// JSON gets a parse error (-32700, id null) and a malformed message an invalid-request error,
// and the session goes on (CONTRACT.md §4). A line longer than MAX_LINE_BYTES is refused as soon
// as that many bytes arrived without a newline (never buffered whole); the rest of it, up to its
// newline, is dropped. Nothing but JSON-RPC is written to stdout.
import { StringDecoder } from 'node:string_decoder'
import type { Readable, Writable } from 'node:stream'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'

export const MAX_LINE_BYTES = 4 * 1024 * 1024

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
  private readonly onEnd = (): void => {
    if (!this.skipping && this.pendingBytes > 0) this.line(Buffer.concat(this.pending))
    this.pending = []
    void this.close()
  }

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
  ) {}

  async start(): Promise<void> {
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
    const parsed = JSONRPCMessageSchema.safeParse(raw)
    if (!parsed.success) {
      const id = raw && typeof raw === 'object' && 'id' in raw && (typeof raw.id === 'string' || typeof raw.id === 'number') ? raw.id : null
      return this.reply({ code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 message' }, id)
    }
    try {
      this.onmessage?.(parsed.data)
    } catch (e) {
      this.onerror?.(e as Error)
    }
  }

  private write(message: JSONRPCMessage): void {
    if (this.closed) return
    this.output.write(JSON.stringify(message) + '\n')
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.write(message)
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.input.off('data', this.onData)
    this.input.off('end', this.onEnd)
    this.input.off('close', this.onEnd)
    this.onclose?.()
  }
}
