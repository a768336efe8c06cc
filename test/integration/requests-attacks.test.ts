// Access requests attacked from outside: an agent (untrusted) against a real `toolgate serve` with real
// fixture upstreams tries to forge or answer request ids, grant its own request over MCP, flood
// the queue, smuggle control characters and markup into what the user reads, keep a grant past
// its end across a crash, and ask for tools the operator locked or that are out of its scope.
import fs from 'node:fs'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  assertBuilt,
  fixtureEntry,
  killTree,
  logLines,
  openEvents,
  runCli,
  startServe,
  stopProcess,
  tempDir,
  waitFor,
  waitForServerState,
  waitForToolStatus,
  writeJson,
  type EventStream,
  type Serve,
} from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, jsonOf, textOf, type McpHandle } from '../helpers/mcp-client'

useCleanup()

interface Req {
  id: string
  agent: string | null
  client: string | null
  name: string
  tool: string
  reason: string
  status: string
  asked: number
}
interface Answer {
  request_id: string | null
  status: string
  message: string
}

const NOTES = [
  { name: 'read_notes', description: 'Read the notes', annotations: { readOnlyHint: true } },
  { name: 'edit_notes', description: 'Edit the notes', annotations: { readOnlyHint: false } },
  { name: 'wipe_notes', description: 'Wipe every note', annotations: { destructiveHint: true, readOnlyHint: false } },
]
const ALL = ['read', 'write', 'destructive']
const SEVEN = ['call_tool_destructive', 'call_tool_read', 'call_tool_write', 'describe_tool', 'request_access', 'retrieve_tools', 'upstream_servers']
const FLOODERS = Array.from({ length: 10 }, (_, i) => `flood${i}`)
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/

function config(tmp: string, o: { narrowScope?: boolean; lockEdit?: boolean } = {}) {
  const tools = path.join(tmp, 'tools.json')
  if (!fs.existsSync(tools)) writeJson(tools, NOTES)
  const entry = (name: string, extra: Record<string, unknown>) => fixtureEntry(tools, path.join(tmp, `${name}.log`), extra)
  return {
    agents: [
      { name: 'alice', servers: '*', permissions: ALL },
      // the operator may narrow this one while its request waits
      { name: 'carol', servers: o.narrowScope ? ['fresh'] : '*', permissions: ALL },
      { name: 'narrow', servers: ['notes'], permissions: ['read'] },
      ...FLOODERS.map((name) => ({ name, servers: ['fresh'], permissions: ['read'] })),
    ],
    mcpServers: {
      notes: entry('notes', { quarantined: false, ...(o.lockEdit ? { disabled_tools: ['edit_notes'] } : {}) }),
      off: entry('off', { quarantined: false, enabled: false }),
      fresh: entry('fresh', {}),
    },
  }
}

