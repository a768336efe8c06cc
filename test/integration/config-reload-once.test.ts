// Toolgate's own config writes (enable/disable a server from the control API, upstream_servers
// add) reload the config once: one config.reloaded event per edit, not one from the write and a
// second from the file watcher seeing the same write.
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, openEvents, startServe, tempDir, waitFor, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, jsonOf } from '../helpers/mcp-client'

useCleanup()

/** Long enough for the watcher (150 ms debounce) to have reported the same write a second time. */
const QUIET_MS = 2000
const quiet = (): Promise<void> => new Promise((r) => setTimeout(r, QUIET_MS))

describe('one edit by Toolgate, one reload', () => {
  let serve: Serve
  let configPath: string
  const base = {
    allow_agent_server_changes: true,
    // an operator hold: never started, so nothing but the config edit happens
    mcpServers: { held: { command: process.execPath, args: ['does-not-run.js'], quarantined: true } },
  }

  beforeAll(async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-reload-once-')
    configPath = writeJson(path.join(tmp, 'mcp_config.json'), base)
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
  }, 60_000)

  afterAll(() => stopServe(serve))

  it('disabling a server from the control API emits config.reloaded exactly once', async () => {
    const events = await openEvents(serve)
    try {
      const r = await serve.api('POST', '/api/v1/servers/held/disable')
      expect(r.status).toBe(200)
      await events.next('config.reloaded')
      await quiet()
      expect(events.events.filter((e) => e.type === 'config.reloaded')).toHaveLength(1)
      // the watcher still sees an operator's edit afterwards
      writeJson(configPath, {
        ...base,
        mcpServers: { ...base.mcpServers, held: { ...base.mcpServers.held, enabled: false }, marker: { url: 'http://127.0.0.1:9/mcp' } },
      })
      await events.next('config.reloaded', 15_000, (e) => (e.data.servers as string[]).includes('marker'))
      expect(events.events.filter((e) => e.type === 'config.reloaded')).toHaveLength(2)
    } finally {
      events.close()
    }
  }, 60_000)

  it('an agent adding a server (upstream_servers add) emits config.reloaded exactly once', async () => {
    const events = await openEvents(serve)
    const agent = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
    try {
      const r = await agent.call('upstream_servers', { operation: 'add', name: 'added', command: process.execPath, args: ['x.js'] })
      expect(jsonOf<{ server: { quarantined: boolean } }>(r).server.quarantined).toBe(true)
      await waitFor(() => events.events.some((e) => e.type === 'config.reloaded'), 15_000, 'config.reloaded')
      await quiet()
      expect(events.events.filter((e) => e.type === 'config.reloaded')).toHaveLength(1)
    } finally {
      events.close()
      await agent.close()
    }
  }, 60_000)
})
