// What lands in the activity record when an agent searches, calls, or changes servers, and when
// a person decides (through the real agent MCP server and the real control service on a temp
// data dir): the fields, the block reasons, who and from where, and that no secret is written.
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import type { CallEvent, DecisionEvent, SearchEvent } from '../../src/shared/activity'
import { FULL_SCOPE } from '../../src/main/core/access/scope'
import { argsHmac } from '../../src/main/core/activity/redact'
import { ARGS_KEY_FILE } from '../../src/main/core/state/data-keys'
import { createHash, createHmac } from 'node:crypto'
import { activityEvents, agentSession, buildWorld, makeFixture, runServer, tool, READ, type Fixture } from '../helpers/catalog-fixture'

let world: Fixture
beforeAll(async () => {
  world = await buildWorld()
})

function files(dir: string): string {
  const d = path.join(dir, 'activity')
  return fs
    .readdirSync(d)
    .map((f) => fs.readFileSync(path.join(d, f), 'utf8'))
    .join('')
}

describe('the activity record of an agent session', () => {
  it('records a locked-only search with the locked tools it matched, and the client name from initialize', async () => {
    const events = activityEvents(world)
    const agent = await agentSession(world, FULL_SCOPE, 'claude-code')
    await agent.call('retrieve_tools', { query: 'rotate deploy keys' })
    await agent.call('retrieve_tools', { query: 'list repositories' })
    const [locked, found] = events as SearchEvent[]
    expect(locked).toMatchObject({ kind: 'search', agent: null, client: 'claude-code', query: 'rotate deploy keys', hits: 0, locked_only: true })
    expect(locked.locked).toContain('gh:rotate_keys')
    expect(found.hits).toBeGreaterThan(0)
    expect(found.locked_only).toBe(false)
  })

  it('records each blocked call with its lock status, scope and variant refusals, and unknown tools as errors', async () => {
    const events = activityEvents(world)
    const reader = await agentSession(world, 'reader')
    const ghOnly = await agentSession(world, 'gh-only')
    await ghOnly.call('call_tool_destructive', { name: 'gh:delete_repo', args: { repo: 'x' } })
    await ghOnly.call('call_tool_write', { name: 'gh:archive_repo' })
    await ghOnly.call('call_tool_read', { name: 'files:read_file' })
    await reader.call('call_tool_read', { name: 'gh:create_issue' })
    await ghOnly.call('call_tool_read', { name: 'gh:create_issue' })
    await ghOnly.call('call_tool_read', { name: 'gh:no_such_tool' })
    const calls = events as CallEvent[]
    expect(calls.map((c) => [c.agent, c.tool, c.outcome, c.status])).toEqual([
      ['gh-only', 'gh:delete_repo', 'blocked', 'disabled_by_config'],
      ['gh-only', 'gh:archive_repo', 'blocked', 'disabled_by_user'],
      ['gh-only', 'files:read_file', 'blocked', 'out_of_scope'],
      ['reader', 'gh:create_issue', 'blocked', 'out_of_scope'],
      ['gh-only', 'gh:create_issue', 'blocked', 'wrong_variant'],
      ['gh-only', 'gh:no_such_tool', 'error', undefined],
    ])
    expect(calls[0]).toMatchObject({ server: 'gh', variant: 'destructive', args_preview: '{"repo":"x"}' })
    expect(calls[0].error).toMatch(/^TOOL_BLOCKED \(disabled_by_config\)/)
    // the digest is HMAC-SHA256 of the canonical JSON keyed by <data-dir>/args.key, computed here independently
    const key = Buffer.from(fs.readFileSync(path.join(world.dir, ARGS_KEY_FILE), 'utf8').trim(), 'base64')
    expect(key.length).toBe(32)
    expect(calls[0].args_hmac).toBe(createHmac('sha256', key).update('{"repo":"x"}').digest('hex'))
    expect(calls[0].args_hmac).not.toBe(createHash('sha256').update('{"repo":"x"}').digest('hex'))
    // keys sorted at every depth (docs/activity.md), written out here
    expect(argsHmac(key, { b: 1, a: { d: [2, { f: 1, e: 0 }], c: 'x' } })).toBe(
      createHmac('sha256', key).update('{"a":{"c":"x","d":[2,{"e":0,"f":1}]},"b":1}').digest('hex'),
    )
    expect(calls.every((c) => c.duration_ms >= 0 && Number(c.id) > 0)).toBe(true)
  })

  it('masks secrets in the arguments: secret-named keys, token-looking values and the server’s own env values; record_args:false keeps the digest only', async () => {
    const envSecret = 'hunter2-correct-horse-battery'
    const token = 'ghp_4f8a9b2c7d1e6f3a5b8c9d0e2f4a6b8c1d3e'
    const fx = makeFixture({ mcpServers: { notes: { command: 'node', args: ['n.js'], quarantined: false, env: { NOTES_PASSWORD: envSecret } } } })
    await runServer(fx, 'notes', [tool('read_note', 'Read a note', { annotations: READ })])
    const events = activityEvents(fx)
    const agent = await agentSession(fx)
    // not running: the call fails after the gate, but it is recorded with its arguments
    await agent.call('call_tool_read', {
      name: 'notes:read_note',
      args: { api_key: 'plain-short', note: `token ${token} and ${envSecret}`, nested: { Authorization: 'Bearer abc' } },
    })
    const raw = files(fx.dir)
    expect(raw).toContain('notes:read_note')
    for (const secret of [token, envSecret, 'plain-short', 'Bearer abc']) expect(raw).not.toContain(secret)
    const call = events[0] as CallEvent
    expect(JSON.parse(call.args_preview!)).toEqual({ api_key: '***', note: 'token *** and ***', nested: { Authorization: '***' } })

    fx.writeConfig({
      activity: { record_args: false },
      mcpServers: { notes: { command: 'node', args: ['n.js'], quarantined: false, env: { NOTES_PASSWORD: envSecret } } },
    })
    await agent.call('call_tool_read', { name: 'notes:read_note', args: { note: 'hello there' } })
    const second = events[1] as CallEvent
    expect(second.args_preview).toBeUndefined()
    expect(second.args_hmac).toMatch(/^[0-9a-f]{64}$/)
    expect(second.args_hmac).not.toBe(createHash('sha256').update('{"note":"hello there"}').digest('hex'))
    expect(files(fx.dir)).not.toContain('hello there')
  })

  it('caps a huge argument preview', async () => {
    const events = activityEvents(world)
    const agent = await agentSession(world)
    await agent.call('call_tool_read', { name: 'gh:list_repos', args: { owner: 'x'.repeat(100_000), many: Array.from({ length: 500 }, (_, i) => i) } })
    const call = events[0] as CallEvent
    expect(call.args_preview!.length).toBeLessThanOrEqual(1024)
    expect(Buffer.byteLength(files(world.dir).split('\n').filter(Boolean).pop()!)).toBeLessThan(4096)
  })

  it('records an agent adding a server as a decision by the agent over MCP', async () => {
    const fx = makeFixture({ mcpServers: {} })
    const events = activityEvents(fx)
    const agent = await agentSession(fx, FULL_SCOPE, 'cursor')
    await agent.call('upstream_servers', { operation: 'add', name: 'extra', command: 'node', args: ['x.js'] })
    expect(events[0]).toMatchObject({ kind: 'decision', action: 'add', server: 'extra', by: 'agent', via: 'mcp', client: 'cursor' })
  })
})

describe('the activity record of decisions', () => {
  it('records who decided and from where, only for what actually happened', async () => {
    const fx = makeFixture({ mcpServers: { notes: { command: 'node', args: ['n.js'], quarantined: false } } })
    await runServer(fx, 'notes', [tool('read_note', 'Read a note', { annotations: READ })])
    const events = activityEvents(fx)
    const api = fx.core.api
    await api.as({ by: 'user', via: 'tray' }).toolAction('notes', 'read_note', 'disable')
    await api.as({ by: 'user', via: 'ui' }).toolAction('notes', 'read_note', 'enable')
    await api.as({ by: 'user', via: 'cli' }).serverAction('notes', 'quarantine')
    await expect(api.toolAction('notes', 'nope', 'approve')).rejects.toThrow()
    const d = events as DecisionEvent[]
    expect(d.map((e) => [e.action, e.server, e.tool, e.by, e.via])).toEqual([
      ['disable', 'notes', 'read_note', 'user', 'tray'],
      ['enable', 'notes', 'read_note', 'user', 'ui'],
      ['quarantine', 'notes', undefined, 'user', 'cli'],
    ])
    expect(d[0].message).toMatch(/read_note/)
  })
})
