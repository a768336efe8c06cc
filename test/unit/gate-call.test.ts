// docs/contract.md §3 "Calling a locked tool" and the call_tool_* variants, through the real agent
// MCP server and an SDK client. No upstream runs in these tests: a call that got past the gate
// would answer "not running", so every TOOL_BLOCKED answer proves the gate answered on its own.
import { beforeAll, describe, expect, it } from 'vitest'
import { FULL_SCOPE } from '../../src/main/core/access/scope'
import { ingestTools } from '../../src/main/core/catalog/decisions'
import { LOCK_STATUSES, type LockStatus } from '../../src/shared/statuses'
import { EXPECTED_REMEDIATION } from '../helpers/remediation-text'
import { agentSession, buildWorld, DESTRUCTIVE, makeFixture, READ, runServer, tool, WORLD_TOOLS, WRITE, type Fixture } from '../helpers/catalog-fixture'

const HINT = 'Run retrieve_tools with include_disabled:true to see locked capabilities and remediation.'
const NOT_RUNNING = /is not running/

let world: Fixture
let unknownFx: Fixture
beforeAll(async () => {
  world = await buildWorld()
  unknownFx = makeFixture({ mcpServers: { gh: { command: 'node', quarantined: false } } }, { state: '{{{' })
  await ingestTools(unknownFx.catalog, 'gh', [WORLD_TOOLS.list_repos])
})

const LOCKED: Array<[LockStatus, string, string]> = [
  ['server_disabled', 'files:read_file', 'call_tool_read'],
  ['disabled_by_config', 'gh:delete_repo', 'call_tool_destructive'],
  ['server_quarantined', 'legacy:search_tickets', 'call_tool_read'],
  ['server_quarantined', 'sketchy:export_secrets', 'call_tool_read'],
  ['disabled_by_user', 'gh:archive_repo', 'call_tool_write'],
  ['pending_approval', 'gh:rotate_keys', 'call_tool_write'],
  ['disabled_unknown', 'gh:list_repos', 'call_tool_read'],
]

describe('As an agent, calling a locked tool tells me why and what to do, and never reaches the upstream', () => {
  it('the table covers all six statuses', () => {
    expect(new Set(LOCKED.map(([s]) => s))).toEqual(new Set(LOCK_STATUSES))
  })

  it.each(LOCKED)('%s (%s): one text block "TOOL_BLOCKED (<status>): <remediation> <hint>"', async (status, id, variant) => {
    const fx = status === 'disabled_unknown' ? unknownFx : world
    expect(fx.catalog.entry(id)!.status).toBe(status)
    // the core's counters serve every test of the file: this call adds one
    const blockedBefore = fx.core.stats.snapshot().blocked_calls
    const agent = await agentSession(fx)
    const r = await agent.call(variant, { name: id, args: {} })
    expect(r.isError).toBe(true)
    expect(r.content).toHaveLength(1)
    const text = (r.content[0] as { type: string; text: string }).text
    expect(text).toBe(`TOOL_BLOCKED (${status}): ${EXPECTED_REMEDIATION[status]} ${HINT}`)
    expect(text).not.toMatch(NOT_RUNNING)
    expect(fx.core.stats.snapshot().blocked_calls - blockedBefore).toBe(1)
    expect(fx.catalog.entry(id)!.status).toBe(status)
  })

  it.each(LOCKED)('%s (%s): blocked with every call variant (status is checked before the variant)', async (status, id) => {
    const fx = status === 'disabled_unknown' ? unknownFx : world
    const agent = await agentSession(fx)
    for (const v of ['call_tool_read', 'call_tool_write', 'call_tool_destructive']) {
      const r = await agent.text(v, { name: id })
      expect(r.isError).toBe(true)
      expect(r.text.startsWith(`TOOL_BLOCKED (${status}): `)).toBe(true)
    }
  })

  it('describe_tool of a locked tool is blocked the same way and shows no untrusted text', async () => {
    const agent = await agentSession(world)
    const r = await agent.text('describe_tool', { name: 'gh:rotate_keys' })
    expect(r.isError).toBe(true)
    expect(r.text.startsWith('TOOL_BLOCKED (pending_approval): ')).toBe(true)
    expect(r.text).not.toMatch(/kubernetes/)
    const q = await agent.text('describe_tool', { name: 'sketchy:export_secrets' })
    expect(q.text.startsWith('TOOL_BLOCKED (server_quarantined): ')).toBe(true)
    expect(q.text).not.toMatch(/mailbox/)
  })

  it('describe_tool of a callable tool gives its full definition', async () => {
    const agent = await agentSession(world)
    const r = await agent.text('describe_tool', { name: 'gh:create_issue' })
    expect(r.isError).toBe(false)
    expect(JSON.parse(r.text)).toEqual({
      name: 'gh:create_issue',
      server: 'gh',
      description: WORLD_TOOLS.create_issue.description,
      inputSchema: WORLD_TOOLS.create_issue.inputSchema,
      annotations: WORLD_TOOLS.create_issue.annotations,
      call_with: 'call_tool_write',
    })
  })

  it('the config wording differs from the user wording: operator policy vs. ask the user to re-enable', async () => {
    const agent = await agentSession(world)
    const config = (await agent.text('call_tool_destructive', { name: 'gh:delete_repo' })).text
    const user = (await agent.text('call_tool_write', { name: 'gh:archive_repo' })).text
    expect(config).not.toBe(user)
    expect(config).toMatch(/operator policy in mcp_config\.json/)
    expect(config).toMatch(/NOT user-overridable/)
    expect(config).not.toMatch(/re-enable|tools enable/)
    expect(user).toMatch(/ask the user to re-enable it/)
    expect(user).not.toMatch(/operator/)
  })

  it('a tool of a quarantined server that config also denies is rejected without reaching the upstream', async () => {
    const agent = await agentSession(world)
    const r = await agent.text('call_tool_destructive', { name: 'sketchy:drop_tables' })
    expect(r.isError).toBe(true)
    expect(r.text).not.toMatch(NOT_RUNNING)
    expect(r.text).not.toMatch(/database tables/)
  })
})

