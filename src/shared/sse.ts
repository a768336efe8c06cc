// Server-Sent Events over fetch + ReadableStream (EventSource cannot send an Authorization
// header). One connection, reconnected with exponential backoff while anyone listens.
import { API_EVENT_TYPES, apiEventSchema, type ApiEvent } from './api-events'

const EVENT_TYPES: ReadonlySet<string> = new Set<string>(API_EVENT_TYPES)

export interface SseFrame {
  event: string
  data: string
}

/** Splits a growing text buffer into complete SSE frames; returns the frames and the rest. */
export function parseSseChunk(buffer: string): { frames: SseFrame[]; rest: string } {
  const frames: SseFrame[] = []
  // a trailing \r may be the first half of a \r\n cut between two chunks: it waits for the next one
  const held = buffer.endsWith('\r') ? '\r' : ''
  const normalized = buffer.slice(0, buffer.length - held.length).replace(/\r\n?/g, '\n')
  const blocks = normalized.split('\n\n')
  const rest = (blocks.pop() ?? '') + held
  for (const block of blocks) {
    let event = 'message'
    const data: string[] = []
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue
      const i = line.indexOf(':')
      const field = i < 0 ? line : line.slice(0, i)
      const value = i < 0 ? '' : line.slice(i + 1).replace(/^ /, '')
      if (field === 'event') event = value
      else if (field === 'data') data.push(value)
    }
    if (data.length > 0 || event !== 'message') frames.push({ event, data: data.join('\n') })
  }
  return { frames, rest }
}

/** An event of a known type, read by its schema; one whose payload does not read asks for everything again (something changed, what is unknown). */
export function frameToEvent(frame: SseFrame): ApiEvent | null {
  if (!EVENT_TYPES.has(frame.event)) return null
  let data: unknown
  try {
    data = frame.data ? JSON.parse(frame.data) : {}
  } catch {
    data = undefined
  }
  const ev = apiEventSchema().safeParse({ type: frame.event, data })
  return ev.success ? ev.data : { type: 'config.reloaded', data: { reconnected: true } }
}

export interface EventStreamOptions {
  url: string
  headers: () => Record<string, string>
  fetch: typeof fetch
  onEvent: (event: ApiEvent) => void
  /** called after a reconnect (events may have been missed) */
  onReconnect?: () => void
  minDelayMs?: number
  maxDelayMs?: number
}

/** Starts the stream; returns a stop function. */
export function openEventStream(opts: EventStreamOptions): () => void {
  const min = opts.minDelayMs ?? 1000
  const max = opts.maxDelayMs ?? 30_000
  let stopped = false
  let controller: AbortController | null = null
  let timer: ReturnType<typeof setTimeout> | null = null
  let delay = min
  let connectedBefore = false

  const schedule = () => {
    if (stopped) return
    timer = setTimeout(connect, delay)
    delay = Math.min(max, delay * 2)
  }

  const connect = async () => {
    timer = null
    if (stopped) return
    controller = new AbortController()
    try {
      const res = await opts.fetch(opts.url, {
        headers: { Accept: 'text/event-stream', ...opts.headers() },
        signal: controller.signal,
      })
      if (!res.ok || !res.body) throw new Error(`event stream answered HTTP ${res.status}`)
      delay = min
      if (connectedBefore) opts.onReconnect?.()
      connectedBefore = true
      const reader = res.body.getReader()
      const decoder = new TextDecoder()
      let buffer = ''
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        buffer += decoder.decode(value, { stream: true })
        const { frames, rest } = parseSseChunk(buffer)
        buffer = rest
        for (const frame of frames) {
          const ev = frameToEvent(frame)
          if (ev) opts.onEvent(ev)
        }
      }
    } catch {
      // network error or abort: fall through to the reconnect
    }
    schedule()
  }

  void connect()
  return () => {
    stopped = true
    if (timer) clearTimeout(timer)
    controller?.abort()
  }
}
