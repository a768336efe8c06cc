// The bridge's session reopen, against an owner whose timing the test holds: the real owner
// (security-agents.test.ts) cannot be made to answer the reopen late on purpose, and that lateness
// is what lost a request in CI (it went out with no session while the new one was opening).
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { PassThrough } from 'node:stream'
import { afterEach, describe, expect, it } from 'vitest'
import { runBridge } from '../../src/main/cli/bridge'
import { waitFor } from '../helpers/wait'

interface Seen {
  session: string | undefined
  body: { id?: unknown; method?: string }
}

/** An owner: a session per initialize; `expire()` forgets them; a held initialize waits for `release()`. */
function fakeOwner() {
  const live = new Set<string>()
  const seen: Seen[] = []
  let n = 0
  let holdInit = false
  let release: () => void = () => {}
  const server = http.createServer((req, res) => {
    // the session's own stream (GET), which the bridge opens: this owner has none
    if (req.method === 'GET') {
      res.writeHead(405)
      return res.end()
    }
    let raw = ''
    req.on('data', (c: Buffer) => (raw += c.toString()))
    req.on('end', () => {
      const body = JSON.parse(raw) as Seen['body']
      const sid = req.headers['mcp-session-id'] as string | undefined
      seen.push({ session: sid, body })
      const json = (status: number, payload: unknown, headers: Record<string, string> = {}): void => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers })
        res.end(JSON.stringify(payload))
      }
      // like the real owner (mcp-endpoint.ts): a session id is looked up first, whatever the message
      if (sid && !live.has(sid)) return json(404, { jsonrpc: '2.0', id: null, error: { code: -32001, message: `session ${sid} expired` } })
      if (body.method === 'initialize') {
        const answer = (): void => {
          const id = `s${++n}`
          live.add(id)
          json(
            200,
            { jsonrpc: '2.0', id: body.id, result: { protocolVersion: '2025-06-18', capabilities: {}, serverInfo: { name: 'owner', version: '0' } } },
            { 'mcp-session-id': id },
          )
        }
        if (holdInit) release = answer
        else answer()
        return
      }
      if (!sid) return json(400, { jsonrpc: '2.0', id: null, error: { code: -32000, message: 'no mcp-session-id header: send an initialize request first' } })
      if (body.id === undefined) {
        res.writeHead(202)
        return res.end()
      }
      json(200, { jsonrpc: '2.0', id: body.id, result: { on: sid } })
    })
  })
  return {
    server,
    seen,
    expire: () => live.clear(),
    holdInitialize: () => (holdInit = true),
    release: () => {
      holdInit = false
      release()
    },
  }
}

let owner: ReturnType<typeof fakeOwner> | null = null
afterEach(() => {
  owner?.server.close()
  owner = null
})

describe('the bridge opens a new session when its session expired', () => {
  it('a request that arrives while the new session is opening waits for it (it never goes out without a session)', async () => {
    owner = fakeOwner()
    await new Promise<void>((r) => owner!.server.listen(0, '127.0.0.1', r))
    const port = (owner.server.address() as AddressInfo).port
    const input = new PassThrough()
    const output = new PassThrough()
    const answers = new Map<unknown, { result?: { on?: string }; error?: { message: string } }>()
    let text = ''
    output.on('data', (c: Buffer) => {
      text += c.toString()
      let nl: number
      while ((nl = text.indexOf('\n')) >= 0) {
        const m = JSON.parse(text.slice(0, nl)) as { id?: unknown; result?: { on?: string }; error?: { message: string } }
        text = text.slice(nl + 1)
        answers.set(m.id, m)
      }
    })
    void runBridge({
      first: { mcpUrl: `http://127.0.0.1:${port}/mcp`, key: 'k', pid: process.pid },
      dataDir: '/nonexistent',
      reconnect: () => Promise.reject(new Error('the owner stays')),
      onClose: async () => {},
      io: { input, output },
    })
    const write = (m: unknown): void => void input.write(`${JSON.stringify(m)}\n`)
    write({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '0' } } })
    await waitFor(() => answers.has(1), 5000, 'the initialize answer')
    write({ jsonrpc: '2.0', method: 'notifications/initialized' })
    write({ jsonrpc: '2.0', id: 2, method: 'tools/list' })
    await waitFor(() => answers.has(2), 5000, 'the first call')
    expect(answers.get(2)?.result?.on).toBe('s1')

    owner.expire()
    owner.holdInitialize()
    write({ jsonrpc: '2.0', id: 3, method: 'tools/list' })
    await waitFor(() => owner!.seen.filter((s) => s.body.method === 'initialize').length === 2, 5000, 'the bridge to open a new session')
    // the new session is not open yet: a request now must wait for it
    write({ jsonrpc: '2.0', id: 4, method: 'tools/list' })
    await waitFor(() => owner!.seen.some((s) => s.body.id === 4) || answers.has(4), 300, 'request 4 to reach the owner').catch(() => {})
    owner.release()
    await waitFor(() => answers.has(3) && answers.has(4), 5000, 'both calls to be answered')
    expect(answers.get(3)).toMatchObject({ result: { on: 's2' } })
    expect(answers.get(4)).toMatchObject({ result: { on: 's2' } })
    // one new session for both, and nothing went out without a session but the initializes
    expect(owner.seen.filter((s) => s.body.method === 'initialize')).toHaveLength(2)
    expect(owner.seen.filter((s) => !s.session && s.body.method !== 'initialize')).toEqual([])
  })
})
