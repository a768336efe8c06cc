// Round three attack on log messages across agents, from outside: a real `toolgate serve`, one
// shared upstream (the raw hostile server) in the scope of two agents, 2026-07-28 requests on /mcp.
// Agent A asks for log messages on a slow call; meanwhile agent B makes a call whose log message
// holds B's data. A server's log message names no request, so while calls of both are in flight
// nobody can tell whose it is: A must not hear it. A's own call, alone, is still heard.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanupProcesses, cleanupTemp, rawRequest, ROOT, startServe, stopProcess, tempDir, waitForServerState, writeJson, type Serve } from '../helpers/cli'

const HOSTILE = path.join(ROOT, 'test/fixtures/servers/hostile-server.mjs')

afterAll(async () => {
  await cleanupProcesses()
  cleanupTemp()
})

describe("attack: one agent hears the log messages of another agent's call to a shared server", () => {
  let serve: Serve
  const tokens: Record<string, string> = {}

  beforeAll(async () => {
    const tmp = tempDir('toolgate-attack-r3-logs-')
    const tool = (name: string) => ({ name, description: name, inputSchema: { type: 'object', properties: {} }, annotations: { readOnlyHint: true } })
    const file = path.join(tmp, 'shared.json')
    fs.writeFileSync(
      file,
      JSON.stringify({
        tools: [tool('slow'), tool('lookup')],
        delays: { slow: 1500 },
        toolLogs: { slow: [{ level: 'info', data: 'slow step for A' }], lookup: [{ level: 'info', data: 'looked up patient record 4711 for B' }] },
      }),
    )
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { shared: { command: process.execPath, args: [HOSTILE], env: { HOSTILE_STATE: file }, sandbox: { fs_read: [tmp] }, quarantined: false } },
      agents: [
        { name: 'a', servers: ['shared'], permissions: ['read'] },
        { name: 'b', servers: ['shared'], permissions: ['read'] },
      ],
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    for (const n of ['a', 'b']) tokens[n] = (await serve.api<{ token: string }>('POST', `/api/v1/agents/${n}/token`)).json.token
    await waitForServerState(serve, 'shared', 'connected')
  }, 60_000)

  afterAll(async () => {
    if (serve) await stopProcess(serve.child)
  })

  const call = (agent: string, tool: string, logLevel?: string) =>
    rawRequest(`${serve.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens[agent]}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'call_tool_read',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: {
          name: 'call_tool_read',
          arguments: { name: `shared:${tool}`, args: {} },
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
            ...(logLevel ? { 'io.modelcontextprotocol/logLevel': logLevel } : {}),
          },
        },
      }),
    })

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
})
