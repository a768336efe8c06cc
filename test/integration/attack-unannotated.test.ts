// Tools without annotations, from outside: a tool without annotations is as dangerous as the MCP spec says
// (not read-only, may destroy). A real `toolgate serve` with a fixture upstream shaped like a
// community GitHub server that annotates nothing; agents over HTTP, bridged `toolgate stdio` and
// an embedded `toolgate stdio` (no owner). A read-only agent never runs the unannotated
// delete_repository through call_tool_read, `confirm: "destructive"` asks before it runs, and
// every surface says the tool has no annotations.
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  apiRequest,
  assertBuilt,
  fixtureEntry,
  logLines,
  runCli,
  startServe,
  tempDir,
  waitFor,
  waitForServerState,
  writeJson,
  type Serve,
} from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, connectStdio, jsonOf, textOf, type McpHandle } from '../helpers/mcp-client'

useCleanup()

const repo = { type: 'object', properties: { owner: { type: 'string' }, repo: { type: 'string' } } }
/** As a community GitHub server lists them: no annotations at all, except the one tool that says it only reads. */
const GITHUB = [
  { name: 'delete_repository', description: 'Delete a GitHub repository and everything in it', inputSchema: repo },
  { name: 'create_repository', description: 'Create a new GitHub repository', inputSchema: repo },
  { name: 'push_files', description: 'Push several files to a repository in one commit', inputSchema: repo },
  { name: 'get_file_contents', description: 'Get the contents of a file in a repository', inputSchema: repo },
  { name: 'list_issues', description: 'List the issues of a repository', inputSchema: repo, annotations: { readOnlyHint: true } },
]

interface Entry {
  name: string
  annotations?: Record<string, unknown>
  annotations_missing?: boolean
  call_with: string
}

