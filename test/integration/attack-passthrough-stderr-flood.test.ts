// Attack by a hostile stdio upstream on Toolgate itself: one endless line on its stderr
// (test/fixtures/servers/stderr-flood-server.mjs writes 600 MiB without a newline). Toolgate read
// stderr with node:readline, which keeps a line whole until its newline: past ~512 MB it threw
// RangeError (Invalid string length) from a stream handler and the whole `toolgate serve` exited
// within seconds, every server and agent with it (seen: 8 s after the server started). The same
// server could do it while the user only inspected it in quarantine. Now a line keeps its first
// characters (upstream/stderr-lines.ts) and the log names its length.
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, startServe, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, readOk, type McpHandle } from '../helpers/mcp-client'

const FLOOD = path.join(ROOT, 'test/fixtures/servers/stderr-flood-server.mjs')
const FLOOD_BYTES = 600 * 1024 * 1024

useCleanup()

describe('attack: a stdio upstream writes one endless line to stderr', () => {
  let serve: Serve
  let mcp: McpHandle | undefined

  beforeAll(async () => {
    const tmp = tempDir('toolgate-attack-stderr-')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {
        flood: { command: process.execPath, args: [FLOOD], env: { FLOOD_BYTES: String(FLOOD_BYTES) }, quarantined: false, lifecycle: 'always', sandbox: false },
      },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'flood', 'connected')
  }, 60_000)

  afterAll(async () => {
    await mcp?.close()
    await stopServe(serve)
  })

  it('Toolgate logs the line cut with its length, lives on, and the server stays callable', async () => {
    await waitFor(
      () => {
        if (serve.child.exitCode !== null || serve.child.signalCode !== null) throw new Error(`toolgate serve exited:\n${serve.stderr().slice(-3000)}`)
        return serve.stderr().includes('flood done')
      },
      90_000,
      'the server to finish its flood',
      200,
    )
    // the long line: its first characters and its whole length, never all of it
    const long = serve.stderr().match(/y{2000}… \[(\d+) chars\]/)
    expect(long?.[1], serve.stderr().slice(-500)).toBe(String(FLOOD_BYTES))
    expect(serve.stderr().length).toBeLessThan(1024 * 1024)
    mcp = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
    expect(await readOk(mcp, 'flood:ping')).toBe('pong')
  }, 120_000)
})
