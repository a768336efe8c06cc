// Requests and grants, from outside: agents ask with request_access over MCP (a real `toolgate serve`, real
// fixture upstreams), the user answers through the control API, and grants end on time. Each
// test speaks as an agent (alice, bob, narrow) or as the user (the admin key).
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  assertBuilt,
  fixtureEntry,
  logLines,
  openEvents,
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
  name: string
  server: string
  reason: string
  status: string
  lock: string
  asked: number
  granted_for?: string
  until?: string
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

function world(tmp: string) {
  const tools = writeJson(path.join(tmp, 'tools.json'), NOTES)
  const entry = (name: string, extra: Record<string, unknown>) => fixtureEntry(tools, path.join(tmp, `${name}.log`), extra)
  return writeJson(path.join(tmp, 'mcp_config.json'), {
    agents: [
      { name: 'alice', servers: '*', permissions: ALL },
      { name: 'bob', servers: '*', permissions: ALL },
      { name: 'narrow', servers: ['notes'], permissions: ['read'] },
    ],
    mcpServers: {
      notes: entry('notes', { quarantined: false }),
      off: entry('off', { quarantined: false, enabled: false }),
      fresh: entry('fresh', {}),
      held: entry('held', { quarantined: true }),
      policy: entry('policy', { quarantined: false, disabled_tools: ['wipe_notes'] }),
    },
  })
}

