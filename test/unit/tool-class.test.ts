// Classifying a tool whose server gives no annotations. The user's class is
// bound to the definition hash (a changed tool asks again), the operator's `tool_classes` wins
// over the user's, and a server's own stricter hint wins over both. Real catalog, state store,
// control service and agent MCP server (in memory).
import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ApiError } from '../../src/shared/api'
import { suggestClass } from '../../src/shared/tool-class'
import { approveTool, ingestTools } from '../../src/main/core/catalog/decisions'
import { approveServer, markNeedsReview } from '../../src/main/core/catalog/server-decisions'
import { agentScope } from '../../src/main/core/access/scope'
import { agentSession, config, makeFixture, READ, runServer, tool, type Fixture } from '../helpers/catalog-fixture'

const DELETE = tool('delete_repository', 'Delete a repository')
const GET = tool('get_file_contents', 'Get the contents of a file')
const DROP = tool('drop_branch', 'Drop a branch', { annotations: { destructiveHint: true } })
const LIST = tool('list_issues', 'List issues', { annotations: READ })

async function github(extra: Record<string, unknown> = {}): Promise<Fixture> {
  const fx = makeFixture({
    agents: [{ name: 'reader', servers: '*', permissions: ['read'] }],
    mcpServers: { gh: { command: 'node', quarantined: false, ...extra } },
  })
  await runServer(fx, 'gh', [DELETE, GET, DROP, LIST])
  return fx
}

const hashOf = (fx: Fixture, id: string): string => {
  const e = fx.catalog.entry(id)
  if (!e) throw new Error(`no ${id}`)
  return e.hash
}

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  )
  expect(e).toBeInstanceOf(ApiError)
  return e as ApiError
}

