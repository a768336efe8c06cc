// The exact-name hint: an agent that asks retrieve_tools for a locked tool by its exact
// name learns that it exists and is locked, even when callable tools matched too. Scope and rule 6
// come first; the hint is name-only; every other default response keeps its bytes.
import { beforeAll, describe, expect, it } from 'vitest'
import { retrieveText } from '../../src/main/core/discovery/retrieve'
import { agentScope, FULL_SCOPE } from '../../src/main/core/access/scope'
import { AgentSchema } from '../../src/shared/config-schema'
import { setToolDisabled } from '../../src/main/core/catalog/decisions'
import { agentSession, buildWorld, makeFixture, READ, runServer, tool, WRITE, type Fixture } from '../helpers/catalog-fixture'

let world: Fixture
beforeAll(async () => {
  world = await buildWorld()
})

const search = (query: string, scope = FULL_SCOPE, include_disabled?: boolean) =>
  JSON.parse(retrieveText(world.catalog, { query, ...(include_disabled !== undefined ? { include_disabled } : {}) }, scope)) as {
    tools: Array<{ name: string }>
    notice?: string
    disabled?: unknown
  }
const agent = (name: string, servers: string[] | '*', permissions: Array<'read' | 'write' | 'destructive'>) =>
  agentScope(AgentSchema.parse({ name, servers, permissions }))

describe('As an agent asking for a locked tool by its exact name', () => {
  it('I get the hint although callable tools matched too (server:tool and the bare name)', () => {
    for (const q of ['gh:delete_repo', 'delete_repo', '  delete_repo  ']) {
      const r = search(q)
      expect(r.tools.length, `callable tools match "${q}"`).toBeGreaterThan(0)
      expect(r.notice).toBe('`gh:delete_repo` exists but is locked (disabled_by_config); retry with include_disabled:true')
      expect(r.disabled).toBeUndefined()
    }
  })

  it('each lock status names itself', () => {
    expect(search('files:read_file').notice).toContain('`files:read_file` exists but is locked (server_disabled)')
    expect(search('archive_repo').notice).toContain('`gh:archive_repo` exists but is locked (disabled_by_user)')
    expect(search('legacy:close_ticket').notice).toContain('`legacy:close_ticket` exists but is locked (server_quarantined)')
  })

  it('the hint is name-only: an untrusted description never comes with it', () => {
    const text = retrieveText(world.catalog, { query: 'rotate_keys' }, FULL_SCOPE)
    expect(JSON.parse(text).notice).toContain('`gh:rotate_keys` exists but is locked (pending_approval)')
    expect(text).not.toMatch(/Ignore previous instructions|kubernetes|deploy keys/)
  })

  it('when only locked tools match, the hint comes first and the count notice follows', () => {
    const r = search('sketchy:export_secrets')
    expect(r.tools).toEqual([])
    expect(r.notice).toMatch(
      /^`sketchy:export_secrets` exists but is locked \(server_quarantined\); retry with include_disabled:true\. \d+ relevant tool\(s\) exist but are locked; retry with include_disabled:true for details and remediation\.$/,
    )
  })

  it('a "still starting" notice comes last, after its own sentence break', () => {
    const r = JSON.parse(retrieveText(world.catalog, { query: 'gh:delete_repo' }, FULL_SCOPE, undefined, 2)) as { notice?: string }
    expect(r.notice).toBe(
      '`gh:delete_repo` exists but is locked (disabled_by_config); retry with include_disabled:true. 2 server(s) are still starting; their tools are not in these results yet. Retry in a few seconds.',
    )
  })

  it('a name shared by several locked tools names each of them, by id', async () => {
    const fx = makeFixture({
      mcpServers: {
        a: { command: 'node', args: ['a.js'], quarantined: false, disabled_tools: ['move_file'] },
        b: { command: 'node', args: ['b.js'], quarantined: false },
        c: { command: 'node', args: ['c.js'], quarantined: false },
      },
    })
    const move = tool('move_file', 'Move a file to another folder', { annotations: WRITE })
    const list = tool('list_files', 'List the files of a folder', { annotations: READ })
    for (const s of ['a', 'b', 'c']) await runServer(fx, s, [move, list])
    await setToolDisabled(fx.catalog, 'b', 'move_file', true)
    const r = JSON.parse(retrieveText(fx.catalog, { query: 'move_file' }, FULL_SCOPE))
    expect(r.tools.map((t: { name: string }) => t.name)).toContain('c:move_file')
    expect(r.notice).toBe('`a:move_file` (disabled_by_config), `b:move_file` (disabled_by_user) exist but are locked; retry with include_disabled:true')
  })
})

describe('As the scope and the rules require', () => {
  it('a tool outside my servers never produces a hint', () => {
    const ghOnly = agent('gh-only', ['gh'], ['read', 'write', 'destructive'])
    const r = search('files:read_file', ghOnly)
    expect(r.notice ?? '').not.toContain('read_file')
    expect(search('read_file', ghOnly).notice ?? '').not.toContain('read_file')
  })

  it('a tool that needs a permission I lack never produces a hint', () => {
    const reader = agent('reader', '*', ['read'])
    expect(search('gh:delete_repo', reader).notice ?? '').not.toContain('delete_repo')
  })

  it('a tool on a quarantined server that the config also denies is never hinted (rule 6)', () => {
    for (const q of ['drop_tables', 'sketchy:drop_tables']) expect(search(q).notice ?? '').not.toContain('drop_tables')
  })

  it('a callable tool named exactly gets no notice; a near miss keeps the old bytes', () => {
    expect(search('list_repos').notice).toBeUndefined()
    expect(search('gh:list_repos').notice).toBeUndefined()
    // "delete_rep" names nothing: only the count notice of a locked-only search, as before
    expect(search('delete_rep').notice).toBe('1 relevant tool(s) exist but are locked; retry with include_disabled:true for details and remediation.')
  })

  it('with include_disabled:true the locked entry is listed instead and there is no notice', () => {
    const r = search('delete_repo', FULL_SCOPE, true) as { notice?: string; disabled?: Array<{ name: string }> }
    expect(r.notice).toBeUndefined()
    expect(r.disabled?.map((d) => d.name)).toContain('gh:delete_repo')
  })
})

describe('Every surface gives the same hint', () => {
  it('over MCP and the control API, byte-identical', async () => {
    const session = await agentSession(world)
    const overMcp = await session.text('retrieve_tools', { query: 'delete_repo' })
    const overApi = await world.core.api.search({ query: 'delete_repo' })
    expect(overMcp.text).toBe(overApi)
    expect(JSON.parse(overApi).notice).toBe('`gh:delete_repo` exists but is locked (disabled_by_config); retry with include_disabled:true')
  })
})
