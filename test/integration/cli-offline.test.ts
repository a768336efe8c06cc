// Operator commands while nothing owns the data dir: they never start an upstream
// process (those may be npx or docker commands); they show the last known catalog, which the
// owner keeps in <data-dir>/catalog.json, and say that nothing is running. The upstreams here
// append their pid to a marker file each time they start.
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { FIXTURE, ROOT, assertBuilt, runCli, startServe, stopProcess, tempDir, waitFor, waitForServerState, writeJson, type FixtureTool } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'

const GATED = path.join(ROOT, 'test/fixtures/faults/gated-fixture.mjs')
const TOOLS: FixtureTool[] = [
  { name: 'read_doc', description: 'Read a document from the team wiki', annotations: { readOnlyHint: true } },
  { name: 'edit_doc', description: 'Edit a document in the team wiki', annotations: { readOnlyHint: false } },
]

useCleanup()

describe('operator commands with no live owner', () => {
  let tmp: string
  let flags: string[]
  let configPath: string
  let dataDir: string
  const marker = (name: string) => path.join(tmp, `${name}.started`)
  const started = (name: string) => fs.existsSync(marker(name))

  beforeAll(() => {
    assertBuilt()
    tmp = tempDir('toolgate-offline-')
    dataDir = path.join(tmp, 'data')
    const toolsFile = writeJson(path.join(tmp, 'tools.json'), TOOLS)
    const entry = (name: string, extra: Record<string, unknown>) => ({
      command: process.execPath,
      args: [GATED, '--pid-file', marker(name), '--fixture', FIXTURE, '--tools', toolsFile, '--log', path.join(tmp, `${name}.log`)],
      // the marker is written from inside the sandbox
      sandbox: { fs_write: [tmp] },
      ...extra,
    })
    configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { wiki: entry('wiki', { quarantined: false }), fresh: entry('fresh', {}) },
    })
    flags = ['--config', configPath, '--data-dir', dataDir]
  })

  it('servers list, tools list and search start no upstream and say that nothing is running', async () => {
    const list = await runCli(['servers', 'list', ...flags])
    expect(list.code, list.stderr).toBe(0)
    expect(list.stdout).toMatch(/^wiki\s/m)
    expect(list.stdout).toMatch(/^fresh\s/m)
    expect(list.stderr).toMatch(/Toolgate is not running/)
    expect(list.stderr).toMatch(/No upstream server was started/)

    const tools = await runCli(['tools', 'list', ...flags])
    expect(tools.code, tools.stderr).toBe(0)
    expect(tools.stderr).toMatch(/not running/)

    const search = await runCli(['search', 'read a wiki document', ...flags])
    expect(search.code, search.stderr).toBe(0)
    expect(JSON.parse(search.stdout)).toMatchObject({ query: 'read a wiki document', tools: [] })

    expect(started('wiki')).toBe(false)
    expect(started('fresh')).toBe(false)
  })

  it('servers approve with nothing running does not say it starts now, and starts nothing', async () => {
    const r = await runCli(['servers', 'approve', 'fresh', ...flags])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).not.toMatch(/starts now/)
    expect(r.stdout).toMatch(/Approved server fresh\. Toolgate is not running now: it starts the next time Toolgate runs/)
    expect(started('fresh')).toBe(false)
  })

  it('after an owner has run, the same commands show its last known tools, still starting nothing', async () => {
    const serve = await startServe({ configPath, dataDir })
    await waitForServerState(serve, 'wiki', 'connected')
    await waitForServerState(serve, 'fresh', 'connected')
    expect((await serve.api('POST', '/api/v1/servers/wiki/tools/edit_doc/disable')).status).toBe(200)
    await waitFor(() => fs.existsSync(path.join(dataDir, 'catalog.json')), 10_000, 'catalog.json')
    await stopProcess(serve.child)
    fs.rmSync(marker('wiki'))
    fs.rmSync(marker('fresh'))

    const tools = await runCli(['tools', 'list', 'wiki', '--json', ...flags])
    expect(tools.code, tools.stderr).toBe(0)
    expect(tools.stderr).toMatch(/showing the last known catalog/)
    const rows = (JSON.parse(tools.stdout) as { tools: Array<{ name: string; status: string }> }).tools
    expect(Object.fromEntries(rows.map((t) => [t.name, t.status]))).toEqual({ 'wiki:read_doc': 'callable', 'wiki:edit_doc': 'disabled_by_user' })
    const search = await runCli(['search', 'read a wiki document', ...flags])
    expect((JSON.parse(search.stdout) as { tools: Array<{ name: string }> }).tools.map((t) => t.name)).toContain('wiki:read_doc')
    const list = await runCli(['servers', 'list', ...flags])
    expect(list.stdout).toMatch(/^wiki\s+stopped \(starts on first use\)\s+1 callable/m)

    expect(started('wiki')).toBe(false)
    expect(started('fresh')).toBe(false)
  })
})