describe('access requests and grants over MCP and the control API', () => {
  let serve: Serve
  let tmp: string
  let events: EventStream
  const agents: Record<string, McpHandle> = {}
  const ask = async (agent: string, args: Record<string, unknown>, timeoutMs?: number) => agents[agent].call('request_access', args, timeoutMs)
  const list = async (q = '') => (await serve.api<{ requests: Req[] }>('GET', `/api/v1/requests${q}`)).json.requests
  const post = async (p: string, body?: unknown) => {
    const res = await fetch(serve.url + p, {
      method: 'POST',
      headers: { authorization: `Bearer ${serve.key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body ?? {}),
    })
    return { status: res.status, json: (await res.json()) as Record<string, unknown> & { error?: { code: string; message: string } } }
  }

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-requests-')
    serve = await startServe({ configPath: world(tmp), dataDir: path.join(tmp, 'data') })
    for (const a of ['alice', 'bob', 'narrow'])
      agents[a] = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}`, 'x-toolgate-agent': a })
    events = await openEvents(serve)
    await waitForServerState(serve, 'notes', 'connected')
    await waitForServerState(serve, 'policy', 'connected')
  }, 90_000)

  afterAll(async () => {
    events?.close()
    for (const a of Object.values(agents)) await a.close()
    await stopServe(serve)
  })

  it('request → pending in the queue → grant for 2 s → callable → at the end locked again, with an event', async () => {
    expect((await post('/api/v1/servers/notes/tools/edit_notes/disable')).status).toBe(200)
    const blocked = await agents.alice.call('call_tool_write', { name: 'notes:edit_notes' })
    expect(textOf(blocked)).toMatch(/^TOOL_BLOCKED \(disabled_by_user\): .*call request_access/)

    const a = jsonOf<Answer>(await ask('alice', { name: 'notes:edit_notes', reason: 'fix a typo in the meeting notes' }))
    expect(a.status).toBe('pending')
    expect(a.request_id).toMatch(/^r_/)
    const queued = (await list('?status=pending')).find((r) => r.id === a.request_id)
    expect(queued).toMatchObject({ agent: 'alice', name: 'notes:edit_notes', reason: 'fix a typo in the meeting notes', lock: 'disabled_by_user', asked: 1 })
    await events.next('requests.changed', 5000, (e) => e.data.id === a.request_id && e.data.new === true)

    const g = await post(`/api/v1/requests/${a.request_id}/grant`, { for: '2s' })
    expect(g.status).toBe(200)
    expect((await list()).find((r) => r.id === a.request_id)).toMatchObject({ status: 'granted', granted_for: '2s' })
    const row = await waitForToolStatus(serve, 'notes:edit_notes', 'callable')
    expect((row as unknown as { grant?: { until: string; then: string } }).grant?.then).toBe('switched off again')
    const ok = await agents.alice.call('call_tool_write', { name: 'notes:edit_notes', args: { text: 'x' } })
    expect(ok.isError).toBeFalsy()

    await waitForToolStatus(serve, 'notes:edit_notes', 'disabled_by_user', 20_000)
    const ended = await events.next('grant.ended', 5000, (e) => e.data.tool === 'edit_notes')
    expect(String(ended.data.message)).toMatch(/notes:edit_notes is switched off again/)
    expect((await agents.alice.call('call_tool_write', { name: 'notes:edit_notes' })).isError).toBe(true)
    // the activity record says who granted what to whom, and that it ended
    const { events: decisions } = (
      await serve.api<{ events: Array<Record<string, unknown>> }>('GET', '/api/v1/activity?kind=decision&tool=notes:edit_notes&limit=50')
    ).json
    expect(decisions.find((e) => e.action === 'grant')).toMatchObject({ agent: 'alice', server: 'notes', tool: 'edit_notes', by: 'user', via: 'api' })
    const expired = decisions.find((e) => e.action === 'expire')
    expect(expired).toMatchObject({ server: 'notes', tool: 'edit_notes', by: 'toolgate', via: 'timer' })
    expect(String(expired?.message)).toMatch(/notes:edit_notes is switched off again/)
  }, 60_000)

  it('wait_s: the agent waits in the same call and gets the grant while waiting', async () => {
    expect((await post('/api/v1/servers/notes/tools/read_notes/disable')).status).toBe(200)
    const waiting = ask('bob', { name: 'notes:read_notes', reason: 'summarize the notes', wait_s: 60 }, 90_000)
    const req = await waitFor(
      async () => (await list('?status=pending')).find((r) => r.agent === 'bob' && r.name === 'notes:read_notes'),
      10_000,
      'bob\u2019s request',
    )
    expect((await post(`/api/v1/requests/${req.id}/grant`, { for: 'always' })).status).toBe(200)
    const a = jsonOf<Answer>(await waiting)
    expect(a).toMatchObject({ request_id: req.id, status: 'granted' })
    expect(a.message).toMatch(/call it with call_tool_read/)
    expect((await agents.bob.call('call_tool_read', { name: 'notes:read_notes' })).isError).toBeFalsy()
    // "always" leaves nothing to undo
    expect(
      (await serve.api<{ tools: Array<{ name: string; grant?: unknown }> }>('GET', '/api/v1/servers/notes/tools')).json.tools.find(
        (t) => t.name === 'notes:read_notes',
      )?.grant,
    ).toBeUndefined()
  }, 60_000)

  it('deny: the agent is told, and asking again at once gets the denial, not a second request', async () => {
    expect((await post('/api/v1/servers/notes/tools/wipe_notes/disable')).status).toBe(200)
    const a = jsonOf<Answer>(await ask('bob', { name: 'notes:wipe_notes', reason: 'start over' }))
    expect((await post(`/api/v1/requests/${a.request_id}/deny`)).status).toBe(200)
    const again = jsonOf<Answer>(await ask('bob', { name: 'notes:wipe_notes', reason: 'please, really' }))
    expect(again).toMatchObject({ request_id: a.request_id, status: 'denied' })
    expect((await list()).filter((r) => r.agent === 'bob' && r.name === 'notes:wipe_notes')).toHaveLength(1)
    // answering twice is refused
    expect((await post(`/api/v1/requests/${a.request_id}/grant`, { for: 'always' })).status).toBe(409)
    const { events: decisions } = (await serve.api<{ events: Array<Record<string, unknown>> }>('GET', '/api/v1/activity?kind=decision&agent=bob')).json
    expect(decisions.filter((e) => e.action === 'deny' && e.tool === 'wipe_notes')).toHaveLength(1)
  })

  it('repeated requests for the same tool by the same agent fold into one (reason updated, one notification)', async () => {
    const before = events.events.filter((e) => e.type === 'requests.changed' && e.data.new === true).length
    const a = jsonOf<Answer>(await ask('alice', { name: 'fresh:list_things', reason: 'first reason' }))
    const b = jsonOf<Answer>(await ask('alice', { name: 'fresh:list_things', reason: 'second, better reason' }))
    expect(b.request_id).toBe(a.request_id)
    const req = (await list()).find((r) => r.id === a.request_id)
    expect(req).toMatchObject({ asked: 2, reason: 'second, better reason', lock: 'server_quarantined' })
    await waitFor(() => events.events.some((e) => e.type === 'requests.changed' && e.data.id === a.request_id && e.data.new !== true), 5000, 'the fold event')
    expect(events.events.filter((e) => e.type === 'requests.changed' && e.data.new === true).length).toBe(before + 1)
    // another agent asking for the same tool is its own request
    const c = jsonOf<Answer>(await ask('bob', { name: 'fresh:list_things', reason: 'bob too' }))
    expect(c.request_id).not.toBe(a.request_id)
  })

  it('config locks and operator holds are not_requestable with the operator message; out of scope is "not in scope"', async () => {
    const policy = jsonOf<Answer>(await ask('alice', { name: 'policy:wipe_notes', reason: 'need it' }))
    expect(policy.status).toBe('not_requestable')
    expect(policy.request_id).toBeNull()
    expect(policy.message).toMatch(/operator policy in mcp_config\.json/)
    expect(policy.message).toMatch(/NOT user-overridable/)
    const held = jsonOf<Answer>(await ask('alice', { name: 'held:anything', reason: 'need it' }))
    expect(held.status).toBe('not_requestable')
    expect(held.message).toMatch(/"quarantined": true/)
    expect(held.message).not.toMatch(/ask the user/i)
    const out = await ask('narrow', { name: 'off:read_notes', reason: 'need it' })
    expect(out.isError).toBe(true)
    expect(textOf(out)).toMatch(/not in scope for agent "narrow"/)
    const variant = await ask('narrow', { name: 'notes:wipe_notes', reason: 'need it' })
    expect(textOf(variant)).toMatch(/not in scope for agent "narrow": it needs call_tool_destructive/)
    expect((await list()).some((r) => r.server === 'held' || r.server === 'policy' || r.agent === 'narrow')).toBe(false)
  })

  it('an agent cannot ask for another agent, nor pass extra keys', async () => {
    const r = await ask('alice', { name: 'notes:edit_notes', reason: 'for bob', agent: 'bob' })
    expect(r.isError).toBe(true)
    expect(textOf(r)).toMatch(/takes only name, reason and wait_s \(not agent\)/)
    const bad = await ask('alice', { name: 'notes:edit_notes', reason: 'x', wait_s: 500 })
    expect(textOf(bad)).toMatch(/wait_s must be from 0 to 120/)
  })

  it('spam: at most 20 pending requests per agent, then a clear error; other agents still ask', async () => {
    // a session without an agent (the admin key) is one principal of its own
    const anon = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
    try {
      const already = (await list('?status=pending')).filter((r) => r.agent === null).length
      for (let i = already; i < 20; i++)
        expect(jsonOf<Answer>(await anon.call('request_access', { name: `fresh:tool_${i}`, reason: 'spam' })).status).toBe('pending')
      const over = await anon.call('request_access', { name: 'fresh:tool_20', reason: 'spam' })
      expect(over.isError).toBe(true)
      expect(textOf(over)).toMatch(/already has 20 requests waiting for the user \(at most 20\)/)
      // folding into a waiting one still works, and alice is not affected
      expect(jsonOf<Answer>(await anon.call('request_access', { name: 'fresh:tool_3', reason: 'again' })).status).toBe('pending')
      expect(jsonOf<Answer>(await ask('alice', { name: 'fresh:other_tool', reason: 'mine' })).status).toBe('pending')
    } finally {
      await anon.close()
    }
  })

  it('an untrusted reason is capped and its control, bidi and invisible characters are escaped', async () => {
    const reason = `ok\u202egnp.exe \u001b[31mred\u001b[0m\u200b\nnext line ${'x'.repeat(3000)}`
    const a = jsonOf<Answer>(await ask('bob', { name: 'fresh:evil', reason }))
    const r = (await list()).find((x) => x.id === a.request_id) as Req
    expect(r.reason.startsWith('ok\\u{202e}gnp.exe \\u{1b}[31mred\\u{1b}[0m\\u{200b} next line x')).toBe(true)
    expect(r.reason.length).toBeLessThanOrEqual(501)
    expect(r.reason.endsWith('…')).toBe(true)
    // eslint-disable-next-line no-control-regex
    expect(/[\u0000-\u001f\u202e\u200b]/.test(r.reason)).toBe(false)
  })

  it('Allow once: exactly one call by that agent gets through, even when it fires several at once; another agent never', async () => {
    await waitForToolStatus(serve, 'notes:wipe_notes', 'disabled_by_user')
    const a = jsonOf<Answer>(await ask('alice', { name: 'notes:wipe_notes', reason: 'one cleanup' }))
    expect((await post(`/api/v1/requests/${a.request_id}/grant`, { for: 'once' })).status).toBe(200)
    // bob holds no pass
    expect(textOf(await agents.bob.call('call_tool_destructive', { name: 'notes:wipe_notes' }))).toMatch(/^TOOL_BLOCKED \(disabled_by_user\)/)
    const before = logLines(path.join(tmp, 'notes.log')).filter((l) => l.tool === 'wipe_notes').length
    const results = await Promise.all(Array.from({ length: 6 }, () => agents.alice.call('call_tool_destructive', { name: 'notes:wipe_notes', args: {} })))
    expect(results.filter((r) => !r.isError)).toHaveLength(1)
    expect(results.filter((r) => r.isError).every((r) => textOf(r).startsWith('TOOL_BLOCKED (disabled_by_user)'))).toBe(true)
    expect(logLines(path.join(tmp, 'notes.log')).filter((l) => l.tool === 'wipe_notes').length).toBe(before + 1)
    expect((await agents.alice.call('call_tool_destructive', { name: 'notes:wipe_notes' })).isError).toBe(true)
    expect((await waitForToolStatus(serve, 'notes:wipe_notes', 'disabled_by_user')).status).toBe('disabled_by_user')
  })

  it('"once" cannot open a server that is off or quarantined: a clear 409', async () => {
    const a = jsonOf<Answer>(await ask('alice', { name: 'off:read_notes', reason: 'read' }))
    const r = await post(`/api/v1/requests/${a.request_id}/grant`, { for: 'once' })
    expect(r.status).toBe(409)
    expect(r.json.error?.code).toBe('once_not_possible')
    expect(r.json.error?.message).toMatch(/switched off.*allow it for a time/)
    expect((await post(`/api/v1/requests/${a.request_id}/grant`, { for: 'forever' })).status).toBe(400)
  })

  it('a request for a tool nobody has seen on a quarantined server names the server; granting approves the server', async () => {
    const a = jsonOf<Answer>(await ask('alice', { name: 'fresh:read_notes', reason: 'the notes live there' }))
    const req = (await list()).find((r) => r.id === a.request_id) as Req
    expect(req).toMatchObject({ server: 'fresh', lock: 'server_quarantined' })
    expect((await post(`/api/v1/requests/${a.request_id}/grant`, { for: '1h' })).status).toBe(200)
    await waitForServerState(serve, 'fresh', 'connected')
    const s = (await serve.api<{ servers: Array<{ name: string; grant?: { then: string } }> }>('GET', '/api/v1/servers')).json.servers.find(
      (x) => x.name === 'fresh',
    )
    expect(s?.grant?.then).toBe('back in quarantine')
    await waitFor(async () => !(await agents.alice.call('call_tool_read', { name: 'fresh:read_notes' })).isError, 20_000, 'fresh:read_notes to be callable')
  }, 60_000)

  it('for on enable/approve is validated', async () => {
    expect((await post('/api/v1/servers/notes/tools/read_notes/enable', { for: 'forever' })).status).toBe(400)
    const once = await post('/api/v1/servers/notes/tools/read_notes/enable', { for: 'once' })
    expect(once.status).toBe(400)
    expect(once.json.error?.message).toMatch(/"once" answers an agent's access request/)
    expect((await post('/api/v1/servers/notes/tools/read_notes/approve', { for: '0s' })).status).toBe(400)
  })
})

describe('time-boxed grants end across a restart', () => {
  it('a server enabled for 3 s and a tool re-enabled for 3 s are locked again when Toolgate starts after the end', async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-grants-restart-')
    const configPath = world(tmp)
    const dataDir = path.join(tmp, 'data')
    let serve = await startServe({ configPath, dataDir })
    const post = (p: string, body: unknown) =>
      fetch(serve.url + p, {
        method: 'POST',
        headers: { authorization: `Bearer ${serve.key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    await waitForServerState(serve, 'notes', 'connected')
    expect((await post('/api/v1/servers/notes/tools/edit_notes/disable', {})).status).toBe(200)
    expect((await post('/api/v1/servers/notes/tools/edit_notes/enable', { for: '3s' })).status).toBe(200)
    expect((await post('/api/v1/servers/off/enable', { for: '3s' })).status).toBe(200)
    // the config says enabled while the grant runs, and state.json holds the end
    expect(JSON.parse(fs.readFileSync(configPath, 'utf8')).mcpServers.off.enabled).toBeUndefined()
    const state = JSON.parse(fs.readFileSync(path.join(dataDir, 'state.json'), 'utf8')) as { grants: Array<{ server: string; until: string }> }
    expect(state.grants.map((g) => g.server).sort()).toEqual(['notes', 'off'])
    await stopProcess(serve.child)
    const until = Math.max(...state.grants.map((g) => Date.parse(g.until)))
    await waitFor(() => Date.now() > until + 500, 20_000, 'the grants to end while Toolgate is stopped')

    serve = await startServe({ configPath, dataDir })
    try {
      const servers = (await serve.api<{ servers: Array<{ name: string; state: string; enabled: boolean }> }>('GET', '/api/v1/servers')).json.servers
      expect(servers.find((s) => s.name === 'off')).toMatchObject({ enabled: false, state: 'disabled' })
      expect(JSON.parse(fs.readFileSync(configPath, 'utf8')).mcpServers.off.enabled).toBe(false)
      // notes need not run (on demand): its tools are known from the last run
      expect((await waitForToolStatus(serve, 'notes:edit_notes', 'disabled_by_user')).status).toBe('disabled_by_user')
      expect((JSON.parse(fs.readFileSync(path.join(dataDir, 'state.json'), 'utf8')) as { grants: unknown[] }).grants).toEqual([])
      expect(logLines(path.join(tmp, 'off.log'))).toEqual([])
    } finally {
      await stopProcess(serve.child)
    }
  }, 90_000)
})
