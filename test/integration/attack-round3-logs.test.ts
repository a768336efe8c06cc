// Round three attack on log messages across agents, from outside: a real `toolgate serve`, one
// shared upstream (the raw hostile server) in the scope of two agents, 2026-07-28 requests on /mcp.
// Agent A asks for log messages on a slow call; meanwhile agent B makes a call whose log message
// holds B's data. A server's log message names no request, so while calls of both are in flight
// nobody can tell whose it is: A must not hear it. A's own call, alone, is still heard. The same
// for 2025 sessions that set a level: a message of B's call alone reaches B's sessions, not A's.
import { Client, StreamableHTTPClientTransport, type LoggingMessageNotification } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { waitFor, type Serve } from '../helpers/cli'
import { serveHostile } from '../helpers/hostile-serve'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { MODERN_BARE, modernPost } from '../helpers/modern-http'

useCleanup()

describe("attack: one agent hears the log messages of another agent's call to a shared server", () => {
  let serve: Serve
  let tokens: Record<string, string> = {}

  beforeAll(async () => {
    const tool = (name: string) => ({ name, description: name, inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } })
    ;({ serve, tokens } = await serveHostile(
      'toolgate-attack-r3-logs-',
      {
        tools: [tool('slow'), tool('lookup')],
        delays: { slow: 1500 },
        toolLogs: { slow: [{ level: 'info', data: 'slow step for A' }], lookup: [{ level: 'info', data: 'looked up patient record 4711 for B' }] },
      },
      { name: 'shared', agents: ['a', 'b'] },
    ))
  }, 60_000)

  afterAll(() => stopServe(serve))

  const call = (agent: string, tool: string, logLevel?: string) =>
    modernPost(
      serve,
      tokens[agent],
      'tools/call',
      { name: 'call_tool_read', arguments: { name: `shared:${tool}`, args: {} } },
      { name: 'call_tool_read', envelope: { ...MODERN_BARE, ...(logLevel ? { 'io.modelcontextprotocol/logLevel': logLevel } : {}) } },
    )

  it("2026-07-28: A's request hears its own call's message, never the one of B's concurrent call", async () => {
    // alone, A hears what the server logs during its call
    const alone = await call('a', 'slow', 'debug')
    expect(alone.body).toContain('slow step for A')
    // A's call waits; B's call runs meanwhile and its message comes while both are in flight
    const a = call('a', 'slow', 'debug')
    await new Promise((r) => setTimeout(r, 300))
    const b = await call('b', 'lookup')
    expect(b.body).toContain('"ok"')
    const heard = (await a).body
    expect(heard).toContain('"ok"')
    expect(heard).not.toContain('patient record')
  })

  it("2025 sessions that set a level: a message of one agent's call reaches that agent, never the other; one from calls of both at once reaches neither", async () => {
    const session = async (agent: string) => {
      const heard: Array<LoggingMessageNotification['params']> = []
      const client = new Client({ name: `logs-${agent}`, version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } as never })
      client.setNotificationHandler('notifications/message', (n) => void heard.push(n.params))
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tokens[agent]}` } } }),
      )
      await client.setLoggingLevel('debug')
      const call = (tool: string) => client.callTool({ name: 'call_tool_read', arguments: { name: `shared:${tool}`, args: {} } }, { timeout: 30_000 })
      return { client, heard, call, said: () => heard.map((m) => JSON.stringify(m.data)).join('\n') }
    }
    const a = await session('a')
    const b = await session('b')
    try {
      // B's call alone: B hears its message, A does not
      await b.call('lookup')
      await waitFor(() => b.said().includes('patient record'), 10_000, "B to hear its own call's message")
      // A's call alone: A hears its message, B does not
      await a.call('slow')
      await waitFor(() => a.said().includes('slow step for A'), 10_000, "A to hear its own call's message")
      // calls of both in flight: B's message is nobody's
      const slow = a.call('slow')
      await new Promise((r) => setTimeout(r, 300))
      await b.call('lookup')
      await slow
      // a marker call of A's alone, after which every earlier message has been delivered
      const before = a.heard.length
      await a.call('slow')
      await waitFor(() => a.heard.length > before, 10_000, 'the marker call to be heard')
      expect(a.said()).not.toContain('patient record')
      expect(b.said()).not.toContain('slow step for A')
    } finally {
      await a.client.close().catch(() => {})
      await b.client.close().catch(() => {})
    }
  }, 60_000)
})
