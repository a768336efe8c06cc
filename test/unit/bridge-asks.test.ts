// The bridge relays the owner's requests to the client (elicitation, sampling, roots, ping of a
// 2025 session) and the client's answers back, against an owner whose every message the test
// holds: on the session's own GET stream and on a call's stream, with the owner's cancellation,
// a session that changes under an open question, and a client that answers what it was not asked.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { PassThrough } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { runBridge } from '../../src/main/cli/bridge'
import { waitFor } from '../helpers/wait'

type Msg = { jsonrpc?: string; id?: unknown; method?: string; params?: Record<string, unknown>; result?: unknown; error?: unknown }

/** An owner: sessions per initialize, a GET stream per session, calls whose stream the test writes to and ends. */
function fakeOwner() {
  const live = new Set<string>()
  /** the client's answers that reached the owner, with the session they came on */
  const answers: Array<{ session: string | undefined; body: Msg }> = []
  const streams = new Map<string, http.ServerResponse>()
  const calls = new Map<unknown, { session: string; res: http.ServerResponse }>()
  let n = 0
  const sse = (res: http.ServerResponse, m: Msg): void => void res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', ...m })}\n\n`)
  const server = http.createServer((req, res) => {
    const sid = req.headers['mcp-session-id'] as string | undefined
    if (req.method === 'GET') {
      if (!sid || !live.has(sid)) {
        res.writeHead(404)
        return res.end()
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.flushHeaders()
      streams.set(sid, res)
      return
    }
    let raw = ''
    req.on('data', (c: Buffer) => (raw += c.toString()))
    req.on('end', () => {
      const body = JSON.parse(raw) as Msg
      const json = (status: number, payload: unknown, headers: Record<string, string> = {}): void => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers })
        res.end(JSON.stringify(payload))
      }
      if (sid && !live.has(sid)) return json(404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: `session ${sid} expired` } })
      if (body.method === 'initialize') {
        const id = `s${++n}`
        live.add(id)
        return json(
          200,
          { jsonrpc: '2.0', id: body.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'owner', version: '0' } } },
          { 'mcp-session-id': id },
        )
      }
      if (!('method' in body)) answers.push({ session: sid, body })
      if (body.id === undefined || !('method' in body)) {
        res.writeHead(202)
        return res.end()
      }
      if (body.method === 'tools/call' && sid) {
        res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': sid })
        res.flushHeaders()
        calls.set(body.id, { session: sid, res })
        return
      }
      json(200, { jsonrpc: '2.0', id: body.id, result: { on: sid } }, sid ? { 'mcp-session-id': sid } : {})
    })
  })
  return {
    server,
    answers,
    /** the owner sends `m` on session `sid`'s own stream */
    push: (sid: string, m: Msg) => sse(streams.get(sid) as http.ServerResponse, m),
    hasStream: (sid: string) => streams.has(sid),
    /** the owner sends `m` on the stream of the client's call `id` */
    onCall: (id: unknown, m: Msg) => sse((calls.get(id) as { res: http.ServerResponse }).res, m),
    hasCall: (id: unknown) => calls.has(id),
    endCall: (id: unknown, result: unknown) => {
      const c = calls.get(id) as { res: http.ServerResponse }
      sse(c.res, { id, result })
      c.res.end()
    },
    expire: () => {
      live.clear()
      for (const s of streams.values()) s.end()
      streams.clear()
    },
  }
}

let owner: ReturnType<typeof fakeOwner> | null = null
afterEach(() => {
  owner?.server.closeAllConnections()
  owner?.server.close()
  owner = null
})

