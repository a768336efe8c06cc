// retrieve_tools through the real agent MCP server (SDK client over an in-memory transport):
// the tool's description hint, bad input as MCP error results (rule 9), the same bytes as the
// control API's search, and the in-memory stats counters.
import { beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { retrieveText } from '../../src/main/core/discovery/retrieve'
import { FULL_SCOPE } from '../../src/main/core/access/scope'
import { ApiError } from '../../src/shared/api'
import { agentSession, buildWorld, type Fixture } from '../helpers/catalog-fixture'

let world: Fixture
beforeAll(async () => {
  world = await buildWorld()
})

const HINT = 'Set include_disabled:true to also see tools that exist but are locked (by config, user, or quarantine), with remediation.'

describe('As an agent I learn from retrieve_tools itself that locked tools can be revealed', () => {
  it('the retrieve_tools description carries the contract sentence; include_disabled is in its schema', async () => {
    const agent = await agentSession(world)
    const { tools } = await agent.client.listTools()
    const rt = tools.find((t) => t.name === 'retrieve_tools')!
    expect(rt.description).toContain(HINT)
    expect(Object.keys(rt.inputSchema.properties ?? {})).toEqual(['query', 'limit', 'include_disabled'])
    expect(rt.inputSchema.required).toEqual(['query'])
  })

  it("no MCP tool approves anything: the offered tools are exactly the contract's", async () => {
    const agent = await agentSession(world)
    const names = (await agent.client.listTools()).tools.map((t) => t.name)
    expect(names).toEqual([
      'retrieve_tools',
      'call_tool_read',
      'call_tool_write',
      'call_tool_destructive',
      'describe_tool',
      'upstream_servers',
      'request_access',
    ])
    const ops = (await agent.client.listTools()).tools.find((t) => t.name === 'upstream_servers')!.inputSchema.properties!.operation as { enum: string[] }
    expect(ops.enum).not.toContain('approve')
  })
})

describe('As an agent the MCP answer is the same JSON every surface returns', () => {
  it.each([
    [{ query: 'list repositories' }],
    [{ query: 'read a file' }],
    [{ query: 'read a file', include_disabled: true }],
    [{ query: 'rotate keys', include_disabled: true, limit: 3 }],
  ])('%j: MCP text == retrieveText == control API search', async (args) => {
    const agent = await agentSession(world)
    const r = await agent.text('retrieve_tools', args)
    expect(r.isError).toBe(false)
    expect(r.text).toBe(retrieveText(world.catalog, args, FULL_SCOPE))
    expect(await world.core.api.search(args)).toBe(r.text)
  })
})

describe('As an agent, bad retrieve_tools input gets a clear MCP error result, never a crash (rule 9)', () => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['query missing', {}, /query is required/],
    ['query empty', { query: '' }, /query must not be empty/],
    ['query only spaces', { query: '   ' }, /query must not be empty/],
    ['query a number', { query: 42 }, /query must be a string/],
    ['query an array', { query: ['a'] }, /query must be a string/],
    ['query null', { query: null }, /query must be a string/],
    ['limit 0', { query: 'x', limit: 0 }, /limit must be an integer from 1 to 100/],
    ['limit 101', { query: 'x', limit: 101 }, /limit must be an integer from 1 to 100/],
    ['limit 1.5', { query: 'x', limit: 1.5 }, /limit must be an integer from 1 to 100/],
    ['limit "3"', { query: 'x', limit: '3' }, /limit must be an integer from 1 to 100/],
    ['limit -1', { query: 'x', limit: -1 }, /limit must be an integer from 1 to 100/],
    ['include_disabled "yes"', { query: 'x', include_disabled: 'yes' }, /include_disabled must be true or false/],
  ]
  it.each(cases)('%s', async (_what, args, message) => {
    const agent = await agentSession(world)
    const r = await agent.call('retrieve_tools', args)
    expect(r.isError).toBe(true)
    expect(r.content).toHaveLength(1)
    const text = (r.content[0] as { text: string }).text
    expect(text).toMatch(/^retrieve_tools: /)
    expect(text).toMatch(message)
    // the session goes on
    expect((await agent.text('retrieve_tools', { query: 'list repositories' })).isError).toBe(false)
  })

  it('limit 1 and 100 are fine', async () => {
    const agent = await agentSession(world)
    expect((await agent.text('retrieve_tools', { query: 'repository', limit: 1 })).isError).toBe(false)
    expect((await agent.text('retrieve_tools', { query: 'repository', limit: 100 })).isError).toBe(false)
  })

  it('the control API search rejects the same input with a 400 and the same message', async () => {
    const svc = world.core.api
    for (const [args, message] of [
      [{ query: '' }, /query must not be empty/],
      [{ query: 'x', limit: 0 }, /limit must be an integer/],
    ] as const) {
      let err: unknown
      try {
        await svc.search(args as never)
      } catch (e) {
        err = e
      }
      expect(err).toBeInstanceOf(ApiError)
      expect((err as ApiError).status).toBe(400)
      expect((err as ApiError).message).toMatch(message)
    }
  })
})

