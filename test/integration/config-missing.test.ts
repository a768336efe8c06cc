// The config file deleted while `toolgate serve` runs: the last good config keeps running (tools
// stay callable), nothing is created in its place, the log, GET /api/v1/info and a config.error
// event say the file is missing; a change from the control API meanwhile writes the running
// config back with that change, and the error clears.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  assertBuilt,
  fixtureEntry,
  openEvents,
  runCli,
  startServe,
  tempDir,
  waitFor,
  waitForServerState,
  writeJson,
  type EventStream,
  type Serve,
} from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { jsonOf, type McpHandle } from '../helpers/mcp-client'
import { agentServers, allText, logText, mcpOn } from '../helpers/faults'

useCleanup()

describe('the config file deleted at runtime', () => {
  let serve: Serve
  let h: McpHandle
  let events: EventStream
  let configPath: string
  let cfgEntry: Record<string, unknown>

  beforeAll(async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-config-missing-')
    const toolsFile = writeJson(path.join(tmp, 'cfg-tools.json'), [{ name: 'ping_it', description: 'Ping it', annotations: { readOnlyHint: true } }])
    cfgEntry = fixtureEntry(toolsFile, path.join(tmp, 'cfg-calls.log'), { quarantined: false })
    const goodConfig = {
      tools_limit: 10,
      mcpServers: {
        cfg: cfgEntry,
        // an operator hold: never started; the change from the API below switches it off
        held: { command: process.execPath, args: ['does-not-run.js'], quarantined: true },
      },
    }
    configPath = writeJson(path.join(tmp, 'mcp_config.json'), goodConfig)
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'cfg', 'connected')
    h = await mcpOn(serve)
    events = await openEvents(serve)
  }, 90_000)

  afterAll(async () => {
    events?.close()
    await h?.close().catch(() => {})
    await stopServe(serve)
  })

  const info = async () => (await serve.api<{ config_error: string | null }>('GET', '/api/v1/info')).json
  const stillRunning = async (tag: string): Promise<void> => {
    const r = await h.call('call_tool_read', { name: 'cfg:ping_it', args: { tag } })
    expect(r.isError, allText(r)).toBeFalsy()
    expect(jsonOf(r)).toEqual({ tool: 'ping_it', arguments: { tag } })
    expect((await agentServers(h)).map((s) => s.name).sort()).toEqual(['cfg', 'held'])
  }

  it('keeps the running config and says the file is missing; a change from the API writes the running config back with it', async () => {
    fs.rmSync(configPath)
    // before: the file was created empty and config.reloaded came with no servers
    const ev = await waitFor(() => events.events.find((e) => e.type === 'config.error' || e.type === 'config.reloaded'), 15_000, 'a config event')
    expect(ev.type).toBe('config.error')
    expect(String(ev.data.message)).toContain(configPath)
    expect(String(ev.data.message)).toMatch(/missing/)
    expect(fs.existsSync(configPath)).toBe(false)
    expect((await info()).config_error).toMatch(/config file is missing/)
    await waitFor(() => /config error, keeping the last good config: .*missing/.test(logText(serve.dataDir)), 10_000, 'the missing file in the log')
    await stillRunning('while missing')
    expect(fs.existsSync(configPath)).toBe(false)

    // the window switches the held server off: the file comes back as the running config plus that change
    const r = await serve.api('POST', '/api/v1/servers/held/disable')
    expect(r.status, JSON.stringify(r.json)).toBe(200)
    const written = JSON.parse(fs.readFileSync(configPath, 'utf8')) as { tools_limit: number; mcpServers: Record<string, Record<string, unknown>> }
    expect(written.tools_limit).toBe(10)
    expect(written.mcpServers.cfg).toEqual(cfgEntry)
    expect(written.mcpServers.held).toMatchObject({ quarantined: true, enabled: false })
    await waitFor(async () => (await info()).config_error === null, 10_000, 'config_error to clear')
    await stillRunning('after the write back')
  }, 60_000)
  it('toolgate import while the file is missing refuses (it would write only the imported servers, which Toolgate would apply), and writes nothing', async () => {
    const kept = fs.readFileSync(configPath, 'utf8')
    const errors = events.events.filter((e) => e.type === 'config.error').length
    fs.rmSync(configPath)
    await waitFor(() => events.events.filter((e) => e.type === 'config.error').length > errors, 15_000, 'the missing-file error')
    const client = writeJson(path.join(path.dirname(configPath), 'client.json'), { mcpServers: { imported: { command: process.execPath, args: ['x.js'] } } })
    const r = await runCli(['import', client, '--config', configPath, '--data-dir', serve.dataDir])
    // before: exit 0 and a file holding only "imported"; the watcher applied it and every other server stopped
    expect(r.code, r.stdout + r.stderr).toBe(2)
    expect(r.stderr).toMatch(/config file is missing while Toolgate runs/)
    expect(fs.existsSync(configPath)).toBe(false)
    // a dry run writes nothing and may still say what it would add
    expect((await runCli(['import', client, '--dry-run', '--config', configPath, '--data-dir', serve.dataDir])).code).toBe(0)
    expect(fs.existsSync(configPath)).toBe(false)
    await stillRunning('after the refused import')
    // put back: applied, the error clears, and the import goes through
    fs.writeFileSync(configPath, kept)
    await waitFor(async () => (await info()).config_error === null, 10_000, 'config_error to clear')
    const again = await runCli(['import', client, '--config', configPath, '--data-dir', serve.dataDir])
    expect(again.code, again.stdout + again.stderr).toBe(0)
    expect(Object.keys((JSON.parse(fs.readFileSync(configPath, 'utf8')) as { mcpServers: object }).mcpServers).sort()).toEqual(['cfg', 'held', 'imported'])
  }, 60_000)
})
