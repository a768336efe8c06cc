// Agent credentials are live. Narrowing or removing an agent in the config
// applies to open sessions (HTTP and bridged stdio) on their next request; tokens are listed
// and revoked (CLI and control API) and die with their agent; idle sessions expire and each
// credential holds a bounded number; a new api_key takes effect on reload.
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, fixtureEntry, freePort, runCli, startServe, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, connectStdio, jsonOf, textOf, type McpHandle } from '../helpers/mcp-client'

useCleanup()

const INIT = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
}

/** One raw JSON-RPC POST to /mcp: status, body text and the session id header. */
async function mcpPost(url: string, token: string, body: unknown, session?: string): Promise<{ status: number; text: string; session: string | null }> {
  const res = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' } : {}),
    },
    body: JSON.stringify(body),
  })
  return { status: res.status, text: await res.text(), session: res.headers.get('mcp-session-id') }
}

async function openRawSession(url: string, token: string): Promise<string> {
  const r = await mcpPost(url, token, INIT)
  expect(r.status, r.text).toBe(200)
  await mcpPost(url, token, { jsonrpc: '2.0', method: 'notifications/initialized' }, r.session as string)
  return r.session as string
}

const listCall = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'upstream_servers', arguments: { operation: 'list' } } })

async function token(s: Serve, agent: string): Promise<string> {
  const r = await runCli(['agents', 'token', agent, ...s.flags])
  expect(r.code, r.stderr).toBe(0)
  return r.stdout.trim()
}

const serverNames = async (h: McpHandle): Promise<string[]> =>
  jsonOf<{ servers: Array<{ name: string }> }>(await h.call('upstream_servers', { operation: 'list' })).servers.map((s) => s.name)