describe('As a user I can see how often agents look for locked tools (stats, in memory)', () => {
  // the counters live as long as the core: each test counts on a world of its own
  let world: Fixture
  beforeEach(async () => {
    world = await buildWorld()
  })

  it('include_disabled_calls counts searches with include_disabled:true only', async () => {
    const stats = world.core.stats
    const agent = await agentSession(world)
    await agent.text('retrieve_tools', { query: 'list repositories' })
    await agent.text('retrieve_tools', { query: 'list repositories', include_disabled: false })
    await agent.text('retrieve_tools', { query: 'list repositories', include_disabled: true })
    await agent.text('retrieve_tools', { query: 'weather', include_disabled: true })
    const s = stats.snapshot()
    expect(s.include_disabled_calls).toBe(2)
    expect(s.retrieve_calls).toBe(4)
  })

  it('locked_only_searches counts searches that matched only locked tools, with or without the flag', async () => {
    const stats = world.core.stats
    const agent = await agentSession(world)
    await agent.text('retrieve_tools', { query: 'read a file' }) // locked only
    const shown = JSON.parse((await agent.text('retrieve_tools', { query: 'Read a file ', include_disabled: true })).text) as {
      disabled: Array<{ name: string }>
    } // locked only
    await agent.text('retrieve_tools', { query: 'rotate keys' }) // locked only
    await agent.text('retrieve_tools', { query: 'list repositories' }) // callable found
    await agent.text('retrieve_tools', { query: 'weather forecast' }) // nothing at all
    await agent.text('retrieve_tools', { query: '' }) // invalid: not a search
    const s = stats.snapshot()
    expect(s.locked_only_searches).toBe(3)
    expect(s.retrieve_calls).toBe(5)
    expect(s.locked_only_queries).toEqual([
      // the locked tools it matched: the same the agent is shown with include_disabled
      { query: 'read a file', count: 2, tools: shown.disabled.map((d) => d.name) },
      { query: 'rotate keys', count: 1, tools: ['gh:rotate_keys'] },
    ])
  })

  it("the control API stats are the same counters; the user's own searches (UI, control API) do not count as agent demand", async () => {
    const svc = world.core.api
    await svc.search({ query: 'read a file', include_disabled: true })
    expect(await svc.stats()).toMatchObject({ include_disabled_calls: 0, locked_only_searches: 0 })
    const agent = await agentSession(world)
    await agent.text('retrieve_tools', { query: 'read a file', include_disabled: true })
    const s = await svc.stats()
    expect(s).toMatchObject({ include_disabled_calls: 1, locked_only_searches: 1 })
    expect(Object.keys(s).slice(0, 2)).toEqual(['include_disabled_calls', 'locked_only_searches'])
  })

  it('out-of-scope locked tools do not make a search "locked only"', async () => {
    const stats = world.core.stats
    const agent = await agentSession(world, {
      agent: 'x',
      active: () => true,
      allowsServer: (s) => s === 'gh',
      allowsVariant: () => true,
      allows: (e) => e.server === 'gh',
      askInClient: () => false,
    })
    await agent.text('retrieve_tools', { query: 'support tickets' })
    expect(stats.snapshot().locked_only_searches).toBe(0)
  })
})
