// The direct view and MCP Apps, from outside: a real App server from npm
// (@modelcontextprotocol/server-basic-react, offline over stdio) and the passthrough fixture behind
// a real `toolgate serve`. POST /mcp/direct (both eras) and `toolgate stdio --direct` list the
// meta-tools and every callable tool in scope as <server>__<tool> with _meta["toolgate/id"], its
// approved definition and annotations; the App tool keeps _meta.ui with its ui:// resource
// rewritten, and that resource reads through Toolgate; a call by the namespaced name or by the
// tool's original name (what the App calls) passes the same gate: scope, locks, activity.
import path from 'node:path'
import fs from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiRequest, assertBuilt, ROOT, startServe, tempDir, waitFor, waitForServerState, waitForToolStatus, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttpV2, connectStdioV2, type Era, type V2Handle } from '../helpers/mcp-v2-client'
import { textOf } from '../helpers/mcp-client'

const APP = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-basic-react/dist/index.js')
const PT = path.join(ROOT, 'test/fixtures/servers/passthrough-server.mjs')
const APP_UI = 'ui://app.toolgate.invalid/~get-time/mcp-app.html'

useCleanup()

describe.each<Era>(['legacy', 'modern'])('the direct view (%s era)', (era) => {
  let serve: Serve
  let direct: V2Handle
  let meta: V2Handle
  let reader: V2Handle

  beforeAll(async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-direct-')
    const state = path.join(tmp, 'pt.json')
    fs.writeFileSync(state, JSON.stringify({}))
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {
        app: { command: process.execPath, args: [APP, '--stdio'], quarantined: false },
        pt: { command: process.execPath, args: [PT], env: { PASSTHROUGH_STATE: state }, quarantined: false, sandbox: { fs_read: [tmp] } },
      },
      agents: [{ name: 'reader', servers: ['pt'], permissions: ['read'] }],
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'app', 'connected')
    await waitForServerState(serve, 'pt', 'connected')
    await waitForToolStatus(serve, 'app:get-time', 'callable')
    await waitForToolStatus(serve, 'pt:links', 'callable')
    const auth = { authorization: `Bearer ${serve.key}` }
    direct = await connectHttpV2(`${serve.url}/mcp/direct`, auth, era)
    meta = await connectHttpV2(`${serve.url}/mcp`, auth, era)
    const token = (await serve.api<{ token: string }>('POST', '/api/v1/agents/reader/token')).json.token
    reader = await connectHttpV2(`${serve.url}/mcp/direct`, { authorization: `Bearer ${token}` }, era)
  }, 60_000)

  afterAll(async () => {
    for (const a of [direct, meta, reader]) await a?.close().catch(() => {})
    await stopServe(serve)
  })

  it('lists the meta-tools and every callable tool as <server>__<tool>, the App tool with its _meta.ui rewritten', async () => {
    const { tools } = await direct.client.listTools()
    const names = tools.map((t) => t.name)
    for (const m of ['retrieve_tools', 'call_tool_read', 'call_tool_destructive', 'describe_tool']) expect(names).toContain(m)
    expect(names).toEqual(expect.arrayContaining(['app__get-time', 'pt__links', 'pt__structured']))
    const app = tools.find((t) => t.name === 'app__get-time')
    expect(app?._meta).toEqual({ 'toolgate/id': 'app:get-time', ui: { resourceUri: APP_UI }, 'ui/resourceUri': APP_UI })
    expect(app?.description).toBe('Returns the current server time as an ISO 8601 string.')
    expect(tools.find((t) => t.name === 'pt__links')?.annotations).toEqual({ readOnlyHint: true })
    // /mcp stays the meta view
    expect((await meta.client.listTools()).tools.map((t) => t.name)).not.toContain('app__get-time')
  })

  it('serves the App’s ui:// resource through Toolgate', async () => {
    const r = await direct.client.readResource({ uri: APP_UI })
    expect(r.contents[0]).toMatchObject({ uri: APP_UI, mimeType: 'text/html;profile=mcp-app' })
    expect((r.contents[0] as { text: string }).text).toMatch(/<html/i)
  })

  it('calls by the namespaced name and by the original name (what the App calls) through the same gate, recorded in the activity', async () => {
    const byName = await direct.call('app__get-time', {})
    expect(byName.isError).toBeFalsy()
    expect(textOf(byName)).toMatch(/^\d{4}-\d\d-\d\dT/)
    const byOriginal = await direct.call('get-time', {})
    expect(textOf(byOriginal)).toMatch(/^\d{4}-\d\d-\d\dT/)
    await waitFor(
      async () => (await apiRequest(serve, 'GET', '/api/v1/activity?tool=app:get-time&kind=call')).json.events.length >= 2,
      10_000,
      'the two calls in the activity',
    )
    // a locked tool is neither listed nor called
    expect((await apiRequest(serve, 'POST', '/api/v1/servers/app/tools/get-time/disable', {})).status).toBe(200)
    expect((await direct.client.listTools()).tools.map((t) => t.name)).not.toContain('app__get-time')
    expect(textOf(await direct.call('app__get-time', {}))).toMatch(/^TOOL_BLOCKED \(disabled_by_user\)/)
    // by its own name too: the gate says why (a locked tool is never handed to another server's tool of that name)
    expect(textOf(await direct.call('get-time', {}))).toMatch(/^TOOL_BLOCKED \(disabled_by_user\)/)
    expect((await apiRequest(serve, 'POST', '/api/v1/servers/app/tools/get-time/enable', {})).status).toBe(200)
  })

  it('a scoped agent sees and calls only its servers’ tools, within its permissions', async () => {
    const names = (await reader.client.listTools()).tools.map((t) => t.name)
    expect(names).toContain('pt__links')
    expect(names).not.toContain('app__get-time')
    // out of scope: the same answer as a made-up name (attack-r3-direct.test.ts)
    expect(textOf(await reader.call('app__get-time', {}))).toMatch(/unknown tool "app__get-time"/)
    expect(textOf(await reader.call('get-time', {}))).toMatch(/unknown tool/)
    const ok = await reader.call('pt__structured', { mode: 'good' })
    expect(ok.isError).toBeFalsy()
    expect(ok.structuredContent).toEqual({ count: 3 })
  })
})

describe('`toolgate stdio --direct`', () => {
  it('lists every callable tool as its own tool and calls it', async () => {
    const tmp = tempDir('toolgate-direct-stdio-')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { app: { command: process.execPath, args: [APP, '--stdio'], quarantined: false } },
    })
    const agent = await connectStdioV2(['--direct', '--config', configPath, '--data-dir', path.join(tmp, 'data')], 'modern')
    try {
      await waitFor(async () => (await agent.client.listTools()).tools.some((t) => t.name === 'app__get-time'), 20_000, 'the App tool to be listed')
      expect(textOf(await agent.call('app__get-time', {}))).toMatch(/^\d{4}-/)
    } finally {
      await agent.close()
    }
  })
})
