// The Agents view's data over the world fixture: which servers each agent reaches and why the
// others are out of reach, its recent activity, local clients from the activity record, and the
// context cost counted with the real tokenizer (checked against what a real MCP session lists).
import { describe, expect, it, beforeAll } from 'vitest'
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base'
import { FULL_SCOPE } from '../../src/main/core/access/scope'
import { agentViews } from '../../src/main/core/agents-view/view'
import { agentSession, buildWorld, WORLD_TOOLS, type Fixture } from '../helpers/catalog-fixture'

let world: Fixture
beforeAll(async () => {
  world = await buildWorld()
})

describe('what each agent sees', () => {
  it('reach: callable per server, tools needing a permission it lacks, locks, and servers outside its scope', async () => {
    const activity = world.core.activity
    const views = await agentViews({ catalog: world.catalog, activity, tokensOf: () => [] })
    const reader = views.find((v) => v.name === 'reader')!
    const gh = reader.reach.find((r) => r.server === 'gh')!
    // gh: list_repos, search_code are read (callable); create_issue, archive_repo, rotate_keys need write, delete_repo
    // destructive: out of its scope whatever their lock (the call gate answers "not in scope" for them too)
    expect(gh).toMatchObject({ reachable: true, callable: 2, needs_permission: { write: 3, destructive: 1 } })
    expect(gh.locked).toBeUndefined()
    // no-destroy may write: archive_repo (switched off by the user) and rotate_keys (pending) are locked for it
    const noDestroy = views.find((v) => v.name === 'no-destroy')!.reach.find((r) => r.server === 'gh')!
    expect(noDestroy).toMatchObject({
      reachable: true,
      callable: 3,
      needs_permission: { destructive: 1 },
      locked: { disabled_by_user: 1, pending_approval: 1 },
    })
    expect(reader.reach.find((r) => r.server === 'files')).toMatchObject({ reachable: false, why: 'the server is switched off' })
    expect(reader.reach.find((r) => r.server === 'legacy')).toMatchObject({ reachable: false, why: 'waiting for review in quarantine' })
    const ghOnly = views.find((v) => v.name === 'gh-only')!
    expect(ghOnly.reach.find((r) => r.server === 'files')).toMatchObject({ reachable: false, why: expect.stringMatching(/not assigned to this agent/) })
    expect(ghOnly.reach.find((r) => r.server === 'gh')!.callable).toBe(3)
    expect(views.map((v) => v.kind)).toEqual(['agent', 'agent', 'agent'])
  })

  it('context: the tools/list an agent really receives at connect, against all its callable tools in full, in o200k_base tokens', async () => {
    const activity = world.core.activity
    const views = await agentViews({ catalog: world.catalog, activity, tokensOf: () => [] })
    for (const name of ['reader', 'gh-only']) {
      const a = views.find((v) => v.name === name)!
      const session = await agentSession(world, name)
      const listed = await session.client.listTools()
      expect(a.context.at_connect).toBe(countTokens(JSON.stringify({ tools: listed.tools })))
      expect(a.context.encoding).toBe('o200k_base')
    }
    const ghOnly = views.find((v) => v.name === 'gh-only')!
    const T = WORLD_TOOLS
    const full = [T.create_issue, T.list_repos, T.search_code].reduce((n, t) => n + countTokens(JSON.stringify(t)), 0)
    expect(ghOnly.context).toMatchObject({ callable_tools: 3, all_callable: full })
  })

  it('local clients come from the activity record, grouped by client name, with their recent records', async () => {
    const activity = world.core.activity
    const a = await agentSession(world, FULL_SCOPE, 'claude-code')
    const b = await agentSession(world, 'reader', 'cursor')
    await a.call('retrieve_tools', { query: 'list repositories' })
    await a.call('call_tool_read', { name: 'gh:delete_repo' })
    await b.call('retrieve_tools', { query: 'tickets' })
    const views = await agentViews({ catalog: world.catalog, activity, tokensOf: () => [] })
    const local = views.filter((v) => v.kind === 'local')
    expect(local.map((v) => v.name)).toEqual(['claude-code'])
    expect(local[0].recent.map((e) => e.kind)).toEqual(['call', 'search'])
    expect(local[0].last_seen).toBe(local[0].recent[0].ts)
    const reader = views.find((v) => v.name === 'reader')!
    expect(reader.recent.map((e) => e.kind)).toEqual(['search'])
  })
})