describe("As an agent, the call variant must match the tool's annotations", () => {
  let fx: Fixture
  beforeAll(async () => {
    fx = makeFixture({ mcpServers: { gh: { command: 'node', quarantined: false } } })
    await runServer(fx, 'gh', [
      tool('list_repos', 'List repositories', { annotations: READ }),
      tool('create_issue', 'Create an issue', { annotations: WRITE }),
      tool('drop_branch', 'Drop a branch', { annotations: DESTRUCTIVE }),
      tool('plain', 'No annotations at all'),
      tool('titled', 'Only a title and idempotentHint', { annotations: { title: 'Titled', idempotentHint: true } }),
      tool('not_destructive', 'Only destructiveHint: false', { annotations: { destructiveHint: false } }),
    ])
  })

  it.each([
    ['gh:create_issue', 'call_tool_read', 'call_tool_write', /not read-only \(readOnlyHint: false\)/],
    ['gh:plain', 'call_tool_read', 'call_tool_destructive', /gives no annotations, so the MCP spec's defaults apply/],
    ['gh:plain', 'call_tool_write', 'call_tool_destructive', /gives no annotations/],
    ['gh:titled', 'call_tool_write', 'call_tool_destructive', /gives no annotations/],
    ['gh:not_destructive', 'call_tool_read', 'call_tool_write', /destructiveHint: false but not readOnlyHint: true/],
    ['gh:drop_branch', 'call_tool_read', 'call_tool_destructive', /destructive \(destructiveHint: true\)/],
    ['gh:drop_branch', 'call_tool_write', 'call_tool_destructive', /destructive/],
  ])('%s with %s is rejected, naming %s', async (id, used, right, why) => {
    const agent = await agentSession(fx)
    const r = await agent.text(used, { name: id })
    expect(r.isError).toBe(true)
    expect(r.text).toContain(`Call it with ${right} instead.`)
    expect(r.text).toContain(`cannot be called with ${used}`)
    expect(r.text).toMatch(why)
  })

  it.each([
    ['gh:list_repos', 'call_tool_read'],
    ['gh:list_repos', 'call_tool_write'],
    ['gh:list_repos', 'call_tool_destructive'],
    ['gh:create_issue', 'call_tool_write'],
    ['gh:create_issue', 'call_tool_destructive'],
    ['gh:drop_branch', 'call_tool_destructive'],
    ['gh:plain', 'call_tool_destructive'],
    ['gh:titled', 'call_tool_destructive'],
    ['gh:not_destructive', 'call_tool_write'],
  ])('%s with %s passes the gate (then: not running, as no upstream runs)', async (id, used) => {
    const agent = await agentSession(fx)
    const r = await agent.text(used, { name: id, args: { x: 1 } })
    expect(r.isError).toBe(true)
    expect(r.text).toMatch(NOT_RUNNING)
    expect(r.text).not.toMatch(/TOOL_BLOCKED|cannot be called/)
  })
})

describe('As an agent, malformed calls get clear errors', () => {
  it.each([
    ['no colon', 'list_repos', /malformed tool name "list_repos": expected "server:tool"/],
    ['empty server', ':list_repos', /malformed tool name/],
    ['empty tool', 'gh:', /malformed tool name/],
    ['empty string', '', /non-empty string of the form "server:tool"/],
  ])('%s (%j)', async (_what, name, message) => {
    const agent = await agentSession(world)
    const r = await agent.text('call_tool_read', { name })
    expect(r.isError).toBe(true)
    expect(r.text).toMatch(message)
  })

  it('name missing or not a string', async () => {
    const agent = await agentSession(world)
    expect((await agent.text('call_tool_read', {})).text).toMatch(/name is required/)
    expect((await agent.text('call_tool_read', { name: 5 })).text).toMatch(/name/)
  })

  it('unknown server', async () => {
    const agent = await agentSession(world)
    const r = await agent.text('call_tool_read', { name: 'nope:list_repos' })
    expect(r.isError).toBe(true)
    expect(r.text).toMatch(/unknown server "nope"/)
  })

  it('unknown tool on a known server (also with ":" in the tool part)', async () => {
    const agent = await agentSession(world)
    const r = await agent.text('call_tool_read', { name: 'gh:nope' })
    expect(r.isError).toBe(true)
    expect(r.text).toMatch(/unknown tool "nope" on server "gh"/)
    expect((await agent.text('call_tool_read', { name: 'gh:list_repos:x' })).text).toMatch(/unknown tool "list_repos:x" on server "gh"/)
  })

  it.each([
    ['a string', 'x'],
    ['an array', [1, 2]],
    ['a number', 5],
    ['null', null],
  ])('args that are %s', async (_what, args) => {
    const agent = await agentSession(world)
    const r = await agent.text('call_tool_read', { name: 'gh:list_repos', args })
    expect(r.isError).toBe(true)
    expect(r.text).toMatch(/args must be an object/)
  })

  it('an unknown Toolgate tool', async () => {
    const agent = await agentSession(world)
    const r = await agent.text('approve_tool', { name: 'gh:rotate_keys' })
    expect(r.isError).toBe(true)
    expect(r.text).toMatch(/unknown tool "approve_tool"/)
    expect(world.catalog.entry('gh:rotate_keys')!.status).toBe('pending_approval')
  })
})

describe('As an operator, agent scope holds on calls (rule 7)', () => {
  // the world's agents, bound by name with the core's own scope
  const ghOnly = 'gh-only'
  const reader = 'reader'

  it('a tool on a server outside the scope → "not in scope", whatever its status', async () => {
    const agent = await agentSession(world, ghOnly)
    for (const id of ['files:read_file', 'legacy:search_tickets', 'sketchy:export_secrets', 'sketchy:nonexistent']) {
      const r = await agent.text('call_tool_read', { name: id })
      expect(r.isError).toBe(true)
      expect(r.text).toMatch(/not in scope for agent "gh-only"/)
      expect(r.text).not.toMatch(/TOOL_BLOCKED/)
    }
    expect((await agent.text('describe_tool', { name: 'files:read_file' })).text).toMatch(/not in scope/)
  })

  it('a tool needing a variant the agent may not use → "not in scope"; the variant tool is not even offered', async () => {
    const agent = await agentSession(world, reader)
    const offered = (await agent.client.listTools()).tools.map((t) => t.name)
    expect(offered).toEqual(['retrieve_tools', 'call_tool_read', 'describe_tool', 'upstream_servers', 'request_access'])
    const r = await agent.text('call_tool_read', { name: 'gh:create_issue' })
    expect(r.isError).toBe(true)
    expect(r.text).toMatch(/not in scope for agent "reader": it needs call_tool_write/)
    const w = await agent.text('call_tool_write', { name: 'gh:create_issue' })
    expect(w.isError).toBe(true)
    expect(w.text).toMatch(/unknown tool "call_tool_write"/)
  })

  it('an in-scope callable tool passes the gate', async () => {
    const agent = await agentSession(world, ghOnly)
    expect((await agent.text('call_tool_read', { name: 'gh:list_repos' })).text).toMatch(NOT_RUNNING)
  })
})
