// resources/list_changed for agents, from outside: a real `toolgate serve`, two flood fixtures as
// upstreams (one 2025-only, one 2026-07-28), agents of both eras over HTTP /mcp and over
// `toolgate stdio` bridged to it. A server's own notifications/resources/list_changed reaches the
// agents that have that server in scope (coalesced: a burst is at most one a second per agent),
// never an agent without it; a server switched off or on changes the resources an agent lists, so
// the agents with it in scope hear that too, and the others do not.
import path from 'node:path'
import type { Client } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiRequest, assertBuilt, ROOT, startServe, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttpV2, connectStdioV2, countListChanged, type HeardListChanged } from '../helpers/mcp-v2-client'

const FLOOD = path.join(ROOT, 'test/fixtures/servers/flood-server.mjs')

useCleanup()

type Era = 'legacy' | 'modern'
interface Listener {
  heard: HeardListChanged
  client: Client
  close(): Promise<void>
}

async function httpListener(serve: Serve, era: Era, key: string): Promise<Listener> {
  const heard = { tools: 0, prompts: 0, resources: 0 }
  const h = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${key}` }, era, countListChanged(heard))
  return { heard, client: h.client, close: () => h.close() }
}

async function stdioListener(serve: Serve, era: Era): Promise<Listener> {
  const heard = { tools: 0, prompts: 0, resources: 0 }
  const h = await connectStdioV2(serve.flags, era, { TOOLGATE_API_KEY: serve.key }, countListChanged(heard))
  return { heard, client: h.client, close: () => h.close() }
}

describe('resources/list_changed for agents', () => {
  let serve: Serve
  let listeners: Record<string, Listener> = {}
  /** an agent whose scope holds "new" only */
  let newOnly: Listener
  /** an agent with "old" in scope that may not read it (write only): its resources are none of its business */
  let writeOnly: Listener
  /** the same write-only agent in 2026-07-28 (its listen stream) */
  let writeOnlyModern: Listener

  const flood = async (server: string) => {
    await listeners.legacyHttp.client.callTool({
      name: 'call_tool_read',
      arguments: { name: `${server}:flood`, args: { count: 40, over_ms: 1500, kinds: ['resources'] } },
    })
  }
  const counts = async (server: string) => {
    const r = await listeners.legacyHttp.client.callTool({ name: 'call_tool_read', arguments: { name: `${server}:counts`, args: {} } })
    return JSON.parse((r.content as Array<{ text: string }>)[0].text) as { flooding: boolean }
  }
  const snapshot = (): Record<string, number> =>
    Object.fromEntries([...Object.entries(listeners), ['newOnly', newOnly] as const].map(([k, l]) => [k, l.heard.resources]))

  beforeAll(async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-resources-lc-')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {
        old: { command: process.execPath, args: [FLOOD, '--legacy'], quarantined: false, lifecycle: 'always' },
        new: { command: process.execPath, args: [FLOOD], quarantined: false, lifecycle: 'always' },
      },
      agents: [
        { name: 'new-only', servers: ['new'], permissions: ['read'] },
        { name: 'old-write', servers: ['old'], permissions: ['write'] },
      ],
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    for (const s of ['old', 'new']) await waitForServerState(serve, s, 'connected')
    const token = (await serve.api<{ token: string }>('POST', '/api/v1/agents/new-only/token')).json.token
    listeners = {
      legacyHttp: await httpListener(serve, 'legacy', serve.key),
      modernHttp: await httpListener(serve, 'modern', serve.key),
      legacyStdio: await stdioListener(serve, 'legacy'),
      modernStdio: await stdioListener(serve, 'modern'),
    }
    newOnly = await httpListener(serve, 'modern', token)
    const writeToken = (await serve.api<{ token: string }>('POST', '/api/v1/agents/old-write/token')).json.token
    writeOnly = await httpListener(serve, 'legacy', writeToken)
    writeOnlyModern = await httpListener(serve, 'modern', writeToken)
    // the listen streams (2026-07-28) and GET streams (2025) open after connect
    await new Promise((r) => setTimeout(r, 1000))
  }, 120_000)

  afterAll(async () => {
    for (const l of [...Object.values(listeners), newOnly, writeOnly, writeOnlyModern]) await l?.close().catch(() => {})
    await stopServe(serve)
  })

  it('initialize and server/discover declare resources.listChanged', () => {
    for (const l of [...Object.values(listeners), newOnly]) expect(l.client.getServerCapabilities()?.resources?.listChanged).toBe(true)
  })

  it("a 2025 server's burst reaches every agent with it in scope, coalesced; an agent without it, or that may not read it, hears nothing", async () => {
    const before = snapshot()
    const writeBefore = writeOnly.heard.resources
    const writeModernBefore = writeOnlyModern.heard.resources
    await flood('old')
    await waitFor(async () => !(await counts('old')).flooding, 20_000, 'the flood to end')
    for (const [name, l] of Object.entries(listeners)) await waitFor(() => l.heard.resources > before[name], 10_000, `${name} to hear resources/list_changed`)
    // the last coalesced notification goes out within a second of the last of the burst
    await new Promise((r) => setTimeout(r, 2500))
    for (const [name, l] of Object.entries(listeners)) {
      // 40 notifications over 1.5 s: the first at once, then at most one a second, and one after the last
      expect(l.heard.resources - before[name], name).toBeLessThanOrEqual(4)
    }
    expect(newOnly.heard.resources).toBe(before.newOnly)
    // before: the write-only agent heard the server's list change of resources it cannot read
    expect(writeOnly.heard.resources).toBe(writeBefore)
    expect(writeOnlyModern.heard.resources).toBe(writeModernBefore)
    for (const l of Object.values(listeners)) expect(l.heard.tools + l.heard.prompts).toBe(0)
  }, 60_000)

  it("a 2026-07-28 server's notification reaches the agent scoped to it too", async () => {
    const before = snapshot()
    await flood('new')
    await waitFor(async () => !(await counts('new')).flooding, 20_000, 'the flood to end')
    for (const [name, l] of [...Object.entries(listeners), ['newOnly', newOnly] as const])
      await waitFor(() => l.heard.resources > before[name], 10_000, `${name} to hear resources/list_changed`)
  }, 60_000)

  it('switching a server off and on changes the resources agents list: those with it in scope hear it, the others do not', async () => {
    await new Promise((r) => setTimeout(r, 1500))
    const before = snapshot()
    expect((await apiRequest(serve, 'POST', '/api/v1/servers/old/disable')).status).toBe(200)
    for (const [name, l] of Object.entries(listeners)) await waitFor(() => l.heard.resources > before[name], 10_000, `${name} to hear that "old" is off`)
    await new Promise((r) => setTimeout(r, 1500))
    expect(newOnly.heard.resources).toBe(before.newOnly)
    const off = snapshot()
    expect((await apiRequest(serve, 'POST', '/api/v1/servers/old/enable')).status).toBe(200)
    for (const [name, l] of Object.entries(listeners)) await waitFor(() => l.heard.resources > off[name], 10_000, `${name} to hear that "old" is on`)
    await new Promise((r) => setTimeout(r, 1500))
    expect(newOnly.heard.resources).toBe(before.newOnly)
  }, 60_000)
})