/** A bridge in this process between a client the test plays (lines) and the fake owner. */
async function bridged() {
  owner = fakeOwner()
  const o = owner
  await new Promise<void>((r) => o.server.listen(0, '127.0.0.1', r))
  const port = (o.server.address() as AddressInfo).port
  const input = new PassThrough()
  const output = new PassThrough()
  const got: Msg[] = []
  let text = ''
  output.on('data', (c: Buffer) => {
    text += c.toString()
    let nl: number
    while ((nl = text.indexOf('\n')) >= 0) {
      got.push(JSON.parse(text.slice(0, nl)) as Msg)
      text = text.slice(nl + 1)
    }
  })
  void runBridge({
    first: { mcpUrl: `http://127.0.0.1:${port}/mcp`, key: 'k', pid: process.pid },
    dataDir: '/nonexistent',
    reconnect: () => Promise.reject(new Error('the owner stays')),
    onClose: async () => {},
    io: { input, output },
  })
  const write = (m: Msg): void => void input.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`)
  write({ id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 't', version: '0' } } })
  await waitFor(() => got.some((m) => m.id === 1), 5000, 'the initialize answer')
  write({ method: 'notifications/initialized' })
  await waitFor(() => o.hasStream('s1'), 5000, 'the bridge to open the session’s GET stream')
  /** the requests of the owner the client got */
  const asked = (method: string): Msg[] => got.filter((m) => m.method === method && m.id !== undefined)
  const cancelled = (): Msg[] => got.filter((m) => m.method === 'notifications/cancelled')
  /** lets whatever the bridge would send reach the owner (a round trip through it) */
  const settle = async (): Promise<void> => {
    const id = `settle-${got.length}-${Math.random()}`
    write({ id, method: 'ping' })
    await waitFor(() => got.some((m) => m.id === id), 5000, 'a round trip')
  }
  return { owner: o, got, write, asked, cancelled, settle }
}

describe('requests of the owner to the client, through the bridge', () => {
  it('a request on the session’s own stream reaches the client under the bridge’s id; the answer reaches the owner under its own id, on that session', async () => {
    const b = await bridged()
    b.owner.push('s1', { id: 0, method: 'roots/list' })
    const q = await waitFor(() => b.asked('roots/list')[0], 5000, 'roots/list in the client')
    expect(q.id).not.toBe(0)
    b.write({ id: q.id, result: { roots: [{ uri: 'file:///work' }] } })
    await waitFor(() => b.owner.answers.length === 1, 5000, 'the answer at the owner')
    expect(b.owner.answers[0]).toEqual({ session: 's1', body: { jsonrpc: '2.0', id: 0, result: { roots: [{ uri: 'file:///work' }] } } })
  })

  it('a request on a call’s stream (the confirmation asked in the client) too, and the call’s answer after it', async () => {
    const b = await bridged()
    b.write({ id: 'call-1', method: 'tools/call', params: { name: 'call_tool_write', arguments: {} } })
    await waitFor(() => b.owner.hasCall('call-1'), 5000, 'the call at the owner')
    b.owner.onCall('call-1', { id: 5, method: 'elicitation/create', params: { mode: 'form', message: 'Allow?', requestedSchema: { type: 'object' } } })
    const q = await waitFor(() => b.asked('elicitation/create')[0], 5000, 'the question in the client')
    b.write({ id: q.id, result: { action: 'accept', content: { allow: true } } })
    await waitFor(() => b.owner.answers.length === 1, 5000, 'the answer at the owner')
    expect(b.owner.answers[0]).toEqual({ session: 's1', body: { jsonrpc: '2.0', id: 5, result: { action: 'accept', content: { allow: true } } } })
    b.owner.endCall('call-1', { content: [] })
    await waitFor(() => b.got.some((m) => m.id === 'call-1'), 5000, 'the call’s answer')
  })

  it('attack: answers to ids the client was not sent, of another type, or twice never reach the owner', async () => {
    const b = await bridged()
    b.owner.push('s1', { id: 0, method: 'elicitation/create', params: { message: 'Allow?' } })
    const q = await waitFor(() => b.asked('elicitation/create')[0], 5000, 'the question in the client')
    // the owner's own id, a guess, the right number as a string, an error for a guess
    b.write({ id: 0, result: { action: 'accept', content: { allow: true } } })
    b.write({ id: (q.id as number) + 1, result: { action: 'accept', content: { allow: true } } })
    b.write({ id: String(q.id), result: { action: 'accept', content: { allow: true } } })
    b.write({ id: 999, error: { code: -1, message: 'x' } })
    await b.settle()
    expect(b.owner.answers).toEqual([])
    b.write({ id: q.id, result: { action: 'decline' } })
    b.write({ id: q.id, result: { action: 'accept', content: { allow: true } } })
    await b.settle()
    expect(b.owner.answers).toEqual([{ session: 's1', body: { jsonrpc: '2.0', id: 0, result: { action: 'decline' } } }])
  })

  it('the owner withdraws its request: the client hears it under its id; its late answer goes nowhere; a cancellation of nothing is not passed on', async () => {
    const b = await bridged()
    b.owner.push('s1', { id: 3, method: 'elicitation/create', params: { message: 'Allow?' } })
    const q = await waitFor(() => b.asked('elicitation/create')[0], 5000, 'the question in the client')
    b.owner.push('s1', { method: 'notifications/cancelled', params: { requestId: 3, reason: 'the window answered' } })
    const c = await waitFor(() => b.cancelled()[0], 5000, 'the cancellation in the client')
    expect(c.params).toEqual({ requestId: q.id, reason: 'the window answered' })
    b.owner.push('s1', { method: 'notifications/cancelled', params: { requestId: 42, reason: 'never asked' } })
    b.write({ id: q.id, result: { action: 'accept', content: { allow: true } } })
    await b.settle()
    expect(b.owner.answers).toEqual([])
    expect(b.cancelled()).toHaveLength(1)
  })

  it('the session upstream changes under an open question: withdrawn in the client; the new session’s requests get new ids, answered there', async () => {
    const b = await bridged()
    b.owner.push('s1', { id: 0, method: 'elicitation/create', params: { message: 'first' } })
    const old = await waitFor(() => b.asked('elicitation/create')[0], 5000, 'the first question')
    b.owner.expire()
    // the next request finds the session gone: the bridge opens s2 and resends it there
    b.write({ id: 'after', method: 'tools/list' })
    await waitFor(() => b.got.some((m) => m.id === 'after'), 5000, 'the resent request')
    expect(b.cancelled().map((m) => m.params?.requestId)).toEqual([old.id])
    await waitFor(() => b.owner.hasStream('s2'), 5000, 'the new session’s stream')
    b.owner.push('s2', { id: 0, method: 'elicitation/create', params: { message: 'second' } })
    const fresh = await waitFor(() => b.asked('elicitation/create').find((m) => m.params?.message === 'second'), 5000, 'the second question')
    expect(fresh.id).not.toBe(old.id)
    // the stale answer to the first question does not answer the second one (both are id 0 at the owner)
    b.write({ id: old.id, result: { action: 'accept', content: { allow: true } } })
    await b.settle()
    expect(b.owner.answers).toEqual([])
    b.write({ id: fresh.id, result: { action: 'decline' } })
    await waitFor(() => b.owner.answers.length === 1, 5000, 'the answer to the second question')
    expect(b.owner.answers[0]).toEqual({ session: 's2', body: { jsonrpc: '2.0', id: 0, result: { action: 'decline' } } })
  })
})
