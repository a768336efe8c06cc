// A cancelled call, on the wire of both eras over HTTP /mcp: the cancellation reaches the upstream
// (it stops early and never finishes) and the agent's stream for that call is closed, not left
// open. 2025: the client sends notifications/cancelled in its session, and the call's SSE stream
// ends. 2026-07-28 (no session, no notifications/cancelled from the client): the client cancels
// by closing its request, and Toolgate cancels the upstream call. Raw HTTP, a real `toolgate
// serve`, and the misbehaving fixture that logs when a call starts, finishes or is cancelled.
import http from 'node:http'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, startServe, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { jsonLines, misbehavingEntry } from '../helpers/faults'

useCleanup()

interface FixtureLog {
  method?: string
  id?: number
  event?: string
  params?: { name?: string; requestId?: unknown; arguments?: Record<string, unknown> }
}

/** An open POST to /mcp whose answer is read as it streams. */
interface Open {
  status: Promise<number>
  headers: Promise<http.IncomingHttpHeaders>
  body: () => string
  /** the answer's stream ended (resolves with how) */
  ended: Promise<'end' | 'close' | 'error'>
  abort(): void
}

function post(url: string, headers: Record<string, string>, body: unknown): Open {
  let text = ''
  let setStatus: (n: number) => void = () => {}
  let setHeaders: (h: http.IncomingHttpHeaders) => void = () => {}
  let setEnded: (how: 'end' | 'close' | 'error') => void = () => {}
  const status = new Promise<number>((r) => (setStatus = r))
  const hdrs = new Promise<http.IncomingHttpHeaders>((r) => (setHeaders = r))
  const ended = new Promise<'end' | 'close' | 'error'>((r) => (setEnded = r))
  const req = http.request(
    url,
    { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
    (res) => {
      setStatus(res.statusCode ?? 0)
      setHeaders(res.headers)
      res.setEncoding('utf8')
      res.on('data', (d: string) => (text += d))
      res.on('end', () => setEnded('end'))
      res.on('close', () => setEnded('close'))
      res.on('error', () => setEnded('error'))
    },
  )
  req.on('error', () => setEnded('error'))
  req.end(JSON.stringify(body))
  return { status, headers: hdrs, body: () => text, ended, abort: () => req.destroy() }
}

const within = <T>(p: Promise<T>, ms: number): Promise<T | 'timeout'> =>
  Promise.race([p, new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), ms).unref())])

