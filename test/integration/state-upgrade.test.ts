// Upgrading state.json from version 1 (written by Toolgate before the approval hash covered title
// and annotations and the server identity covered env; the fixture is a file that version wrote):
// approvals carry over, nothing turns "changed" or re-quarantined by itself, the file is rewritten
// as version 2, and from then on env and annotations count.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, ROOT, startServe, tempDir, waitFor, waitForToolStatus, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'

const VERBATIM = path.join(ROOT, 'test/fixtures/servers/verbatim-server.mjs')
const STATE_V1 = path.join(ROOT, 'test/fixtures/state-v1.json')

useCleanup()

// exactly what the version-1 server listed when the fixture state was written
const TOOLS = [
  {
    name: 'list_notes',
    title: 'List notes',
    description: 'List the notes in a folder',
    inputSchema: { type: 'object', properties: { folder: { type: 'string' } } },
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  {
    name: 'save_note',
    description: 'Save a note',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    outputSchema: { type: 'object', properties: { id: { type: 'string' } } },
    annotations: { readOnlyHint: false },
  },
]

type Servers = { servers: Array<{ name: string; quarantined: boolean; quarantine_source?: string }> }

describe('state.json version 1 → 2', () => {
  let serve: Serve
  let tmp: string
  let configPath: string
  let config: { mcpServers: Record<string, Record<string, unknown>> }

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-state-upgrade-')
    const dataDir = path.join(tmp, 'data')
    fs.mkdirSync(dataDir, { recursive: true })
    fs.copyFileSync(STATE_V1, path.join(dataDir, 'state.json'))
    // the upstream's own folder: files beside the config are shown to a sandboxed server as they
    // were at its start (the config's folder is masked, docs/isolation.md), so a file the test
    // rewrites lives in a folder of its own
    fs.mkdirSync(path.join(tmp, 'upstream'))
    const toolsFile = writeJson(path.join(tmp, 'upstream', 'tools.json'), TOOLS)
    config = {
      mcpServers: {
        notes: { command: process.execPath, args: [VERBATIM, '--tools', toolsFile], quarantined: false },
        // approved under version 1 with this exact launch (never really started here)
        envsrv: { command: 'node', args: ['/toolgate-test/not-run.js'], env: { MODE: 'a' } },
      },
    }
    configPath = writeJson(path.join(tmp, 'mcp_config.json'), config)
    serve = await startServe({ configPath, dataDir })
  }, 60_000)

  afterAll(() => stopServe(serve))

  it('approved tools stay approved and callable, the approved server stays approved, the file is version 2', async () => {
    for (const id of ['notes:list_notes', 'notes:save_note']) {
      const r = await waitForToolStatus(serve, id, 'callable')
      expect(r.approval.status).toBe('approved')
    }
    const servers = (await serve.api<Servers>('GET', '/api/v1/servers')).json.servers
    expect(servers.find((s) => s.name === 'envsrv')?.quarantined).toBe(false)
    const state = JSON.parse(fs.readFileSync(path.join(serve.dataDir, 'state.json'), 'utf8')) as { version: number }
    expect(state.version).toBe(2)
  })

  it('after the upgrade, changing env re-quarantines the server and an annotation change waits for approval', async () => {
    writeJson(configPath, { mcpServers: { ...config.mcpServers, envsrv: { ...config.mcpServers.envsrv, env: { MODE: 'b' } } } })
    await waitFor(
      async () => (await serve.api<Servers>('GET', '/api/v1/servers')).json.servers.find((s) => s.name === 'envsrv')?.quarantine_source === 'review',
      15_000,
      'envsrv to be quarantined for review',
    )
    writeJson(path.join(tmp, 'upstream', 'tools.json'), [{ ...TOOLS[0], annotations: { readOnlyHint: true, openWorldHint: true } }, TOOLS[1]])
    const r = await waitForToolStatus(serve, 'notes:list_notes', 'pending_approval')
    expect(r.approval.status).toBe('changed')
  })
})