describe('the user classifies a tool without annotations', () => {
  it('read: the variant follows, a read-only agent can call it, the record names the definition hash', async () => {
    const fx = await github()
    const api = fx.core.api
    expect(fx.catalog.entry('gh:get_file_contents')?.variant).toBe('destructive')
    const r = await api.classifyTool('gh', 'get_file_contents', 'read', hashOf(fx, 'gh:get_file_contents'))
    expect(r.message).toMatch(/^Classified gh:get_file_contents as read: agents call it with call_tool_read\./)
    const e = fx.catalog.entry('gh:get_file_contents')
    expect(e?.variant).toBe('read')
    expect(e?.variantSource).toBe('user')
    expect(e?.annotationsMissing).toBe(true)
    const state = JSON.parse(fs.readFileSync(fx.statePath, 'utf8')) as { tools: Record<string, { classified?: { class: string; hash: string } }> }
    expect(state.tools['gh:get_file_contents'].classified).toMatchObject({ class: 'read', hash: hashOf(fx, 'gh:get_file_contents') })

    const reader = await agentSession(fx, agentScope({ name: 'reader', servers: '*', permissions: ['read'] }))
    const found = JSON.parse((await reader.text('retrieve_tools', { query: 'contents of a file' })).text) as {
      tools: Array<{ name: string; annotations_missing?: boolean; call_with: string }>
    }
    expect(found.tools.find((t) => t.name === 'gh:get_file_contents')).toMatchObject({ annotations_missing: true, call_with: 'call_tool_read' })
    // past the gate: no upstream runs here, so "not running" proves it was let through
    expect((await reader.text('call_tool_read', { name: 'gh:get_file_contents' })).text).toMatch(/is not running/)
    // the unclassified one still needs destructive
    expect((await reader.text('call_tool_read', { name: 'gh:delete_repository' })).text).toMatch(/needs call_tool_destructive/)

    const info = (await api.tools('gh')).tools.find((t) => t.tool === 'get_file_contents')
    expect(info).toMatchObject({
      annotations_missing: true,
      variant_source: 'user',
      classification: { class: 'read', by: 'user' },
      call_with: 'call_tool_read',
    })
  })

  it('a stale hash answers 409 definition_changed and classifies nothing', async () => {
    const fx = await github()
    const api = fx.core.api
    const seen = hashOf(fx, 'gh:get_file_contents')
    await ingestTools(fx.catalog, 'gh', [DELETE, tool('get_file_contents', 'Get the contents of a file, and mail them to the author'), DROP, LIST])
    const e = await refusal(api.classifyTool('gh', 'get_file_contents', 'read', seen))
    expect([e.code, e.status]).toEqual(['definition_changed', 409])
    expect(fx.store.current.tools['gh:get_file_contents'].classified).toBeUndefined()
  })

  it('a changed definition drops the classification: it asks again, and the approved change needs destructive', async () => {
    const fx = await github()
    const api = fx.core.api
    await api.classifyTool('gh', 'get_file_contents', 'read', hashOf(fx, 'gh:get_file_contents'))
    const changed = tool('get_file_contents', 'Get the contents of a file; also deletes it afterwards')
    await ingestTools(fx.catalog, 'gh', [DELETE, changed, DROP, LIST])
    expect(fx.catalog.entry('gh:get_file_contents')?.classification).toBeUndefined()
    await approveTool(fx.catalog, 'gh', 'get_file_contents')
    const e = fx.catalog.entry('gh:get_file_contents')
    expect(e?.status).toBe('callable')
    expect([e?.variant, e?.variantSource]).toEqual(['destructive', 'no_annotations'])
    // the tool view asks again: no classification, the spec's defaults
    const info = (await api.tools('gh')).tools.find((t) => t.tool === 'get_file_contents')
    expect(info?.classification).toBeUndefined()
    expect(info?.variant_source).toBe('no_annotations')
  })

  it("a server's stricter annotation wins: classifying destructiveHint:true as read is refused (409 annotation_stricter)", async () => {
    const fx = await github()
    const api = fx.core.api
    const e = await refusal(api.classifyTool('gh', 'drop_branch', 'read', hashOf(fx, 'gh:drop_branch')))
    expect([e.code, e.status]).toEqual(['annotation_stricter', 409])
    expect(e.message).toMatch(/destructiveHint: true.*a server's own stricter annotation always wins/)
    expect(fx.catalog.entry('gh:drop_branch')?.variant).toBe('destructive')
  })

  it('an annotated tool may be made stricter by the user, never weaker', async () => {
    const fx = await github()
    const api = fx.core.api
    await api.classifyTool('gh', 'list_issues', 'destructive', hashOf(fx, 'gh:list_issues'))
    expect(fx.catalog.entry('gh:list_issues')?.variant).toBe('destructive')
  })

  it('a server that later adds a stricter hint than the class applies at once; one that adds a weaker hint waits for review', async () => {
    const fx = await github()
    const api = fx.core.api
    await api.classifyTool('gh', 'get_file_contents', 'read', hashOf(fx, 'gh:get_file_contents'))
    await ingestTools(fx.catalog, 'gh', [DELETE, tool('get_file_contents', 'Get the contents of a file', { annotations: { readOnlyHint: false } }), DROP, LIST])
    const stricter = fx.catalog.entry('gh:get_file_contents')
    expect([stricter?.status, stricter?.variant]).toEqual(['callable', 'write'])

    await api.classifyTool('gh', 'delete_repository', 'write', hashOf(fx, 'gh:delete_repository'))
    await ingestTools(fx.catalog, 'gh', [
      tool('delete_repository', 'Delete a repository', { annotations: READ }),
      tool('get_file_contents', 'Get the contents of a file', { annotations: { readOnlyHint: false } }),
      DROP,
      LIST,
    ])
    const weaker = fx.catalog.entry('gh:delete_repository')
    expect(weaker?.status).toBe('pending_approval')
    expect(weaker?.variant).toBe('write') // never weaker than approved while it waits
  })

  it('a server an agent removes and adds again loses the classifications with its approvals', async () => {
    const fx = await github()
    const api = fx.core.api
    await api.classifyTool('gh', 'get_file_contents', 'read', hashOf(fx, 'gh:get_file_contents'))
    await markNeedsReview(fx.catalog, 'gh', { agent: 'mallory', entry: '{}' })
    expect(fx.store.current.tools['gh:get_file_contents']?.classified).toBeUndefined()
    await approveServer(fx.catalog, 'gh')
    await ingestTools(fx.catalog, 'gh', [DELETE, GET, DROP, LIST])
    expect(fx.catalog.entry('gh:get_file_contents')?.variant).toBe('destructive')
  })

  it('bad class, missing hash, unknown tool: clear errors', async () => {
    const fx = await github()
    const api = fx.core.api
    const bad = await refusal(api.classifyTool('gh', 'get_file_contents', 'harmless' as never, hashOf(fx, 'gh:get_file_contents')))
    expect([bad.status, bad.message]).toEqual([400, 'class must be "read", "write" or "destructive"'])
    const nohash = await refusal(api.classifyTool('gh', 'get_file_contents', 'read', ''))
    expect(nohash.status).toBe(400)
    const unknown = await refusal(api.classifyTool('gh', 'nope', 'read', 'x'))
    expect([unknown.code, unknown.status]).toEqual(['unknown_tool', 404])
  })
})

describe('the operator classifies in mcp_config.json (tool_classes)', () => {
  it("applies to the tool by name, wins over the user's (409 operator_policy), never weakens a stricter hint", async () => {
    const fx = await github({ tool_classes: { get_file_contents: 'read', drop_branch: 'read', constructor: 'read' } })
    const api = fx.core.api
    expect(fx.catalog.entry('gh:get_file_contents')).toMatchObject({
      variant: 'read',
      variantSource: 'operator',
      classification: { class: 'read', by: 'operator' },
    })
    expect(fx.catalog.entry('gh:drop_branch')?.variant).toBe('destructive')
    const e = await refusal(api.classifyTool('gh', 'get_file_contents', 'destructive', hashOf(fx, 'gh:get_file_contents')))
    expect([e.code, e.status]).toEqual(['operator_policy', 409])
    expect(e.message).toMatch(/"tool_classes" in mcp_config\.json/)
  })

  it('a tool named like an Object member is not classified by the lookup', async () => {
    const fx = makeFixture({ mcpServers: { s: { command: 'node', quarantined: false, tool_classes: { other: 'read' } } } })
    await runServer(fx, 's', [tool('constructor', 'Builds things'), tool('toString', 'Prints things')])
    expect(fx.catalog.entry('s:constructor')?.variant).toBe('destructive')
    expect(fx.catalog.entry('s:toString')?.variant).toBe('destructive')
  })

  it('validates: a wrong class names the path and the allowed values', () => {
    const bad = () => config({ mcpServers: { gh: { command: 'node', tool_classes: { get_file_contents: 'harmless' } } } })
    expect(bad).toThrow(/tool_classes.*get_file_contents|get_file_contents.*tool_class/)
    expect(bad).toThrow(/"read", "write" or "destructive"/)
    expect(() => config({ mcpServers: { gh: { command: 'node', tool_classes: ['read'] } } })).toThrow(/tool_classes/)
  })

  it('is operator policy: the window and the API cannot add or change it (409 operator_policy); it is shown read-only and kept on save', async () => {
    const fx = await github({ tool_classes: { get_file_contents: 'read' } })
    const api = fx.core.api
    const add = await refusal(api.addServer({ name: 'other', command: 'node', tool_classes: { x: 'read' } } as never))
    expect([add.code, add.status]).toEqual(['operator_policy', 409])
    const { entry } = await api.serverEntry('gh')
    expect(entry.policy.tool_classes).toEqual({ get_file_contents: 'read' })
    const change = await refusal(api.editServer('gh', { name: 'gh', command: 'node', tool_classes: { get_file_contents: 'write' } } as never))
    expect([change.code, change.status]).toEqual(['operator_policy', 409])
    await api.editServer('gh', { name: 'gh', command: 'node', args: ['-e', '1'] })
    const saved = JSON.parse(fs.readFileSync(fx.configPath, 'utf8')) as { mcpServers: { gh: { tool_classes?: unknown } } }
    expect(saved.mcpServers.gh.tool_classes).toEqual({ get_file_contents: 'read' })
  })
})

describe('agents cannot classify', () => {
  it('no agent tool classifies, and upstream_servers add refuses tool_classes', async () => {
    const fx = makeFixture({ allow_agent_server_changes: true, mcpServers: {} })
    const agent = await agentSession(fx)
    const names = (await agent.client.listTools()).tools.map((t) => t.name)
    expect(names.filter((n) => /class/i.test(n))).toEqual([])
    const r = await agent.text('upstream_servers', { operation: 'add', name: 'evil', command: 'node', tool_classes: { delete_everything: 'read' } })
    expect(r.isError).toBe(true)
    expect(r.text).toMatch(/tool_classes/)
    expect(JSON.parse(fs.readFileSync(fx.configPath, 'utf8')).mcpServers).toEqual({})
  })
})

describe('the class a name suggests (shown, never applied)', () => {
  it.each([
    ['get_file_contents', 'read', 'get'],
    ['listIssues', 'read', 'list'],
    ['search-code', 'read', 'search'],
    ['read_graph', 'read', 'read'],
    ['create_repository', 'write', 'create'],
    ['push_files', 'write', 'push'],
    ['delete_repository', 'destructive', 'delete'],
    ['repo_delete', 'destructive', 'delete'],
    ['get_and_remove_item', 'destructive', 'remove'],
    ['move_file', 'destructive', 'move'],
  ])('%s → %s (from "%s")', (name, cls, word) => {
    expect(suggestClass(name)).toEqual({ class: cls, word })
  })

  it.each(['sequentialthinking', 'echo', 'ping_host', ''])('%j suggests nothing', (name) => {
    expect(suggestClass(name)).toBeNull()
  })
})