describe('a cancelled call closes the agent’s stream and cancels the upstream call', () => {
  let serve: Serve
  let log: string

  beforeAll(async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-cancel-streams-')
    log = path.join(tmp, 'cancelme.log')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { cancelme: misbehavingEntry(['--log', log, '--name', 'cancelme'], { lifecycle: 'always' }) },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'cancelme', 'connected')
  }, 60_000)

  afterAll(() => stopServe(serve))

  const auth = (): Record<string, string> => ({ authorization: `Bearer ${serve.key}` })
  /** the upstream's request id of the slow call tagged `tag`, once it started working */
  const upstreamId = (tag: string): Promise<number> =>
    waitFor(
      () => {
        const lines = jsonLines<FixtureLog>(log)
        const id = lines.find((l) => l.method === 'tools/call' && l.params?.name === 'slow' && l.params.arguments?.tag === tag)?.id
        return id !== undefined && lines.some((l) => l.event === 'started' && l.id === id) ? id : undefined
      },
      15_000,
      `the slow call ${tag} to start upstream`,
    )
  const cancelledUpstream = (id: number): Promise<boolean> =>
    waitFor(() => jsonLines<FixtureLog>(log).some((l) => l.event === 'cancelled' && l.id === id) || undefined, 15_000, 'the upstream to hear the cancellation')
  const finishedUpstream = (id: number): boolean => jsonLines<FixtureLog>(log).some((l) => l.event === 'finished' && l.id === id)

  it('2025 session: notifications/cancelled reaches the upstream, and the call’s SSE stream ends without a result', async () => {
    const url = `${serve.url}/mcp`
    const init = post(url, auth(), {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    })
    expect(await init.status).toBe(200)
    const session = String((await init.headers)['mcp-session-id'])
    await init.ended
    const inSession = { ...auth(), 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' }
    const note = post(url, inSession, { jsonrpc: '2.0', method: 'notifications/initialized' })
    expect(await note.status).toBe(202)

    const call = post(url, inSession, {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'call_tool_read', arguments: { name: 'cancelme:slow', args: { ms: 60_000, tag: 'legacy' } } },
    })
    const id = await upstreamId('legacy')
    const cancel = post(url, inSession, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'the user stopped it' } })
    expect(await cancel.status).toBe(202)

    expect(await cancelledUpstream(id)).toBe(true)
    // the agent's stream for the call is closed, and no result of the cancelled call is sent
    expect(await within(call.ended, 10_000)).not.toBe('timeout')
    expect(await call.status).toBe(200)
    expect((await call.headers)['content-type']).toMatch(/text\/event-stream/)
    expect(call.body()).not.toMatch(/"result"/)
    expect(finishedUpstream(id)).toBe(false)
    // the session goes on: the next call is answered on its own stream
    const next = post(url, inSession, {
      jsonrpc: '2.0',
      id: 8,
      method: 'tools/call',
      params: { name: 'call_tool_read', arguments: { name: 'cancelme:echo', args: { text: 'after' } } },
    })
    expect(await within(next.ended, 10_000)).not.toBe('timeout')
    expect(next.body()).toContain('echo: after')
  })

  it('a 2025-03-26 batch: a cancelled request’s stream ends once the others of its batch are answered, with their answers', async () => {
    const url = `${serve.url}/mcp`
    let sessionId = ''
    const init = post(url, auth(), {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'raw-batch', version: '1' } },
    })
    sessionId = String((await init.headers)['mcp-session-id'])
    await init.ended
    const inSession = { ...auth(), 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-03-26' }
    expect(await post(url, inSession, { jsonrpc: '2.0', method: 'notifications/initialized' }).status).toBe(202)
    const slow = (id: number, ms: number, tag: string) => ({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: { name: 'call_tool_read', arguments: { name: 'cancelme:slow', args: { ms, tag } } },
    })
    const batch = post(url, inSession, [slow(31, 60_000, 'batch-long'), slow(32, 1500, 'batch-short')])
    const long = await upstreamId('batch-long')
    expect(await post(url, inSession, { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 31 } }).status).toBe(202)
    expect(await cancelledUpstream(long)).toBe(true)
    // the short one is answered on the batch's stream, and then the stream ends
    expect(await within(batch.ended, 15_000)).not.toBe('timeout')
    expect(batch.body()).toContain('slept 1500 ms')
    expect(batch.body()).not.toMatch(/"id":31/)
    expect(finishedUpstream(long)).toBe(false)
  })

  it('2026-07-28: closing the request cancels the upstream call, which never finishes; the next call works', async () => {
    const url = `${serve.url}/mcp`
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
    const headers = { ...auth(), 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'call_tool_read' }
    const call = post(url, headers, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'call_tool_read', arguments: { name: 'cancelme:slow', args: { ms: 60_000, tag: 'modern' } }, _meta: meta },
    })
    const id = await upstreamId('modern')
    call.abort()
    expect(await cancelledUpstream(id)).toBe(true)
    expect(jsonLines<FixtureLog>(log).some((l) => l.method === 'notifications/cancelled' && l.params?.requestId === id)).toBe(true)
    expect(finishedUpstream(id)).toBe(false)

    const next = post(url, headers, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'call_tool_read', arguments: { name: 'cancelme:echo', args: { text: 'after' } }, _meta: meta },
    })
    expect(await next.status).toBe(200)
    await next.ended
    expect(next.body()).toContain('echo: after')
  })
})
