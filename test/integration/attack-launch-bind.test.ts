// Attacks on "what you approve is the launch you saw", from outside (real `toolgate serve`, real
// config edits). A review token that misses part of the launch lets an edit slip in between
// review and approve/inspect: switching isolation off (`sandbox: false`) or changing what an HTTP
// server is sent (`headers`). And an agent must not see or use the token.
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { apiRequest, assertBuilt, fixtureEntry, startServe, tempDir, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, type McpHandle } from '../helpers/mcp-client'
import { editEntry, getServer } from '../helpers/config-edit'

interface Server {
  name: string
  quarantined: boolean
  launch_hash: string
  isolation: Record<string, unknown>
  launch: { header_names?: string[] }
}

const AGENTS = [{ name: 'alice', servers: '*', permissions: ['read', 'write', 'destructive'] }]
const TOOLS = [{ name: 'read_notes', description: 'Read the notes', annotations: { readOnlyHint: true } }]

let tmp: string
let serve: Serve
let agent: McpHandle
let configPath: string
let entries: Record<string, Record<string, unknown>>

const server = (name: string): Promise<Server> => getServer<Server>(serve, name)
/** Another process edits one entry of mcp_config.json; resolves once serve shows the edit. */
const edit = (name: string, change: Record<string, unknown>, seen: (s: Server) => boolean): Promise<Server> =>
  editEntry<Server>({ serve, configPath, rest: { agents: AGENTS }, entries }, name, change, seen)

beforeAll(async () => {
  assertBuilt()
  tmp = tempDir('toolgate-attack-launch-')
  const tools = writeJson(path.join(tmp, 'tools.json'), TOOLS)
  entries = {
    boxed: fixtureEntry(tools, path.join(tmp, 'boxed.log')),
    inspected: fixtureEntry(tools, path.join(tmp, 'inspected.log')),
    remote: { url: 'https://mcp.example.invalid/mcp', headers: { 'X-Team': 'blue' } },
  }
  configPath = writeJson(path.join(tmp, 'mcp_config.json'), { agents: AGENTS, mcpServers: entries })
  serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
  agent = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}`, 'x-toolgate-agent': 'alice' })
}, 90_000)

useCleanup(async () => {
  await agent?.close()
  await stopServe(serve)
})

describe('the launch_hash covers everything the review shows about how a server runs', () => {
  it('isolation switched off (sandbox: false) after the review: approve with the reviewed hash is refused, nothing approved', async () => {
    const reviewed = await server('boxed')
    expect(reviewed.quarantined).toBe(true)
    const now = await edit('boxed', { sandbox: false }, (s) => JSON.stringify(s.isolation) !== JSON.stringify(reviewed.isolation))
    expect(now.launch_hash).not.toBe(reviewed.launch_hash)
    const stale = await apiRequest(serve, 'POST', '/api/v1/servers/boxed/approve', { hash: reviewed.launch_hash })
    expect(stale.status, stale.text).toBe(409)
    expect(stale.json.error.code).toBe('launch_changed')
    expect((await server('boxed')).quarantined).toBe(true)
  })

  it('Inspect runs isolated whatever the config says: after `sandbox: false`, the inspect of the launch as it is now still runs without network', async () => {
    const shown = await server('inspected')
    const now = await edit('inspected', { sandbox: false }, (s) => JSON.stringify(s.isolation) !== JSON.stringify(shown.isolation))
    expect((await apiRequest(serve, 'POST', '/api/v1/servers/inspected/inspect', { hash: shown.launch_hash })).status).toBe(409)
    const r = await apiRequest(serve, 'POST', '/api/v1/servers/inspected/inspect', { hash: now.launch_hash })
    expect(r.status, r.text).toBe(200)
    expect(r.json.message).toMatch(/ran isolated, without network access/)
  })

  it('a header value changed after the review (what the remote server is sent): approve with the reviewed hash is refused', async () => {
    const reviewed = await server('remote')
    const now = await edit('remote', { headers: { 'X-Team': 'blue', 'X-Forward-To': 'elsewhere' } }, (s) => (s.launch.header_names ?? []).length === 2)
    expect(now.launch_hash).not.toBe(reviewed.launch_hash)
    const stale = await apiRequest(serve, 'POST', '/api/v1/servers/remote/approve', { hash: reviewed.launch_hash })
    expect(stale.status, stale.text).toBe(409)
    expect((await server('remote')).quarantined).toBe(true)
    // the token of the launch as it is now approves it
    const ok = await apiRequest(serve, 'POST', '/api/v1/servers/remote/approve', { hash: now.launch_hash })
    expect(ok.status, ok.text).toBe(200)
    expect((await server('remote')).quarantined).toBe(false)
  })
})

describe('an agent cannot learn or use the review token', () => {
  it('upstream_servers shows no launch_hash', async () => {
    const hash = (await server('boxed')).launch_hash
    const listed = await agent.call('upstream_servers', { operation: 'list' })
    expect(JSON.stringify(listed)).not.toContain(hash)
    expect(JSON.stringify(listed)).not.toContain('launch_hash')
  })
})
