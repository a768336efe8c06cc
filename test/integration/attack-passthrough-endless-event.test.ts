// Attack by a hostile HTTP upstream on Toolgate's memory: an event on its event stream that never
// ends (test/fixtures/servers/endless-event-server.mjs). The SDK's SSE parsers keep an event's
// text until its blank line with no limit, so before event-size.ts a real `toolgate serve` held
// every byte the server sent (3 GB: 3.2 GB resident; 3.3 GB: "JavaScript heap out of memory",
// every server and agent gone with it). Now Toolgate stops reading an event past the message limit
// (16 MB by default) and closes that stream. Both HTTP transports: the session's GET stream of
// Streamable HTTP and the legacy SSE transport's stream. The fixture sends at most 160 MB per
// stream; before the fix each stream took all of it without closing.
import fs from 'node:fs'
import path from 'node:path'
import { spawn, type ChildProcess } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, ROOT, startServe, tempDir, track, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'

const ENDLESS = path.join(ROOT, 'test/fixtures/servers/endless-event-server.mjs')
const CAP = 160 * 1024 * 1024
/** the message limit Toolgate uses by default (MESSAGE_FLOOR_BYTES) and what may be in flight on loopback beyond it */
const LIMIT = 16 * 1024 * 1024
const SLACK = 16 * 1024 * 1024

useCleanup()

interface Ended {
  stream: 'get' | 'sse'
  sent: number
  closedByClient: boolean
}

describe('attack: an HTTP upstream sends one event that never ends', () => {
  let serve: Serve
  let upstream: ChildProcess
  let statusFile: string

  const ended = (): Ended[] =>
    fs.existsSync(statusFile)
      ? fs
          .readFileSync(statusFile, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Ended)
      : []

  beforeAll(async () => {
    const tmp = tempDir('toolgate-attack-endless-')
    statusFile = path.join(tmp, 'streams.jsonl')
    const port = await freePort()
    upstream = spawn(process.execPath, [ENDLESS], {
      env: { ...process.env, PORT: String(port), ENDLESS_CAP: String(CAP), STATUS_FILE: statusFile },
      stdio: 'ignore',
    })
    track(upstream.pid)
    const base = `http://127.0.0.1:${port}`
    await waitFor(async () => (await fetch(`${base}/mcp`, { method: 'DELETE' }).catch(() => null))?.ok, 10_000, 'the upstream to listen')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {
        modern: { url: `${base}/mcp`, protocol: 'streamable-http', quarantined: false, lifecycle: 'always' },
        legacy: { url: `${base}/sse`, protocol: 'sse', quarantined: false, lifecycle: 'always' },
      },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
  }, 60_000)

  afterAll(async () => {
    await stopServe(serve)
    upstream?.kill()
  })

  it('Toolgate closes each stream once an event is over the message limit, and lives on', async () => {
    await waitFor(() => ['get', 'sse'].every((s) => ended().some((e) => e.stream === s)), 60_000, 'both endless streams to end')
    for (const stream of ['get', 'sse'] as const) {
      const first = ended().find((e) => e.stream === stream)
      expect(first, JSON.stringify(ended())).toBeDefined()
      // closed by Toolgate, a little past the limit: not read to the fixture's cap (160 MB)
      expect(first?.closedByClient, JSON.stringify(first)).toBe(true)
      expect(first?.sent, JSON.stringify(first)).toBeLessThan(LIMIT + SLACK)
    }
    expect(serve.child.exitCode, serve.stderr().slice(-2000)).toBeNull()
    expect((await serve.api('GET', '/api/v1/status')).status).toBe(200)
    // the Streamable HTTP server's requests go on their own POSTs: its tool stays listed
    await waitForServerState(serve, 'modern', 'connected')
  }, 90_000)
})