describe('access requests under attack', () => {
  let serve: Serve
  let tmp: string
  let configPath: string
  let events: EventStream
  const open: McpHandle[] = []
  const session = async (headers: Record<string, string>) => {
    const h = await connectHttp(`${serve.url}/mcp`, headers)
    open.push(h)
    return h
  }
  const as = (agent: string) => session({ authorization: `Bearer ${serve.key}`, 'x-toolgate-agent': agent })
  const list = async (q = '') => (await serve.api<{ requests: Req[] }>('GET', `/api/v1/requests${q}`)).json.requests
  const send = async (method: string, p: string, credential: { bearer?: string; apiKey?: string }, body?: unknown) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' }
    if (credential.bearer) headers.authorization = `Bearer ${credential.bearer}`
    if (credential.apiKey) headers['x-api-key'] = credential.apiKey
    const res = await fetch(serve.url + p, { method, headers, ...(method === 'GET' ? {} : { body: JSON.stringify(body ?? {}) }) })
    const text = await res.text()
    let json: { error?: { code: string; message: string } } = {}
    try {
      json = JSON.parse(text) as typeof json
    } catch {
      // not JSON
    }
    return { status: res.status, json }
  }
  const admin = (method: string, p: string, body?: unknown) => send(method, p, { bearer: serve.key }, body)
  const token = async (agent: string) => {
    const r = await runCli(['agents', 'token', agent, ...serve.flags])
    expect(r.code, r.stderr).toBe(0)
    return r.stdout.trim()
  }
  const rewriteConfig = async (o: Parameters<typeof config>[1]) => {
    const before = events.events.filter((e) => e.type === 'config.reloaded').length
    writeJson(configPath, config(tmp, o))
    await waitFor(() => events.events.filter((e) => e.type === 'config.reloaded').length > before, 20_000, 'the config to reload')
  }

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-requests-attacks-')
    configPath = writeJson(path.join(tmp, 'mcp_config.json'), config(tmp))
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    events = await openEvents(serve)
    await waitForServerState(serve, 'notes', 'connected')
  }, 90_000)

  afterAll(async () => {
    events?.close()
    for (const h of open) await h.close().catch(() => {})
    await stopServe(serve)
  })

  it('forged request ids answer nothing: an agent token is refused on the control API, unknown ids are 404, and request_access takes no id or answer', async () => {
    expect((await admin('POST', '/api/v1/servers/notes/tools/edit_notes/disable')).status).toBe(200)
    const tok = await token('alice')
    const agent = await session({ authorization: `Bearer ${tok}` })
    const a = jsonOf<Answer>(await agent.call('request_access', { name: 'notes:edit_notes', reason: 'rename a heading' }))
    expect(a.status).toBe('pending')
    const id = a.request_id as string

    // the agent's own token, both ways it can be presented, cannot read or answer requests, nor act as the user
    for (const cred of [{ bearer: tok }, { apiKey: tok }]) {
      for (const [method, p, body] of [
        ['POST', `/api/v1/requests/${id}/grant`, { for: 'always' }],
        ['POST', `/api/v1/requests/${id}/deny`, {}],
        ['GET', '/api/v1/requests', undefined],
        ['POST', '/api/v1/servers/notes/tools/edit_notes/enable', { for: '1h' }],
      ] as const) {
        const r = await send(method, p, cred, body)
        expect(r.status, `${method} ${p}`).toBe(403)
        expect(r.json.error?.code).toBe('forbidden')
      }
    }
    // ids that look right, and ids that try to reach something else, are unknown with the admin key too
    const twin = id.slice(0, -1) + (id.endsWith('A') ? 'B' : 'A')
    for (const forged of [twin, 'r_AAAAAAAAAAAA', '..%2F..%2Fstatus', `r_${'x'.repeat(2000)}`]) {
      const r = await admin('POST', `/api/v1/requests/${forged}/grant`, { for: 'always' })
      expect(r.status, forged).toBe(404)
    }
    expect((await admin('POST', `/api/v1/requests/${twin}/deny`)).json.error?.code).toBe('unknown_request')
    // an answer or someone else's id cannot ride along with request_access
    for (const extra of [{ request_id: id }, { status: 'granted' }, { for: 'always' }, { agent: 'narrow' }]) {
      const r = await agent.call('request_access', { name: 'notes:edit_notes', reason: 'again', ...extra })
      expect(r.isError).toBe(true)
      expect(textOf(r)).toMatch(/request_access takes only name, reason and wait_s/)
    }
    // nothing moved: still waiting, still locked
    expect((await list()).find((r) => r.id === id)?.status).toBe('pending')
    expect((await waitForToolStatus(serve, 'notes:edit_notes', 'disabled_by_user')).status).toBe('disabled_by_user')
    expect(textOf(await agent.call('call_tool_write', { name: 'notes:edit_notes' }))).toMatch(/^TOOL_BLOCKED \(disabled_by_user\)/)
  })

  it('malformed answers and filters are 400s that say what is wrong, and change nothing', async () => {
    const a = jsonOf<Answer>(await (await as('alice')).call('request_access', { name: 'off:edit_notes', reason: 'edit' }))
    const id = a.request_id as string
    // an empty status is no filter (docs/contract.md §7 writes the route as `?status=`)
    expect((await list('?status=')).map((r) => r.id)).toEqual((await list()).map((r) => r.id))
    expect((await list('?status=')).some((r) => r.id === id)).toBe(true)
    for (const q of ['?status=bogus', '?agent=alice']) {
      const r = await admin('GET', `/api/v1/requests${q}`)
      expect(r.status, q).toBe(400)
      expect(r.json.error?.message, q).toBeTruthy()
    }
    for (const body of [{}, { for: '' }, { for: 3600 }, { for: '1h', also: 'always' }, { for: '-1h' }, { for: '1d' }, { for: '99999999h' }]) {
      const r = await admin('POST', `/api/v1/requests/${id}/grant`, body)
      expect(r.status, JSON.stringify(body)).toBe(400)
      expect(r.json.error?.message, JSON.stringify(body)).toMatch(/for|body/)
    }
    const raw = await fetch(`${serve.url}/api/v1/requests/${id}/grant`, {
      method: 'POST',
      headers: { authorization: `Bearer ${serve.key}`, 'content-type': 'application/json' },
      body: '{"for": "1h"',
    })
    expect(raw.status).toBe(400)
    expect((await list()).find((r) => r.id === id)?.status).toBe('pending')
    const servers = (await serve.api<{ servers: Array<{ name: string; enabled: boolean }> }>('GET', '/api/v1/servers')).json.servers
    expect(servers.find((s) => s.name === 'off')?.enabled).toBe(false)
  })

  it('an agent cannot grant its own request over MCP: no agent tool answers, upstream_servers cannot switch a server on, a token cannot be another agent', async () => {
    const alice = await as('alice')
    const names = ((await alice.client.listTools()).tools ?? []).map((t) => t.name).sort()
    expect(names).toEqual(SEVEN)
    const a = jsonOf<Answer>(await alice.call('request_access', { name: 'off:read_notes', reason: 'read the notes' }))
    expect(a.status).toBe('pending')
    const on = await alice.call('upstream_servers', { operation: 'enable', name: 'off' })
    expect(on.isError).toBe(true)
    expect(textOf(on)).toMatch(/allow_agent_server_changes is false/)
    // asking again, even waiting, only asks
    const again = jsonOf<Answer>(await alice.call('request_access', { name: 'off:read_notes', reason: 'please', wait_s: 1 }))
    expect(again).toMatchObject({ request_id: a.request_id, status: 'pending' })
    expect((await list()).find((r) => r.id === a.request_id)).toMatchObject({ status: 'pending', asked: 2 })
    const servers = (await serve.api<{ servers: Array<{ name: string; enabled: boolean }> }>('GET', '/api/v1/servers')).json.servers
    expect(servers.find((s) => s.name === 'off')?.enabled).toBe(false)
    expect(JSON.parse(fs.readFileSync(configPath, 'utf8')).mcpServers.off.enabled).toBe(false)
    // a token is one agent: the agent header cannot widen it
    const narrow = await session({ authorization: `Bearer ${await token('narrow')}`, 'x-toolgate-agent': 'alice' })
    const out = await narrow.call('request_access', { name: 'notes:edit_notes', reason: 'as alice' })
    expect(out.isError).toBe(true)
    expect(textOf(out)).toMatch(/not in scope for agent "narrow"/)
    expect((await list()).some((r) => r.agent === 'narrow')).toBe(false)
  })

  it('what the agent writes reaches the user as inert text: reason, client name and the tool name it made up (API, CLI)', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${serve.key}` } },
    })
    const client = new Client({ name: 'Toolgate\u001b]0;owned\u0007 <b>system</b>\u202e', version: '1' })
    await client.connect(transport)
    try {
      const name = 'fresh:x\u001b[2J<script>alert(1)</script>\u202egnp.exe'
      const reason = 'ok\r\n\u001b[31mURGENT\u001b[0m <a href="https://evil.example">click</a> \u0085\u009b2J \u2066hidden\u2069'
      const r = (await client.callTool({ name: 'request_access', arguments: { name, reason } })) as { content: Array<{ text: string }> }
      const a = JSON.parse(r.content[0].text) as Answer
      expect(a.status).toBe('pending')
      const req = (await list()).find((x) => x.id === a.request_id) as Req
      expect(req.agent).toBeNull()
      for (const shown of [req.reason, req.client as string, req.name]) expect(CONTROL.test(shown), JSON.stringify(shown)).toBe(false)
      expect(req.client).toBe('Toolgate\\u{1b}]0;owned\\u{7} <b>system</b>\\u{202e}')
      expect(req.name).toBe('fresh:x\\u{1b}[2J<script>alert(1)</script>\\u{202e}gnp.exe')
      expect(req.reason).toBe('ok \\u{1b}[31mURGENT\\u{1b}[0m <a href="https://evil.example">click</a> \\u{85}\\u{9b}2J \\u{2066}hidden\\u{2069}')
      // the terminal: the table and --json carry no control character of the agent's
      const table = await runCli(['requests', 'list', '--status', 'pending', ...serve.flags])
      expect(table.code).toBe(0)
      const row = table.stdout.split('\n').find((l) => l.startsWith(req.id)) ?? ''
      expect(row).toContain('(no agent: Toolgate\\u{1b}]0;owned\\u{7} <b>system</b>\\u{202e})')
      const json = await runCli(['requests', 'list', '--json', ...serve.flags])
      for (const out of [table.stdout, json.stdout]) expect(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202e\u2066\u2069]/.test(out)).toBe(false)
      // the raw tool name is only the identifier, never shown: the grant answer names the safe one
      const g = await admin('POST', `/api/v1/requests/${req.id}/deny`)
      expect(g.status).toBe(200)
      expect(CONTROL.test(JSON.stringify(g.json))).toBe(false)
    } finally {
      await transport.terminateSession().catch(() => {})
      await client.close()
    }
  })

  it('a config lock set while the request waits wins: the grant is refused (409) and an "Allow once" pass given before stops passing', async () => {
    expect((await admin('POST', '/api/v1/servers/notes/tools/edit_notes/disable')).status).toBe(200)
    const carol = await as('carol')
    const a = jsonOf<Answer>(await carol.call('request_access', { name: 'notes:edit_notes', reason: 'edit' }))
    const b = jsonOf<Answer>(await (await as('alice')).call('request_access', { name: 'notes:edit_notes', reason: 'edit too' }))
    expect((await admin('POST', `/api/v1/requests/${b.request_id}/grant`, { for: 'once' })).status).toBe(200)
    await rewriteConfig({ lockEdit: true })
    await waitForToolStatus(serve, 'notes:edit_notes', 'disabled_by_config')
    const g = await admin('POST', `/api/v1/requests/${a.request_id}/grant`, { for: 'always' })
    expect(g.status).toBe(409)
    expect(g.json.error?.code).toBe('not_requestable')
    expect(g.json.error?.message).toMatch(/operator policy in mcp_config\.json/)
    expect((await list()).find((r) => r.id === a.request_id)?.status).toBe('pending')
    const before = logLines(path.join(tmp, 'notes.log')).filter((l) => l.tool === 'edit_notes').length
    const call = await (await as('alice')).call('call_tool_write', { name: 'notes:edit_notes', args: {} })
    expect(textOf(call)).toMatch(/^TOOL_BLOCKED \(disabled_by_config\)/)
    expect(logLines(path.join(tmp, 'notes.log')).filter((l) => l.tool === 'edit_notes').length).toBe(before)
    // asking now is not_requestable, and tells the operator message
    const now = jsonOf<Answer>(await carol.call('request_access', { name: 'notes:edit_notes', reason: 'edit' }))
    expect(now.status).toBe('not_requestable')
    await rewriteConfig({})
    // left waiting: a denial would hold for all of notes for carol (the next test asks for another tool of it)
  }, 60_000)

  it('a scope narrowed while the request waits wins: the grant is refused, and an "Allow once" pass is worthless out of scope', async () => {
    expect((await admin('POST', '/api/v1/servers/notes/tools/wipe_notes/disable')).status).toBe(200)
    const carol = await as('carol')
    const wipe = jsonOf<Answer>(await carol.call('request_access', { name: 'notes:wipe_notes', reason: 'clean up' }))
    expect(wipe.status).toBe('pending')
    const other = jsonOf<Answer>(await carol.call('request_access', { name: 'off:read_notes', reason: 'read' }))
    expect(other.status).toBe('pending')
    expect((await admin('POST', `/api/v1/requests/${wipe.request_id}/grant`, { for: 'once' })).status).toBe(200)
    await rewriteConfig({ narrowScope: true })
    const g = await admin('POST', `/api/v1/requests/${other.request_id}/grant`, { for: 'always' })
    expect(g.status).toBe(409)
    expect(g.json.error?.message).toMatch(/not in scope for agent "carol"/)
    const servers = (await serve.api<{ servers: Array<{ name: string; enabled: boolean }> }>('GET', '/api/v1/servers')).json.servers
    expect(servers.find((s) => s.name === 'off')?.enabled).toBe(false)
    const before = logLines(path.join(tmp, 'notes.log')).filter((l) => l.tool === 'wipe_notes').length
    for (const h of [carol, await as('carol')]) expect((await h.call('call_tool_destructive', { name: 'notes:wipe_notes', args: {} })).isError).toBe(true)
    expect(logLines(path.join(tmp, 'notes.log')).filter((l) => l.tool === 'wipe_notes').length).toBe(before)
    await rewriteConfig({})
  }, 60_000)

  it('flooding: names and reasons are bounded, each agent waits with at most 20, and all agents together with at most 200', async () => {
    const f0 = await as('flood0')
    const long = await f0.call('request_access', { name: `fresh:${'x'.repeat(201)}`, reason: 'r' })
    expect(long.isError).toBe(true)
    expect(textOf(long)).toMatch(/longer than 200 characters/)
    const big = jsonOf<Answer>(await f0.call('request_access', { name: 'fresh:big', reason: 'y'.repeat(200_000) }))
    expect(((await list()).find((r) => r.id === big.request_id) as Req).reason.length).toBeLessThanOrEqual(501)
    const newBefore = events.events.filter((e) => e.type === 'requests.changed' && e.data.new === true).length
    let made = 0
    for (const agent of FLOODERS) {
      const h = agent === 'flood0' ? f0 : await as(agent)
      for (let i = 0; ; i++) {
        const pending = (await list('?status=pending')).length
        const r = await h.call('request_access', { name: `fresh:t_${i}`, reason: 'flood' })
        if (r.isError) {
          // either this agent is full or everyone is
          expect(textOf(r)).toMatch(
            pending >= 200 ? /200 requests already wait for the user|already has 20 requests waiting/ : /already has 20 requests waiting/,
          )
          break
        }
        made++
      }
      if ((await list('?status=pending')).length >= 200) break
    }
    const pending = await list('?status=pending')
    expect(pending).toHaveLength(200)
    for (const agent of FLOODERS) expect(pending.filter((r) => r.agent === agent).length).toBeLessThanOrEqual(20)
    await waitFor(
      () => events.events.filter((e) => e.type === 'requests.changed' && e.data.new === true).length >= newBefore + made,
      10_000,
      'one "new" event per request made',
    )
    // a full queue refuses everyone, but asking again for a waiting request still folds
    const alice = await as('alice')
    const full = await alice.call('request_access', { name: 'fresh:anything', reason: 'me too' })
    expect(textOf(full)).toMatch(/200 requests already wait for the user; try again later/)
    expect(jsonOf<Answer>(await f0.call('request_access', { name: 'fresh:t_0', reason: 'fold' })).status).toBe('pending')
    // answering frees room
    const any = pending.find((r) => r.agent === 'flood0') as Req
    expect((await admin('POST', `/api/v1/requests/${any.id}/deny`)).status).toBe(200)
    expect(jsonOf<Answer>(await alice.call('request_access', { name: 'fresh:anything', reason: 'me too' })).status).toBe('pending')
  }, 120_000)
})

describe('a time-boxed grant never outlives its end across a crash', () => {
  it('Toolgate killed (SIGKILL) while a 10 s grant runs and started again at once: the grant still ends on time, and an "Allow once" pass stays single-use', async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-grants-crash-')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), config(tmp))
    const dataDir = path.join(tmp, 'data')
    let serve = await startServe({ configPath, dataDir })
    const post = (p: string, body: unknown = {}) =>
      fetch(serve.url + p, {
        method: 'POST',
        headers: { authorization: `Bearer ${serve.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    await waitForServerState(serve, 'notes', 'connected')
    expect((await post('/api/v1/servers/notes/tools/edit_notes/disable')).status).toBe(200)
    expect((await post('/api/v1/servers/notes/tools/wipe_notes/disable')).status).toBe(200)
    let alice = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}`, 'x-toolgate-agent': 'alice' })
    const once = jsonOf<Answer>(await alice.call('request_access', { name: 'notes:wipe_notes', reason: 'one cleanup' }))
    expect((await post(`/api/v1/requests/${once.request_id}/grant`, { for: 'once' })).status).toBe(200)
    expect((await post('/api/v1/servers/notes/tools/edit_notes/enable', { for: '10s' })).status).toBe(200)
    const state = JSON.parse(fs.readFileSync(path.join(dataDir, 'state.json'), 'utf8')) as { grants: Array<{ kind: string; until: string }> }
    const until = Date.parse(state.grants.find((g) => g.kind === 'timed')?.until ?? '')
    expect(until).toBeGreaterThan(Date.now())
    await alice.close()
    await killTree(serve.pid)
    await serve.exited

    serve = await startServe({ configPath, dataDir })
    const events = await openEvents(serve)
    alice = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}`, 'x-toolgate-agent': 'alice' })
    try {
      // notes need not run (on demand): the grant is about its tools, known from the last run
      // still running after the restart (a loaded machine may have been slower than the grant: then it ended at start)
      if (Date.now() < until - 1000) {
        expect((await waitForToolStatus(serve, 'notes:edit_notes', 'callable')).status).toBe('callable')
        const ended = await events.next('grant.ended', 30_000, (e) => e.data.tool === 'edit_notes')
        // not before its end (set by the first run), on the clock of the second
        expect(Date.now()).toBeGreaterThanOrEqual(until - 50)
        expect(String(ended.data.message)).toMatch(/notes:edit_notes is switched off again/)
      }
      expect((await waitForToolStatus(serve, 'notes:edit_notes', 'disabled_by_user')).status).toBe('disabled_by_user')
      expect(textOf(await alice.call('call_tool_write', { name: 'notes:edit_notes', args: {} }))).toMatch(/^TOOL_BLOCKED \(disabled_by_user\)/)
      // the pass survived the crash as one call, not more
      const calls = await Promise.all([1, 2, 3].map(() => alice.call('call_tool_destructive', { name: 'notes:wipe_notes', args: {} })))
      expect(calls.filter((c) => !c.isError)).toHaveLength(1)
      expect(logLines(path.join(tmp, 'notes.log')).filter((l) => l.tool === 'wipe_notes')).toHaveLength(1)
      await waitFor(
        () => (JSON.parse(fs.readFileSync(path.join(dataDir, 'state.json'), 'utf8')) as { grants: unknown[] }).grants.length === 0,
        10_000,
        'no grant left in state.json',
      )
    } finally {
      events.close()
      await alice.close()
      await stopProcess(serve.child)
    }
  }, 120_000)
})
