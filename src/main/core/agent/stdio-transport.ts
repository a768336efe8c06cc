// MCP over stdio, newline-delimited JSON-RPC. Unlike the SDK's transport, a line that is not
// JSON gets a parse error (-32700, id null) and a malformed message an invalid-request error,
// and the session goes on (CONTRACT.md §4). Nothing but JSON-RPC is written to stdout.
import readline from 'node:readline'
import type { Readable, Writable } from 'node:stream'
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js'
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'

export const MAX_LINE_BYTES = 4 * 1024 * 1024

export class LineStdioTransport implements Transport {
  onclose?: () => void
  onerror?: (error: Error) => void
  onmessage?: (message: JSONRPCMessage) => void
  private rl: readline.Interface | null = null
  private closed = false

  constructor(
    private readonly input: Readable = process.stdin,
    private readonly output: Writable = process.stdout,
  ) {}

  async start(): Promise<void> {
    this.rl = readline.createInterface({ input: this.input, crlfDelay: Infinity })
    this.rl.on('line', (line) => this.onLine(line))
    this.rl.on('close', () => void this.close())
  }

  private reply(error: { code: number; message: string }, id: string | number | null = null): void {
    this.write({ jsonrpc: '2.0', id, error } as unknown as JSONRPCMessage)
  }

  private onLine(line: string): void {
    if (!line.trim()) return
    if (line.length > MAX_LINE_BYTES) return this.reply({ code: -32600, message: `message larger than ${MAX_LINE_BYTES} bytes` })
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
    this.rl?.close()
    this.onclose?.()
  }
}