describe('agent scope and tokens apply to open sessions', () => {
  let tmp: string
  let serve: Serve
  let configPath: string
  let config: Record<string, unknown>
  const agents = (list: unknown[]) => writeJson(configPath, { ...config, agents: list })

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-agents-')
    const tools = writeJson(path.join(tmp, 'tools.json'), [{ name: 'ping', description: 'Answer pong', annotations: { readOnlyHint: true } }])
    configPath = path.join(tmp, 'mcp_config.json')
    config = {
      mcpServers: {
        alpha: fixtureEntry(tools, path.join(tmp, 'alpha.log'), { quarantined: false }),
        beta: fixtureEntry(tools, path.join(tmp, 'beta.log'), { quarantined: false }),
      },
    }
    agents([
      { name: 'reader', servers: ['alpha', 'beta'], permissions: ['read'] },
      { name: 'writer', servers: '*', permissions: ['read', 'write'] },
    ])
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'alpha', 'connected')
    await waitForServerState(serve, 'beta', 'connected')
  }, 90_000)

  afterAll(() => stopServe(serve))

  it('narrowing and then removing an agent applies to its open HTTP and bridged stdio sessions; re-adding it brings no token back', async () => {
    const t1 = await token(serve, 'reader')
    const http = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${t1}` })
    const bridged = await connectStdio(['--agent', 'reader', ...serve.flags])
    expect(await serverNames(http)).toEqual(['alpha', 'beta'])
    expect(await serverNames(bridged)).toEqual(['alpha', 'beta'])

    agents([
      { name: 'reader', servers: ['alpha'], permissions: ['read'] },
      { name: 'writer', servers: '*', permissions: ['read', 'write'] },
    ])
    await waitFor(async () => (await serverNames(http)).join() === 'alpha', 15_000, 'the HTTP session to see the narrowed scope')
    expect(await serverNames(bridged)).toEqual(['alpha'])
    const call = await http.call('call_tool_read', { name: 'beta:ping', args: {} })
    expect(call.isError).toBe(true)
    expect(textOf(call)).toMatch(/not in scope/)

    agents([{ name: 'writer', servers: '*', permissions: ['read', 'write'] }])
    await waitFor(
      async () => {
        const r = await http.call('upstream_servers', { operation: 'list' }).catch((e: Error) => e)
        return r instanceof Error ? r.message : undefined
      },
      15_000,
      'the HTTP session to be refused',
    ).then((msg) => expect(msg).toMatch(/revoked or once its agent leaves the config/))
    const viaBridge = await bridged.call('upstream_servers', { operation: 'list' }).catch((e: Error) => e)
    expect(viaBridge instanceof Error ? viaBridge.message : textOf(viaBridge)).toMatch(/no longer configured/)
    // a fresh session with the old token is refused too
    expect((await mcpPost(serve.url, t1, INIT)).status).toBe(401)

    agents([
      { name: 'reader', servers: ['alpha'], permissions: ['read'] },
      { name: 'writer', servers: '*', permissions: ['read', 'write'] },
    ])
    await waitFor(async () => (await serve.api<{ agents: Array<{ name: string }> }>('GET', '/api/v1/agents')).json.agents?.length === 2, 15_000, 'reader back')
    expect((await mcpPost(serve.url, t1, INIT)).status).toBe(401)
    const listed = await runCli(['agents', 'tokens', 'reader', '--json', ...serve.flags])
    expect(listed.code, listed.stderr).toBe(0)
    expect(JSON.parse(listed.stdout).tokens).toEqual([])
    await http.close().catch(() => {})
    await bridged.close().catch(() => {})
  })

  it('tokens are listed (id, created, last used; never the token) and revoked one by one or all at once', async () => {
    const w1 = await token(serve, 'writer')
    const w2 = await token(serve, 'writer')
    const s1 = await openRawSession(serve.url, w1)
    const s2 = await openRawSession(serve.url, w2)
    expect((await mcpPost(serve.url, w1, listCall(2), s1)).status).toBe(200)

    const api = await serve.api<{ tokens: Array<{ id: string; created_at: string; last_used_at: string | null }> }>('GET', '/api/v1/agents/writer/tokens')
    expect(api.status).toBe(200)
    expect(api.json.tokens).toHaveLength(2)
    expect(api.text).not.toContain(w1)
    expect(api.text).not.toContain(w2)
    for (const t of api.json.tokens) {
      expect(Object.keys(t).sort()).toEqual(['created_at', 'id', 'last_used_at'])
      expect(Date.parse(t.created_at)).toBeGreaterThan(Date.now() - 120_000)
      expect(t.last_used_at).not.toBeNull() // both opened a session
    }

    const cli = await runCli(['agents', 'tokens', 'writer', ...serve.flags])
    expect(cli.code, cli.stderr).toBe(0)
    for (const t of api.json.tokens) expect(cli.stdout).toContain(t.id)
    expect(cli.stdout).not.toContain(w1)
    const list = await runCli(['agents', 'list', ...serve.flags])
    expect(list.stdout).toMatch(/writer\s+\*\s+read,write\s+2/)

    // which id is w1's? the one whose revocation ends s1
    const [first, second] = api.json.tokens.map((t) => t.id)
    const revoked = await runCli(['agents', 'revoke', 'writer', first, ...serve.flags])
    expect(revoked.code, revoked.stderr).toBe(0)
    const a = await mcpPost(serve.url, w1, listCall(3), s1)
    const b = await mcpPost(serve.url, w2, listCall(3), s2)
    expect([a.status, b.status].sort()).toEqual([200, 401])
    const [live, liveSession] = a.status === 200 ? [w1, s1] : [w2, s2]

    const bad = await runCli(['agents', 'revoke', 'writer', ...serve.flags])
    expect(bad.code).toBe(2)
    const unknown = await fetch(`${serve.url}/api/v1/agents/writer/tokens/tok_nope`, { method: 'DELETE', headers: { authorization: `Bearer ${serve.key}` } })
    expect(unknown.status).toBe(404)
    expect(second).not.toBe(first)

    const all = await fetch(`${serve.url}/api/v1/agents/writer/tokens`, { method: 'DELETE', headers: { authorization: `Bearer ${serve.key}` } })
    expect(all.status).toBe(200)
    expect((await mcpPost(serve.url, live, listCall(4), liveSession)).status).toBe(401)
    expect((await serve.api<{ tokens: unknown[] }>('GET', '/api/v1/agents/writer/tokens')).json.tokens).toEqual([])
  })
})

describe('session limits and the admin key follow the config', () => {
  let tmp: string
  let serve: Serve
  let configPath: string
  const KEY1 = 'first-admin-key-0123456789'
  const KEY2 = 'second-admin-key-0123456789'
  const write = (extra: Record<string, unknown>) =>
    writeJson(configPath, {
      mcpServers: {},
      agents: [{ name: 'bot', servers: '*', permissions: ['read'] }],
      limits: { session_idle_s: 2, max_sessions_per_principal: 3 },
      ...extra,
    })

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-limits-')
    configPath = path.join(tmp, 'mcp_config.json')
    write({ api_key: KEY1 })
    // the key comes from the config only (no TOOLGATE_API_KEY, which would override it)
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data'), key: KEY1, env: { TOOLGATE_API_KEY: undefined }, port: await freePort() })
  }, 60_000)

  afterAll(() => stopServe(serve))

  it('a credential may hold at most max_sessions_per_principal sessions; the next one gets a clear error', async () => {
    const bot = await token(serve, 'bot')
    const sessions = [await openRawSession(serve.url, bot), await openRawSession(serve.url, bot), await openRawSession(serve.url, bot)]
    const fourth = await mcpPost(serve.url, bot, INIT)
    expect(fourth.status).toBe(429)
    expect(fourth.text).toMatch(/too many open MCP sessions/)
    expect(fourth.text).toMatch(/max_sessions_per_principal/)
    // another credential is not affected
    expect((await mcpPost(serve.url, KEY1, INIT)).status).toBe(200)
    // closing one makes room
    await fetch(`${serve.url}/mcp`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${bot}`, 'mcp-session-id': sessions[0], 'mcp-protocol-version': '2025-06-18' },
    })
    expect((await mcpPost(serve.url, bot, INIT)).status).toBe(200)
  })

  it('an idle session expires after session_idle_s; a bridged stdio client reconnects by itself', async () => {
    const fresh = await token(serve, 'bot') // a new token: the cap is per token

    const s = await openRawSession(serve.url, fresh)
    expect((await mcpPost(serve.url, fresh, listCall(2), s)).status).toBe(200)
    const bridged = await connectStdio(['--agent', 'bot', ...serve.flags])
    expect(textOf(await bridged.call('upstream_servers', { operation: 'list' }))).toContain('servers')
    const idleSince = Date.now()
    // wait out the idle time (2 s) without touching the session
    await waitFor(() => Date.now() - idleSince > 3500, 10_000, 'the idle time to pass', 250)
    const expired = await mcpPost(serve.url, fresh, listCall(3), s)
    expect(expired.status).toBe(404)
    expect(expired.text).toMatch(/expired/)
    expect(textOf(await bridged.call('upstream_servers', { operation: 'list' }))).toContain('servers')
    await bridged.close()
  })

  it('requests in flight when the session expired open one new session together, not one each (the cap is 3)', async () => {
    const bridged = await connectStdio(['--agent', 'bot', ...serve.flags])
    expect(textOf(await bridged.call('upstream_servers', { operation: 'list' }))).toContain('servers')
    const idleSince = Date.now()
    await waitFor(() => Date.now() - idleSince > 3500, 10_000, 'the idle time to pass', 250)
    const calls = await Promise.all(Array.from({ length: 6 }, () => bridged.call('upstream_servers', { operation: 'list' })))
    for (const c of calls) {
      expect(c.isError, textOf(c)).toBeFalsy()
      expect(textOf(c)).toContain('servers')
    }
    await bridged.close()
  })

  it('a new api_key in the config takes effect on reload and the old key stops working', async () => {
    expect((await fetch(`${serve.url}/api/v1/status`, { headers: { authorization: `Bearer ${KEY1}` } })).status).toBe(200)
    write({ api_key: KEY2 })
    await waitFor(
      async () => (await fetch(`${serve.url}/api/v1/status`, { headers: { authorization: `Bearer ${KEY2}` } })).status === 200,
      15_000,
      'the new key to work',
    )
    expect((await fetch(`${serve.url}/api/v1/status`, { headers: { authorization: `Bearer ${KEY1}` } })).status).toBe(401)
    expect((await mcpPost(serve.url, KEY1, INIT)).status).toBe(401)
    expect((await mcpPost(serve.url, KEY2, INIT)).status).toBe(200)
  })
})
