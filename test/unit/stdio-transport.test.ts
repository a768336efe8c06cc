// The agent-facing stdio transport's send(): a slow reader holds the sender back (back-pressure,
// as the SDK's transport does) instead of Toolgate queueing answers without end, and a stdout
// that fails rejects the send, is reported once, closes the transport and never crashes the
// process with a late write error.
import { PassThrough, Writable } from 'node:stream'
import { describe, expect, it, vi } from 'vitest'
import type { JSONRPCMessage } from '@modelcontextprotocol/server'
import { LineStdioTransport } from '../../src/main/core/agent-server/stdio-transport'

const turn = () => new Promise((r) => setImmediate(r))

/** A reader that takes nothing until told: each chunk waits for `take()`. */
function slowReader(highWaterMark = 1024) {
  const waiting: Array<() => void> = []
  const got: string[] = []
  const out = new Writable({
    highWaterMark,
    write(chunk: Buffer, _enc, cb) {
      got.push(chunk.toString('utf8'))
      waiting.push(() => cb())
    },
  })
  return {
    out,
    got,
    /** the reader reads one chunk */
    take: () => waiting.shift()?.(),
    get waiting() {
      return waiting.length
    },
  }
}

const note = (n: number, size: number): JSONRPCMessage => ({
  jsonrpc: '2.0',
  method: 'notifications/message',
  params: { level: 'info', data: `${n}:${'x'.repeat(size)}` },
})

describe('send() with a slow reader', () => {
  it('waits while stdout is full and resolves once the reader took it (drain)', async () => {
    const r = slowReader()
    const t = new LineStdioTransport(new PassThrough(), r.out)
    await t.start()
    let sent = false
    const p = t.send(note(1, 10_000)).then(() => (sent = true))
    await turn()
    await turn()
    expect(sent).toBe(false)
    expect(r.waiting).toBe(1)
    r.take()
    await p
    expect(sent).toBe(true)
    expect(JSON.parse(r.got.join(''))).toEqual(note(1, 10_000))
    await t.close()
  })

  it('each of several answers resolves only when the reader has taken it, in order, whole', async () => {
    const r = slowReader()
    const t = new LineStdioTransport(new PassThrough(), r.out)
    await t.start()
    const done: number[] = []
    const sends = [1, 2, 3].map((n) => t.send(note(n, 4000)).then(() => done.push(n)))
    await turn()
    expect(done).toEqual([])
    while (done.length < 3) {
      r.take()
      await turn()
    }
    await Promise.all(sends)
    expect(done).toEqual([1, 2, 3])
    const lines = r.got.join('').split('\n').filter(Boolean)
    expect(lines.map((l) => (JSON.parse(l) as { params: { data: string } }).params.data.split(':')[0])).toEqual(['1', '2', '3'])
    await t.close()
  })

  it('a small answer to a reader with room resolves at once', async () => {
    const out = new PassThrough()
    const t = new LineStdioTransport(new PassThrough(), out)
    await t.start()
    await t.send({ jsonrpc: '2.0', id: 1, result: {} })
    expect(out.read().toString()).toBe('{"jsonrpc":"2.0","id":1,"result":{}}\n')
    await t.close()
  })
})

describe('send() when stdout fails', () => {
  it('rejects with the error, reports it once, closes the transport; later sends reject; a late error is swallowed', async () => {
    const broken = new Writable({
      write(_chunk, _enc, cb) {
        cb(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }))
      },
    })
    const t = new LineStdioTransport(new PassThrough(), broken)
    const onerror = vi.fn()
    const onclose = vi.fn()
    t.onerror = onerror
    t.onclose = onclose
    await t.start()
    await expect(t.send(note(1, 10))).rejects.toThrow('write EPIPE')
    await turn()
    expect(onerror).toHaveBeenCalledTimes(1)
    expect(onclose).toHaveBeenCalledTimes(1)
    await expect(t.send(note(2, 10))).rejects.toThrow(/closed/)
    // an error after the close (a write still in flight) must not become an uncaught exception
    expect(() => broken.emit('error', new Error('late EPIPE'))).not.toThrow()
    expect(onerror).toHaveBeenCalledTimes(1)
  })

  it('a new transport on the same stdout takes over its error listener (none pile up)', async () => {
    const out = new PassThrough()
    const a = new LineStdioTransport(new PassThrough(), out)
    await a.start()
    await a.close()
    expect(out.listenerCount('error')).toBe(1)
    const b = new LineStdioTransport(new PassThrough(), out)
    await b.start()
    expect(out.listenerCount('error')).toBe(1)
    const onerror = vi.fn()
    b.onerror = onerror
    out.emit('error', new Error('EPIPE'))
    expect(onerror).toHaveBeenCalledTimes(1)
  })

  it('a line that is not JSON still gets its parse error, and a failing stdout then is reported, not thrown', async () => {
    const input = new PassThrough()
    const out = new PassThrough()
    const t = new LineStdioTransport(input, out)
    await t.start()
    input.write('not json\n')
    await turn()
    expect(JSON.parse(out.read().toString())).toMatchObject({ id: null, error: { code: -32700 } })
    const onerror = vi.fn()
    t.onerror = onerror
    out.destroy(new Error('EPIPE'))
    input.write('still not json\n')
    await turn()
    await turn()
    expect(onerror).toHaveBeenCalled()
  })
})
