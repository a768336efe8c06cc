// Config safety at runtime, end to end: bad edits of mcp_config.json while `toolgate serve` runs
// keep the last good config running (tools stay callable), and are reported in the log file,
// in GET /api/v1/info (config_error) and as a config.error event; fixing the file clears the
// error and emits config.reloaded.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  assertBuilt,
  fixtureEntry,
  openEvents,
  processRunning,
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

describe('invalid config at runtime', () => {
  let tmp: string
  let serve: Serve
  let h: McpHandle
  let events: EventStream
  let configPath: string
  let goodConfig: Record<string, unknown>

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-faults-config-')
    const toolsFile = writeJson(path.join(tmp, 'cfg-tools.json'), [{ name: 'ping_it', description: 'Ping it', annotations: { readOnlyHint: true } }])
    goodConfig = {
      tools_limit: 10,
      mcpServers: { cfg: fixtureEntry(toolsFile, path.join(tmp, 'cfg-calls.log'), { quarantined: false }) },
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
  const count = (type: string): number => events.events.filter((e) => e.type === type).length
  const stillRunning = async (tag: string): Promise<void> => {
    const r = await h.call('call_tool_read', { name: 'cfg:ping_it', args: { tag } })
    expect(r.isError, allText(r)).toBeFalsy()
    expect(jsonOf(r)).toEqual({ tool: 'ping_it', arguments: { tag } })
    expect((await agentServers(h)).map((s) => `${s.name}:${s.state}`)).toEqual(['cfg:connected'])
    expect(processRunning(serve.pid)).toBe(true)
  }

  // Each bad edit is written in place (not atomically), the way an editor or a person does it.
  const badEdits: Array<{ label: string; text: string; where: RegExp }> = [
    { label: 'invalid JSON', text: '{\n  "mcpServers": {\n    "cfg": { "command": "node", \n', where: /JSON|Unexpected|parse/i },
    {
      label: 'a schema error (tools_limit 0) that would also drop every server',
      text: JSON.stringify({ tools_limit: 0, mcpServers: {} }, null, 2),
      where: /tools_limit/,
    },
    {
      label: 'a server entry with both enabled_tools and disabled_tools',
      text: JSON.stringify({ mcpServers: { cfg: { command: 'node', enabled_tools: ['ping_it'], disabled_tools: ['x'] } } }, null, 2),
      where: /enabled_tools|disabled_tools/,
    },
    { label: 'an empty file (a half-saved edit)', text: '', where: /./ },
  ]

  for (const edit of badEdits) {
    it(`${edit.label}: the running config stays, the error is logged, shown in /api/v1/info and sent as config.error; a fix clears it`, async () => {
      const errorsBefore = count('config.error')
      const reloadsBefore = count('config.reloaded')
      fs.writeFileSync(configPath, edit.text)

      const ev = await waitFor(() => events.events.filter((e) => e.type === 'config.error')[errorsBefore], 15_000, 'a config.error event')
      expect(String(ev.data.message)).toMatch(edit.where)
      expect(String(ev.data.message)).toContain('mcp_config.json')
      const during = await info()
      expect(during.config_error).toBeTruthy()
      expect(during.config_error).toMatch(edit.where)
      await waitFor(() => /config error, keeping the last good config/.test(logText(serve.dataDir)), 10_000, 'the config error in the log file')
      await stillRunning(`during ${edit.label}`)
      expect(count('config.reloaded')).toBe(reloadsBefore) // nothing was applied

      writeJson(configPath, goodConfig)
      await waitFor(() => count('config.reloaded') > reloadsBefore, 15_000, 'a config.reloaded event after the fix')
      await waitFor(async () => (await info()).config_error === null, 10_000, 'config_error to clear')
      await stillRunning(`after fixing ${edit.label}`)
    })
  }

  it('the log file names each kind of bad edit, and the process never stopped', async () => {
    const log = logText(serve.dataDir)
    expect(log.match(/config error, keeping the last good config/g)?.length ?? 0).toBeGreaterThanOrEqual(badEdits.length)
    expect(log).toMatch(/tools_limit/)
    expect(processRunning(serve.pid)).toBe(true)
  })
})
