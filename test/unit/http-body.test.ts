// readJsonBody (http/body.ts) over a real node:http listener and raw client sockets: a body in the
// same packet as the headers, one that trickles in over several writes, empty, broken, over the
// limit while it streams (chunked, so no Content-Length can refuse it first), and a client that
// leaves mid-body: each settles, none hangs.
import http from 'node:http'
import net from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readJsonBody } from '../../src/main/core/http/body'
import { ApiError } from '../../src/shared/api'

const LIMIT = 64
/** what readJsonBody gave for each request (by its x-case header) */
const outcomes = new Map<string, Promise<{ ok: true; body: unknown } | { ok: false; code?: string; status?: number; message: string }>>()
let server: http.Server
let port = 0

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const outcome = readJsonBody(req, LIMIT).then(
      (body) => ({ ok: true as const, body }),
      (e: unknown) =>
        e instanceof ApiError ? { ok: false as const, code: e.code, status: e.status, message: e.message } : { ok: false as const, message: String(e) },
    )
    outcomes.set(String(req.headers['x-case']), outcome)
    void outcome.then((o) => {
      if (res.destroyed) return
      res.writeHead(o.ok ? 200 : (o.status ?? 500), { 'content-type': 'application/json' })
      res.end(JSON.stringify(o))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  port = (server.address() as AddressInfo).port
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((r) => server.close(() => r()))
})

/** Sends `parts` on a raw socket (a pause between each), resolves with what came back (or '' when the server closed it). */
function raw(parts: Array<string | Buffer>, pauseMs = 20): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect(port, '127.0.0.1')
    let got = ''
    sock.setEncoding('utf8')
    sock.on('data', (d: string) => (got += d))
    sock.on('close', () => resolve(got))
    sock.on('error', (e: NodeJS.ErrnoException) => (e.code === 'ECONNRESET' ? resolve(got) : reject(e)))
    const send = (i: number): void => {
      if (i >= parts.length) return
      sock.write(parts[i])
      setTimeout(() => send(i + 1), pauseMs)
    }
    sock.on('connect', () => send(0))
  })
}

const head = (name: string, extra: string): string => `POST / HTTP/1.1\r\nhost: x\r\nconnection: close\r\nx-case: ${name}\r\n${extra}\r\n`
const chunk = (s: string): string => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`

describe('readJsonBody', () => {
  it('reads a body that came with the headers, and one that trickles in over several writes', async () => {
    const body = '{"a":[1,2,{"b":"ü"}]}'
    await raw([head('one', `content-length: ${Buffer.byteLength(body)}\r\n`) + body])
    expect(await outcomes.get('one')).toEqual({ ok: true, body: { a: [1, 2, { b: 'ü' }] } })
    const bytes = Buffer.from(body)
    // split inside the two-byte ü: the pieces are joined as bytes before decoding
    const cut = bytes.indexOf(0xc3) + 1
    await raw([
      head('trickle', 'transfer-encoding: chunked\r\n'),
      Buffer.concat([Buffer.from(`${cut.toString(16)}\r\n`), bytes.subarray(0, cut), Buffer.from('\r\n')]),
      `${(bytes.length - cut).toString(16)}\r\n`,
      Buffer.concat([bytes.subarray(cut), Buffer.from('\r\n0\r\n\r\n')]),
    ])
    expect(await outcomes.get('trickle')).toEqual({ ok: true, body: { a: [1, 2, { b: 'ü' }] } })
  })

  it('gives undefined for an empty body and a 400 invalid_json for a broken one', async () => {
    await raw([head('empty', 'content-length: 0\r\n')])
    expect(await outcomes.get('empty')).toEqual({ ok: true })
    await raw([head('broken', 'content-length: 9\r\n') + '{"a": 1, '])
    expect(await outcomes.get('broken')).toMatchObject({ ok: false, code: 'invalid_json', status: 400 })
  })

  it('refuses a declared length over the limit with 413 before reading, and a chunked body that grows past it', async () => {
    const answer = await raw([head('declared', `content-length: ${LIMIT + 1}\r\n`)])
    expect(await outcomes.get('declared')).toMatchObject({ ok: false, code: 'payload_too_large', status: 413 })
    expect(answer).toMatch(/^HTTP\/1\.1 413/)
    const growing = await raw([
      head('growing', 'transfer-encoding: chunked\r\n'),
      chunk('x'.repeat(40)),
      chunk('y'.repeat(40)),
      chunk('z'.repeat(40)),
      '0\r\n\r\n',
    ])
    expect(await outcomes.get('growing')).toMatchObject({ ok: false, code: 'payload_too_large', status: 413 })
    // the client still gets its answer
    expect(growing).toMatch(/^HTTP\/1\.1 413/)
  })

  it('settles when the client leaves in the middle of the body', async () => {
    await new Promise<void>((resolve) => {
      const sock = net.connect(port, '127.0.0.1', () => {
        sock.write(head('gone', 'content-length: 50\r\n') + '{"half":')
        setTimeout(() => {
          sock.destroy()
          resolve()
        }, 50)
      })
    })
    const outcome = await Promise.race([outcomes.get('gone'), new Promise((r) => setTimeout(() => r('still waiting'), 2000))])
    expect(outcome).toMatchObject({ ok: false })
  })
})