describe('a tool without annotations is treated as destructive', () => {
  let tmp: string
  let serve: Serve
  let readerToken: string
  const upstreamCalls = () => logLines(path.join(tmp, 'github.log'))
  const handles: McpHandle[] = []

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-unannotated-')
    const tools = writeJson(path.join(tmp, 'tools.json'), GITHUB)
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      agents: [
        { name: 'reader', servers: '*', permissions: ['read'] },
        { name: 'admin', servers: '*', permissions: ['read', 'write', 'destructive'] },
      ],
      confirm_timeout_s: 30,
      mcpServers: { github: fixtureEntry(tools, path.join(tmp, 'github.log'), { quarantined: false, confirm: 'destructive' }) },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'github', 'connected')
    const t = await runCli(['agents', 'token', 'reader', ...serve.flags])
    expect(t.code, t.stderr).toBe(0)
    readerToken = t.stdout.trim()
  }, 90_000)

  afterAll(async () => {
    for (const h of handles) await h.close().catch(() => {})
    await stopServe(serve)
  })

  const open = async (h: Promise<McpHandle>): Promise<McpHandle> => {
    const handle = await h
    handles.push(handle)
    return handle
  }

  /** The read-only agent's attack on one transport: find it, call it through call_tool_read, and ask for it. */
  async function readerCannotDelete(agent: McpHandle): Promise<void> {
    const offered = (await agent.client.listTools()).tools.map((t) => t.name)
    expect(offered).toContain('call_tool_read')
    expect(offered).not.toContain('call_tool_destructive')
    const found = jsonOf<{ tools: Entry[] }>(await agent.call('retrieve_tools', { query: 'delete repository' }))
    expect(found.tools.map((t) => t.name)).not.toContain('github:delete_repository')
    const before = upstreamCalls().length
    for (const name of ['github:delete_repository', 'github:push_files', 'github:get_file_contents']) {
      const r = await agent.call('call_tool_read', { name, args: { owner: 'acme', repo: 'prod' } })
      expect(r.isError, textOf(r)).toBe(true)
      expect(textOf(r)).toMatch(/not in scope for agent "reader": it needs call_tool_destructive/)
    }
    const described = await agent.call('describe_tool', { name: 'github:delete_repository' })
    expect(described.isError).toBe(true)
    // the annotated read tool still works for it
    const ok = await agent.call('call_tool_read', { name: 'github:list_issues', args: { owner: 'acme', repo: 'prod' } })
    expect(ok.isError, textOf(ok)).toBeFalsy()
    expect(
      upstreamCalls()
        .slice(before)
        .map((c) => c.tool),
    ).toEqual(['list_issues'])
  }

  it('over HTTP, an agent with only read permission cannot run the unannotated delete_repository', async () => {
    await readerCannotDelete(await open(connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${readerToken}` })))
  }, 60_000)

  it('over a bridged `toolgate stdio --agent reader`, the same', async () => {
    await readerCannotDelete(await open(connectStdio(['--agent', 'reader', ...serve.flags])))
  }, 60_000)

  it('retrieve_tools and describe_tool say annotations_missing, in the contract key order, and call_with says destructive', async () => {
    const admin = await open(connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}`, 'x-toolgate-agent': 'admin' }))
    const text = textOf(await admin.call('retrieve_tools', { query: 'repository', limit: 10 }))
    const found = JSON.parse(text) as { tools: Entry[] }
    const byName = new Map(found.tools.map((t) => [t.name, t]))
    for (const name of ['github:delete_repository', 'github:create_repository', 'github:push_files', 'github:get_file_contents']) {
      const e = byName.get(name)
      expect(e, name).toBeDefined()
      expect(Object.keys(e as Entry)).toEqual(['name', 'server', 'description', 'inputSchema', 'annotations_missing', 'call_with', 'score'])
      expect(e).toMatchObject({ annotations_missing: true, call_with: 'call_tool_destructive' })
    }
    const annotated = byName.get('github:list_issues')
    expect(annotated).toBeDefined()
    expect(Object.keys(annotated as Entry)).toEqual(['name', 'server', 'description', 'inputSchema', 'annotations', 'call_with', 'score'])
    expect(annotated?.call_with).toBe('call_tool_read')
    // the same bytes from the control API's search (docs/contract.md §5)
    const api = await apiRequest(serve, 'GET', `/api/v1/search?q=repository&limit=10`)
    expect(api.text).toBe(text)

    const described = jsonOf<Record<string, unknown>>(await admin.call('describe_tool', { name: 'github:delete_repository' }))
    expect(Object.keys(described)).toEqual(['name', 'server', 'description', 'inputSchema', 'annotations_missing', 'call_with'])
    expect(described).toMatchObject({ annotations_missing: true, call_with: 'call_tool_destructive' })

    const wrong = await admin.call('call_tool_write', { name: 'github:create_repository', args: {} })
    expect(wrong.isError).toBe(true)
    expect(textOf(wrong)).toMatch(/gives no annotations, so the MCP spec's defaults apply.*Call it with call_tool_destructive instead\./)
  }, 60_000)

  it('`confirm: "destructive"` asks before an unannotated tool runs; denied, the upstream is never called', async () => {
    const admin = await open(connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}`, 'x-toolgate-agent': 'admin' }))
    const before = upstreamCalls().length
    const call = admin.call('call_tool_destructive', { name: 'github:delete_repository', args: { owner: 'acme', repo: 'prod' } })
    const c = await waitFor(
      async () =>
        (await apiRequest(serve, 'GET', '/api/v1/confirmations')).json.confirmations.find(
          (x: { tool: string; status: string }) => x.tool === 'github:delete_repository' && x.status === 'pending',
        ) as { id: string; required_by: string[]; call_with: string } | undefined,
      15_000,
      'the confirmation of delete_repository',
    )
    expect(c.required_by).toEqual(['config'])
    expect(c.call_with).toBe('call_tool_destructive')
    expect(upstreamCalls().length).toBe(before)
    expect((await apiRequest(serve, 'POST', `/api/v1/confirmations/${c.id}/deny`, {})).status).toBe(200)
    const r = await call
    expect(r.isError).toBe(true)
    expect(textOf(r)).toMatch(/^CALL_DECLINED/)
    expect(upstreamCalls().length).toBe(before)
  }, 60_000)

  it('the control API and `toolgate tools list` say "no annotations: treated as destructive" for exactly the unannotated tools', async () => {
    const tools = (await apiRequest(serve, 'GET', '/api/v1/servers/github/tools')).json.tools as Array<Entry & { name: string }>
    const missing = tools.filter((t) => t.annotations_missing === true).map((t) => t.name)
    expect(missing.sort()).toEqual(['github:create_repository', 'github:delete_repository', 'github:get_file_contents', 'github:push_files'])
    expect(tools.find((t) => t.name === 'github:push_files')?.call_with).toBe('call_tool_destructive')

    const r = await runCli(['tools', 'list', 'github', ...serve.flags])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.split('\n')
    const noteAfter = (tool: string) => lines[lines.findIndex((l) => l.startsWith(tool)) + 1]?.trim()
    for (const t of ['github:delete_repository', 'github:push_files']) {
      expect(lines.find((l) => l.startsWith(t))).toMatch(/call_tool_destructive/)
      expect(noteAfter(t)).toBe(`no annotations: treated as destructive; to classify it: toolgate tools classify ${t} read|write|destructive`)
    }
    expect(lines.find((l) => l.startsWith('github:list_issues'))).toMatch(/call_tool_read/)
    expect(noteAfter('github:list_issues')).not.toMatch(/no annotations/)
  }, 60_000)
})

describe('an embedded `toolgate stdio` (no owner) applies the same rule', () => {
  it('a read-only agent cannot run the unannotated delete_repository', async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-unannotated-embedded-')
    const tools = writeJson(path.join(tmp, 'tools.json'), GITHUB)
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      agents: [{ name: 'reader', servers: '*', permissions: ['read'] }],
      mcpServers: { github: fixtureEntry(tools, path.join(tmp, 'github.log'), { quarantined: false }) },
    })
    const agent = await connectStdio(['--agent', 'reader', '--config', configPath, '--data-dir', path.join(tmp, 'data')])
    try {
      await waitFor(
        async () => JSON.parse(textOf(await agent.call('retrieve_tools', { query: 'issues' }))).tools.length > 0,
        30_000,
        'the embedded core to list the github tools',
      )
      const r = await agent.call('call_tool_read', { name: 'github:delete_repository', args: { owner: 'acme', repo: 'prod' } })
      expect(r.isError).toBe(true)
      expect(textOf(r)).toMatch(/needs call_tool_destructive/)
      expect(logLines(path.join(tmp, 'github.log'))).toEqual([])
    } finally {
      await agent.close()
    }
  }, 90_000)
})
