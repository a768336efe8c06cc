// Attack by a hostile stdio upstream on Toolgate's log and main thread: its stderr in many short
// lines. Each line was written to Toolgate's log (logs/toolgate.log and stderr, synchronously, on
// the main thread), with no limit: one server writing 1,000-character lines for 10 s grew the log
// by 344 MB (≈35 MB/s, the disk filled in minutes) and slowed the control API 4-10× meanwhile. A
// server's own log messages (notifications/message) were limited (50 at once, then 20 a second);
// its stderr now is too (200 lines at once, then 20 a second), and the log says how many it dropped.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, startServe, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'

const FLOOD = path.join(ROOT, 'test/fixtures/servers/stderr-flood-server.mjs')
/** 100,000 lines of 200 characters: 20 MB */
const LINES = 100_000

useCleanup()

describe('attack: a stdio upstream floods its stderr with short lines', () => {
  let serve: Serve
  let logFile: string

  beforeAll(async () => {
    const tmp = tempDir('toolgate-attack-stderr-lines-')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {
        flood: {
          command: process.execPath,
          args: [FLOOD],
          env: { FLOOD_LINES: String(LINES), FLOOD_PAUSE_MS: '2000' },
          quarantined: false,
          lifecycle: 'always',
          sandbox: false,
        },
      },
    })
    const dataDir = path.join(tmp, 'data')
    logFile = path.join(dataDir, 'logs', 'toolgate.log')
    serve = await startServe({ configPath, dataDir })
    await waitForServerState(serve, 'flood', 'connected')
  }, 60_000)

  afterAll(() => stopServe(serve))

  it('Toolgate logs a bounded number of its lines and says how many it dropped', async () => {
    await waitFor(() => fs.readFileSync(logFile, 'utf8').includes('flood done'), 90_000, 'the server to finish its flood', 200)
    const log = fs.readFileSync(logFile, 'utf8')
    const lines = log.split('\n').filter((l) => l.includes('zzzzzzzzzz'))
    // 200 at once, then 20 a second for the few seconds the flood lasts: far below 100,000
    expect(lines.length).toBeGreaterThan(0)
    expect(lines.length, `${lines.length} of ${LINES} lines logged`).toBeLessThan(2_000)
    const dropped = [...log.matchAll(/"dropped":(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0)
    expect(dropped + lines.length).toBe(LINES)
    expect(fs.statSync(logFile).size).toBeLessThan(2 * 1024 * 1024)
  }, 120_000)
})
