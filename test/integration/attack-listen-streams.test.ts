// Attack by an agent on a real `toolgate serve` through 2026-07-28 subscriptions/listen: each
// listen stream holds its own subscriptions and bus listener while open (one naming 27,000 URIs
// of a server, the most a 1 MiB body holds: ≈ 0.3 s of the main thread to open and ≈ 5 MB kept,
// measured), and a credential could open as many as it liked, where its 2025 sessions stop at
// limits.max_sessions_per_principal. Now listen streams have the same limit per credential: the
// next one is answered 429; a stream that closes makes room; another credential has its own.
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, startServe, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { agentToken, MODERN_ENVELOPE } from '../helpers/modern-http'

const HOSTILE = path.join(ROOT, 'test/fixtures/servers/hostile-server.mjs')
const LIMIT = 3

useCleanup()

/** One listen stream, open until closed: its status once the answer starts, and what came. */
interface Stream {
  status: number
  text: () => string
  close: () => void
}

describe('attack: an agent opens subscriptions/listen streams without end', () => {
  let serve: Serve
  let token = ''
  const opened: Stream[] = []

  beforeAll(async () => {
    const tmp = tempDir('toolgate-listen-streams-')
    const stateFile = path.join(tmp, 'state.json')
    fs.writeFileSync(
      stateFile,
      JSON.stringify({ capabilities: { tools: {}, resources: { subscribe: true } }, templates: [{ uriTemplate: 'file:///{+p}', name: 'f' }] }),
    )
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { h: { command: process.execPath, args: [HOSTILE], env: { HOSTILE_STATE: stateFile }, quarantined: false, sandbox: false } },
      agents: [{ name: 'reader', servers: ['h'], permissions: ['read'] }],
      limits: { max_sessions_per_principal: LIMIT },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'h', 'connected')
    token = await agentToken(serve, 'reader')
  }, 60_000)

  afterAll(async () => {
    for (const s of opened) s.close()
    await stopServe(serve)
  })

  /** Opens a listen stream naming `count` URIs of h with `bearer`; resolves when its answer starts. */
  const listen = (bearer: string, count = 2): Promise<Stream> =>
    new Promise((resolve, reject) => {
      const uris = Array.from({ length: count }, (_, i) => `file://h.toolgate.invalid/~/notes/${i}.txt`)
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'subscriptions/listen',
        params: { notifications: { resourceSubscriptions: uris }, _meta: MODERN_ENVELOPE },
      })
      const u = new URL(`${serve.url}/mcp`)
      const req = http.request(
        {
          host: u.hostname,
          port: u.port,
          path: '/mcp',
          method: 'POST',
          agent: false,
          headers: {
            authorization: `Bearer ${bearer}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'subscriptions/listen',
          },
        },
        (res) => {
          let text = ''
          res.setEncoding('utf8')
          res.on('data', (d: string) => (text += d))
          res.on('error', () => {})
          const s: Stream = { status: res.statusCode ?? 0, text: () => text, close: () => req.destroy() }
          opened.push(s)
          resolve(s)
        },
      )
      req.on('error', reject)
      req.end(body)
    })

  it(`the ${LIMIT + 1}th stream of one credential is refused with 429 (it was opened, as every one after it)`, async () => {
    const streams: Stream[] = []
    for (let i = 0; i < LIMIT; i++) streams.push(await listen(token))
    for (const s of streams) expect(s.status).toBe(200)
    const over = await listen(token)
    // before: 200, and a stream held open like the others
    expect(over.status).toBe(429)
    await waitFor(() => (over.text().includes('limits.max_sessions_per_principal') ? true : undefined), 5000, 'the refusal naming the limit')
    // another credential (the admin key) holds its own streams
    expect((await listen(serve.key)).status).toBe(200)
    // a stream that ends makes room for one more
    streams[0].close()
    await waitFor(
      async () => {
        const s = await listen(token)
        if (s.status !== 200) return undefined
        return true
      },
      10_000,
      'a new stream once one closed',
    )
    expect((await listen(token)).status).toBe(429)
  })
})
