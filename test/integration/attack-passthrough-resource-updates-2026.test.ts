// Attack by a hostile upstream through 2026-07-28 resource subscriptions (subscriptions/listen over
// /mcp): a burst of notifications/resources/updated for a URI agents listen to. Each one reached
// every listening stream: 5,000 from the server were 5,000 at each agent. Now a stream hears a
// URI's updates at most once a second (update-fold.ts, as a 2025 session), the last change of a
// burst is still told, and a URI the agent may not read (never, or no longer) is never told.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, startServe, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { textOf } from '../helpers/mcp-client'
import { connectHttpV2, type V2Handle } from '../helpers/mcp-v2-client'

const HOSTILE = path.join(ROOT, 'test/fixtures/servers/hostile-server.mjs')
const URI = 'file:///notes/a.txt'
const HU = 'file://hu.toolgate.invalid/~/notes/a.txt'
const HX = 'file://hx.toolgate.invalid/~/notes/a.txt'
const BURST = 5000

useCleanup()

describe('attack: a hostile upstream floods resource updates on 2026-07-28 listen streams', () => {
  let serve: Serve
  let configPath: string
  let config: (aServers: string[]) => unknown
  // a reads hu only (it names hx too: left out of its stream); b reads both
  const agents: Record<'a' | 'b', V2Handle> = {} as Record<'a' | 'b', V2Handle>
  const heard: Record<'a' | 'b', Array<{ uri: string; at: number }>> = { a: [], b: [] }
  const streams: Array<{ close(): Promise<void> | void }> = []
  const times = (who: 'a' | 'b', uri: string) => heard[who].filter((h) => h.uri === uri).map((h) => h.at)

  beforeAll(async () => {
    const tmp = tempDir('toolgate-attack-updates-2026-')
    const stateFile = path.join(tmp, 'state.json')
    fs.writeFileSync(
      stateFile,
      JSON.stringify({
        capabilities: { tools: {}, resources: { subscribe: true } },
        tools: ['burst', 'one'].map((name) => ({
          name,
          description: 'Changes a note',
          inputSchema: { type: 'object', properties: {} },
          annotations: { readOnlyHint: true },
        })),
        resources: [{ uri: URI, name: 'a', mimeType: 'text/plain' }],
        reads: { [URI]: { contents: [{ uri: URI, mimeType: 'text/plain', text: 'A' }] } },
        updates: { burst: { uri: URI, count: BURST }, one: { uri: URI, count: 1 } },
      }),
    )
    const server = { command: process.execPath, args: [HOSTILE], env: { HOSTILE_STATE: stateFile }, sandbox: { fs_read: [tmp] }, quarantined: false }
    config = (aServers) => ({
      mcpServers: { hu: server, hx: server },
      agents: [
        { name: 'a', servers: aServers, permissions: ['read'] },
        { name: 'b', servers: ['hu', 'hx'], permissions: ['read'] },
      ],
    })
    configPath = writeJson(path.join(tmp, 'mcp_config.json'), config(['hu']))
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'hu', 'connected')
    await waitForServerState(serve, 'hx', 'connected')
    for (const name of ['a', 'b'] as const) {
      const token = (await serve.api<{ token: string }>('POST', `/api/v1/agents/${name}/token`)).json.token
      const h = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${token}` }, 'modern')
      agents[name] = h
      h.client.setNotificationHandler('notifications/resources/updated', (n) => void heard[name].push({ uri: n.params.uri, at: Date.now() }))
      streams.push(await h.client.listen({ resourceSubscriptions: [HU, HX] }))
    }
  }, 60_000)

  afterAll(async () => {
    for (const s of streams) await Promise.resolve(s.close()).catch(() => {})
    for (const h of Object.values(agents)) await h.close().catch(() => {})
    await stopServe(serve)
  })

  it('each listening agent hears a burst of 5,000 once or twice, and the last change is not lost', async () => {
    expect(textOf(await agents.a.call('call_tool_read', { name: 'hu:burst', args: {} }))).toBe('ok')
    // the first at once, the rest folded into one a second later
    await waitFor(() => times('a', HU).length >= 2 && times('b', HU).length >= 2, 15_000, 'the folded update')
    await new Promise((resolve) => setTimeout(resolve, 1500))
    for (const who of ['a', 'b'] as const) {
      const t = times(who, HU)
      expect(t.length).toBeLessThanOrEqual(3)
      expect(t[1] - t[0]).toBeGreaterThanOrEqual(900)
    }
    // a change after the burst is told too
    const before = { a: times('a', HU).length, b: times('b', HU).length }
    await agents.b.call('call_tool_read', { name: 'hu:one', args: {} })
    await waitFor(() => times('a', HU).length > before.a && times('b', HU).length > before.b, 10_000, 'the update after the burst')
  }, 60_000)

  it('an agent never hears a burst of a resource it may not read', async () => {
    expect(textOf(await agents.b.call('call_tool_read', { name: 'hx:burst', args: {} }))).toBe('ok')
    await waitFor(() => times('b', HX).length >= 2, 15_000, 'the folded update of hx to b')
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(times('b', HX).length).toBeLessThanOrEqual(3)
    expect(times('a', HX)).toEqual([])
  }, 60_000)

  it('an agent whose scope lost the server hears none of its updates on the stream it still holds', async () => {
    writeJson(configPath, config(['hx']))
    await waitFor(async () => !(await agents.a.client.listResources()).resources.some((r) => r.uri === HU), 10_000, 'hu to leave a’s list')
    const before = { a: times('a', HU).length, b: times('b', HU).length }
    await agents.b.call('call_tool_read', { name: 'hu:burst', args: {} })
    await waitFor(() => times('b', HU).length >= before.b + 2, 15_000, 'the burst (first and folded) to reach b')
    await agents.b.call('call_tool_read', { name: 'hu:one', args: {} })
    await waitFor(() => times('b', HU).length >= before.b + 3, 15_000, 'the update after the burst to reach b')
    expect(times('a', HU).length).toBe(before.a)
  }, 60_000)
})
