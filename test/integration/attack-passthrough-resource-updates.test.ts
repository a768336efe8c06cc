// Attack by a hostile upstream through resource subscriptions: a burst of
// notifications/resources/updated for a URI agents subscribed to. Each one reached every
// subscribed 2025 session (a gate check and a message per session, on Toolgate's main thread):
// 5,000 from the server were 5,000 at each agent. An update says "read it again"; now a session
// hears a URI's updates at most once a second (the first at once, the rest folded into one after
// it, gated when they came and when told). 2026-07-28 listen streams: the -2026 sibling.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js'
import { waitFor, type Serve } from '../helpers/cli'
import { serveHostile } from '../helpers/hostile-serve'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, textOf, type McpHandle } from '../helpers/mcp-client'

const URI = 'file:///notes/a.txt'
const AGENT_URI = 'file://hu.toolgate.invalid/~/notes/a.txt'
const BURST = 5000

useCleanup()

describe('attack: a hostile upstream floods resource updates', () => {
  let serve: Serve
  const agents: McpHandle[] = []

  beforeAll(async () => {
    let tokens: Record<string, string>
    ;({ serve, tokens } = await serveHostile(
      'toolgate-attack-updates-',
      {
        capabilities: { tools: {}, resources: { subscribe: true } },
        tools: [{ name: 'burst', description: 'Changes a note often', inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } }],
        resources: [{ uri: URI, name: 'a', mimeType: 'text/plain' }],
        reads: { [URI]: { contents: [{ uri: URI, mimeType: 'text/plain', text: 'A' }] } },
        updates: { burst: { uri: URI, count: BURST } },
      },
      { name: 'hu', agents: ['a', 'b'] },
    ))
    for (const name of ['a', 'b']) agents.push(await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${tokens[name]}` }))
  }, 60_000)

  afterAll(async () => {
    for (const a of agents) await a.close()
    await stopServe(serve)
  })

  it('each subscribed agent hears the burst once or twice, not 5,000 times, and the last change is not lost', async () => {
    const heard = agents.map(() => [] as number[])
    for (const [i, a] of agents.entries()) {
      a.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
        if (n.params.uri === AGENT_URI) heard[i].push(Date.now())
      })
      await a.client.subscribeResource({ uri: AGENT_URI })
    }
    const r = await agents[0].call('call_tool_read', { name: 'hu:burst', args: {} })
    expect(textOf(r)).toBe('ok')
    // the first at once, the rest folded into one a second later
    await waitFor(() => heard.every((h) => h.length >= 2), 10_000, 'the folded update')
    await new Promise((resolve) => setTimeout(resolve, 1500))
    for (const h of heard) {
      expect(h.length).toBeLessThanOrEqual(3)
      expect(h[1] - h[0]).toBeGreaterThanOrEqual(900)
    }
  })
})
