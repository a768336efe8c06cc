// The stdio bridge's wire: which era a client's message is in (the 2026-07-28 _meta envelope),
// the routing headers 2026-07-28 wants on each request, and the owner's answers read as they
// arrive (plain JSON or SSE frames).
import type { JSONRPCMessage } from '@modelcontextprotocol/server'
import { parseSseChunk, type SseFrame } from '../../shared/sse'

const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion'

/** The protocol version a 2026-07-28 message names in its _meta envelope; undefined for a 2025 message. */
export function envelopeVersion(m: JSONRPCMessage): string | undefined {
  const params = 'method' in m ? (m.params as { _meta?: Record<string, unknown> } | undefined) : undefined
  const v = params?._meta?.[PROTOCOL_VERSION_KEY]
  return typeof v === 'string' ? v : undefined
}

/** The 2026-07-28 routing headers of a request: its method, and the tool or prompt name or resource URI it names. */
export function modernHeaders(m: JSONRPCMessage & { method: string }, version: string): Record<string, string> {
  const headers: Record<string, string> = { 'mcp-protocol-version': version, 'mcp-method': m.method }
  const params = (m as { params?: { name?: unknown; uri?: unknown } }).params
  const name = m.method === 'resources/read' ? params?.uri : m.method === 'tools/call' || m.method === 'prompts/get' ? params?.name : undefined
  // a header carries no line breaks or non-ASCII; such a name goes without it (the owner checks the body)
  if (typeof name === 'string' && /^[\x20-\x7e]*$/.test(name)) headers['mcp-name'] = name
  return headers
}

/** The JSON-RPC messages in a whole reply body: a JSON message or array, or SSE `data:` events. */
export function messagesOf(type: string, body: string): JSONRPCMessage[] {
  const out: JSONRPCMessage[] = []
  const reader = bodyReader(type, (m) => out.push(m))
  reader.feed(body)
  reader.end()
  return out
}

/** Reads a reply as it arrives: SSE events one by one, plain JSON at the end. */
export function bodyReader(type: string, onMessage: (m: JSONRPCMessage) => void): { feed(chunk: string): void; end(): void } {
  let text = ''
  if (type.includes('text/event-stream')) {
    // One SSE frame parser for the whole product (src/shared/sse.ts): each `message` frame's data
    // is one JSON-RPC message; id, retry and comment lines are skipped there.
    const emit = (frames: SseFrame[]): void => {
      for (const f of frames) if (f.event === 'message' && f.data.trim()) onMessage(JSON.parse(f.data) as JSONRPCMessage)
    }
    return {
      feed: (c) => {
        text += c
        // A frame can only end in a chunk with a line break: the middle of a large result is
        // appended without parsing the buffer again.
        if (!/[\r\n]/.test(c)) return
        const { frames, rest } = parseSseChunk(text)
        text = rest
        emit(frames)
      },
      // the stream ended: a last frame without its blank line still counts
      end: () => {
        const { frames } = parseSseChunk(`${text}\n\n`)
        text = ''
        emit(frames)
      },
    }
  }
  return {
    feed: (c) => void (text += c),
    end: () => {
      if (!text.trim()) return
      const parsed = JSON.parse(text) as JSONRPCMessage | JSONRPCMessage[]
      for (const m of Array.isArray(parsed) ? parsed : [parsed]) onMessage(m)
    },
  }
}
