// "denying a request holds for the server", attacked from outside: a real
// `toolgate serve`, agents over MCP. After the user denies an agent's request, the agent asks
// again under another tool name of the same server — a name it made up for a server in quarantine
// (any name there is a request to open the server), or another real tool — hoping for a fresh
// notification the user clicks through. During the cooldown every such request gets the denial.
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  apiRequest,
  assertBuilt,
  fixtureEntry,
  openEvents,
  runCli,
  startServe,
  tempDir,
  waitForServerState,
  writeJson,
  type EventStream,
  type Serve,
} from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, jsonOf, type McpHandle } from '../helpers/mcp-client'

const ALL = ['read', 'write', 'destructive']
const TOOLS = [
  { name: 'read_notes', description: 'Read the notes', annotations: { readOnlyHint: true } },
  { name: 'edit_notes', description: 'Edit the notes', annotations: { readOnlyHint: false } },
]

interface Answer {
  request_id: string | null
  status: string
  message: string
}

let serve: Serve
let events: EventStream
const agents: Record<string, McpHandle> = {}
const ask = async (agent: string, name: string) => jsonOf<Answer>(await agents[agent].call('request_access', { name, reason: 'I need it' }))
const requests = async () =>
  (await apiRequest(serve, 'GET', '/api/v1/requests')).json.requests as Array<{ id: string; agent: string; server: string; status: string }>
const announced = () => events.events.filter((e) => e.type === 'requests.changed' && e.data.new === true).length

beforeAll(async () => {
  assertBuilt()
  const tmp = tempDir('toolgate-attack-deny-')
  const tools = writeJson(path.join(tmp, 'tools.json'), TOOLS)
  const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
    agents: ['alice', 'bob'].map((name) => ({ name, servers: '*', permissions: ALL })),
    mcpServers: {
      notes: fixtureEntry(tools, path.join(tmp, 'notes.log'), { quarantined: false }),
      fresh: fixtureEntry(tools, path.join(tmp, 'fresh.log')),
    },
  })
  serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
  events = await openEvents(serve)
  await waitForServerState(serve, 'notes', 'connected')
  for (const a of ['alice', 'bob']) agents[a] = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}`, 'x-toolgate-agent': a })
}, 90_000)

useCleanup(async () => {
  events?.close()
  for (const a of Object.values(agents)) await a.close()
  await stopServe(serve)
})

describe('a denial holds for the whole server during the cooldown', () => {
  it('a server in quarantine: after a denial, a made-up tool name of the same server is refused, with no new request or notification', async () => {
    const first = await ask('alice', 'fresh:list_things')
    expect(first.status).toBe('pending')
    expect((await apiRequest(serve, 'POST', `/api/v1/requests/${first.request_id}/deny`)).status).toBe(200)

    const before = announced()
    for (const name of ['fresh:sync_everything', 'fresh:list_things_v2', 'fresh:read_notes']) {
      const again = await ask('alice', name)
      expect(again, name).toMatchObject({ status: 'denied', request_id: first.request_id })
      expect(again.message).toMatch(/denied access to fresh:list_things .*request for server fresh/)
    }
    expect((await requests()).filter((r) => r.agent === 'alice' && r.server === 'fresh')).toHaveLength(1)
    expect(announced()).toBe(before)
    // another agent's request is its own (the denial answered alice)
    expect((await ask('bob', 'fresh:list_things')).status).toBe('pending')
  })

  it('a running server: after a denial, another tool of it is refused too (CLI deny)', async () => {
    for (const t of ['read_notes', 'edit_notes']) expect((await apiRequest(serve, 'POST', `/api/v1/servers/notes/tools/${t}/disable`)).status).toBe(200)
    const first = await ask('alice', 'notes:edit_notes')
    expect(first.status).toBe('pending')
    const deny = await runCli(['requests', 'deny', first.request_id as string, ...serve.flags])
    expect(deny.code, deny.stderr).toBe(0)
    const again = await ask('alice', 'notes:read_notes')
    expect(again).toMatchObject({ status: 'denied', request_id: first.request_id })
    expect((await requests()).filter((r) => r.agent === 'alice' && r.server === 'notes')).toHaveLength(1)
  })
})
