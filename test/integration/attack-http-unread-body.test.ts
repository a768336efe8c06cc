// Attack on the loopback listener of a real `toolgate serve` by anyone who can reach it without a
// key (another local user, a process that is not an agent): a request that declares a body
// (Content-Length: 100 MB) is refused before its body is read (401, the wrong Host, the static
// files, a body over the limit) and the body then trickled in a byte at a time, or not at all. The
// listener has no request timeout (long calls and event streams), so Node kept reading, and
// throwing away, that body for as long as it came: each such connection stayed open for good, and
// enough of them exhaust the process's file descriptors (no more agents, servers or files). Now
// an answer given without reading a declared body closes the connection; a body that was read
// (every call) keeps it alive for the next request.
import net from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServe, tempDir, waitFor, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'

useCleanup()

/** A raw connection: what came back so far, whether the listener closed it. */
interface Conn {
  socket: net.Socket
  text: () => string
  closed: () => boolean
}

function connect(port: number): Conn {
  const socket = net.connect(port, '127.0.0.1')
  let text = ''
  let closed = false
  socket.setEncoding('utf8')
  socket.on('data', (d: string) => (text += d))
  socket.on('error', () => {})
  socket.on('close', () => (closed = true))
  return { socket, text: () => text, closed: () => closed }
}

describe('attack: a declared body the listener refuses without reading, trickled in to hold the connection', () => {
  let serve: Serve
  let port = 0
  const open: net.Socket[] = []

  beforeAll(async () => {
    const tmp = tempDir('toolgate-unread-body-')
    serve = await startServe({ configPath: writeJson(path.join(tmp, 'mcp_config.json'), { mcpServers: {} }), dataDir: path.join(tmp, 'data') })
    port = Number(new URL(serve.url).port)
  }, 60_000)

  afterAll(async () => {
    for (const s of open) s.destroy()
    await stopServe(serve)
  })

  /** Sends `head` and the first byte of a 100 MB body, then a byte every 200 ms while the connection lasts. */
  const trickle = (head: string): Conn => {
    const c = connect(port)
    open.push(c.socket)
    c.socket.write(`${head}Content-Length: 100000000\r\n\r\n{`)
    const timer = setInterval(() => (c.closed() ? clearInterval(timer) : c.socket.write('a')), 200)
    c.socket.on('close', () => clearInterval(timer))
    return c
  }

  const cases: Array<[string, () => string, string]> = [
    ['no key (401)', () => `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n`, '401'],
    ['a wrong key on the control API (401)', () => `PUT /api/v1/settings HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer nope\r\n`, '401'],
    ['another Host (403)', () => `POST /mcp HTTP/1.1\r\nHost: evil.example\r\nContent-Type: application/json\r\n`, '403'],
    ['a static file (no key needed)', () => `GET /index.html HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`, '200'],
    [
      'the right key, a body over the limit (413)',
      () => `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${serve.key}\r\nContent-Type: application/json\r\n`,
      '413',
    ],
  ]
  for (const [label, head, status] of cases)
    it(`${label}: answered, then the connection is closed (it stayed open as long as bytes came)`, async () => {
      const c = trickle(head())
      await waitFor(() => (c.text().startsWith(`HTTP/1.1 ${status}`) ? true : undefined), 10_000, `the ${status} answer`)
      await waitFor(() => (c.closed() ? true : undefined), 5_000, 'the listener closing the connection')
    })

  it('a body that was read keeps the connection alive: two requests answered on one connection', async () => {
    const c = connect(port)
    open.push(c.socket)
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })
    const request = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${serve.key}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
    c.socket.write(request + request)
    // without a session both are refused by the transport, after their bodies were read
    await waitFor(() => (c.text().split('HTTP/1.1 ').length - 1 === 2 ? true : undefined), 10_000, 'both answers')
    expect(c.closed()).toBe(false)
    expect(c.text()).not.toMatch(/connection: close/i)
  })
})
