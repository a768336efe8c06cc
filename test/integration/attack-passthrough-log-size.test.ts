// Attack by a hostile upstream on the user's disk: what it writes into Toolgate's log. Its stderr
// lines and its log messages are limited to 20 a second each, but logs/toolgate.log was never cut:
// at that rate one server wrote ~14 GB a day into it, for as long as it ran. Now the file starts
// again past a size (20 MiB; TOOLGATE_LOG_MAX_BYTES here 300 KB), the previous one kept as
// toolgate.log.1, both private to the user.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, startServe, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'

const FLOOD = path.join(ROOT, 'test/fixtures/servers/stderr-flood-server.mjs')
const MAX = 300_000
/** one log line: a stderr line of 1,900 characters and its JSON */
const LINE = 4096

useCleanup()

describe("attack: a hostile upstream fills the disk through Toolgate's log", () => {
  let serve: Serve
  let logs: string

  beforeAll(async () => {
    const tmp = tempDir('toolgate-attack-log-size-')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {
        flood: {
          command: process.execPath,
          args: [FLOOD],
          env: { FLOOD_LINES: '5000', FLOOD_LINE_CHARS: '1900', FLOOD_PAUSE_MS: '3000' },
          quarantined: false,
          lifecycle: 'always',
          sandbox: false,
        },
      },
    })
    const dataDir = path.join(tmp, 'data')
    logs = path.join(dataDir, 'logs')
    serve = await startServe({ configPath, dataDir, env: { TOOLGATE_LOG_MAX_BYTES: String(MAX) } })
    await waitForServerState(serve, 'flood', 'connected')
  }, 60_000)

  afterAll(() => stopServe(serve))

  it('the log starts again past its size, one previous file kept, both private', async () => {
    const current = path.join(logs, 'toolgate.log')
    const previous = path.join(logs, 'toolgate.log.1')
    const both = (): string => [previous, current].map((f) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8') : '')).join('')
    await waitFor(() => both().includes('flood done'), 90_000, 'the server to finish its flood', 200)
    // what it wrote: 200 lines at once, then 20 a second, each ~2 KB: more than the limit
    const logged = both()
      .split('\n')
      .filter((l) => l.includes('zzzzzzzzzz')).length
    expect(logged * 1900).toBeGreaterThan(MAX)
    expect(fs.existsSync(previous)).toBe(true)
    for (const f of [current, previous]) {
      const st = fs.statSync(f)
      expect(st.size, f).toBeLessThanOrEqual(MAX + LINE)
      expect(st.mode & 0o777, f).toBe(0o600)
    }
    expect(fs.readdirSync(logs).sort()).toEqual(['toolgate.log', 'toolgate.log.1'])
  }, 120_000)
})
