// limitEventSize (upstream/event-size.ts): an HTTP upstream's event stream passes while each event
// stays within the limit, whatever the line ends and however the bytes are cut into chunks; one
// event past it fails the stream.
import { describe, expect, it } from 'vitest'
import { limitEventSize } from '../../src/main/core/upstream/event-size'

const enc = new TextEncoder()

async function read(chunks: string[], max: number): Promise<{ text: string; error: string | null }> {
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      for (const s of chunks) c.enqueue(enc.encode(s))
      c.close()
    },
  })
  const reader = limitEventSize(body, max, (n) => new Error(`over at ${n}`)).getReader()
  let text = ''
  const dec = new TextDecoder()
  try {
    for (;;) {
      const { done, value } = await reader.read()
      if (done) return { text, error: null }
      text += dec.decode(value)
    }
  } catch (e) {
    return { text, error: (e as Error).message }
  }
}

const event = (n: number, eol = '\n'): string => `event: message${eol}data: ${'x'.repeat(n)}${eol}${eol}`

describe('limitEventSize', () => {
  it('passes many events whose sum is far over the limit, with LF, CRLF and CR line ends', async () => {
    for (const eol of ['\n', '\r\n', '\r']) {
      const chunks = Array.from({ length: 50 }, () => event(60, eol))
      const r = await read(chunks, 100)
      expect(r.error, JSON.stringify(eol)).toBeNull()
      expect(r.text).toBe(chunks.join(''))
    }
  })

  it('finds the blank line also when a chunk ends between its line ends', async () => {
    const whole = event(60, '\r\n').repeat(20)
    // every cut: one byte per chunk
    const r = await read([...whole], 100)
    expect(r.error).toBeNull()
    expect(r.text).toBe(whole)
  })

  it('fails one event over the limit, on one line or on many data lines', async () => {
    expect((await read([event(60), 'data: ', 'x'.repeat(200)], 100)).error).toBe('over at 101')
    const lines = Array.from({ length: 30 }, () => 'data: xx\n').join('')
    expect((await read([event(10), lines], 100)).error).toMatch(/^over at/)
    // CR LF inside one event is one line end, never a blank line
    expect((await read(['data: a\r\n'.repeat(30)], 100)).error).toMatch(/^over at/)
  })
})
