// GET /api/v1/status of a real `toolgate serve`: pending_approvals counts what waits for the
// user's review (a server never approved, a new tool on a running server), not an operator hold
// and not a server the user put back into quarantine; the same definition as the tray and the UI.
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, fixtureEntry, startServe, tempDir, waitForServerState, waitForToolStatus, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'

useCleanup()

describe('pending_approvals', () => {
  let serve: Serve
  let tmp: string

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-status-waiting-')
    const tools = (name: string) => writeJson(path.join(tmp, `${name}.json`), [{ name: `${name}_tool`, description: `The ${name} tool` }])
    const entry = (name: string, extra: Record<string, unknown>) => fixtureEntry(tools(name), path.join(tmp, `${name}.log`), extra)
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {
        held: entry('held', { quarantined: true }),
        fresh: entry('fresh', {}),
        shelved: entry('shelved', { quarantined: false }),
        work: entry('work', { quarantined: false }),
      },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'work', 'connected')
    await waitForServerState(serve, 'shelved', 'connected')
  }, 90_000)

  afterAll(() => stopServe(serve))

  it('counts the server to review and the new tool only', async () => {
    expect((await serve.api('POST', '/api/v1/servers/shelved/quarantine')).status).toBe(200)
    writeJson(path.join(tmp, 'work.json'), [
      { name: 'work_tool', description: 'The work tool' },
      { name: 'later_tool', description: 'Listed after the baseline' },
    ])
    await waitForToolStatus(serve, 'work:later_tool', 'pending_approval')
    const r = await serve.api<{ pending_approvals: number; servers: Record<string, number> }>('GET', '/api/v1/status')
    expect(r.json.pending_approvals).toBe(2)
    expect(r.json.servers).toEqual({ total: 4, connected: 1, quarantined: 3, disabled: 0, error: 0 })
  }, 60_000)
})
