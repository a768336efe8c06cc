// Access requests answered in the agent's own client. A real `toolgate serve`
// whose tools the user switched off; agents whose ask_in_client is on ask for them with
// request_access and the person answers in the client: 2026-07-28 by input_required + requestState,
// 2025 by elicitation/create. The window stays and wins when it answers first. And the attacks on
// requestState: forged, replayed, another credential, another tool, the question of a confirmation.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import {
  BIN,
  ROOT,
  apiRequest,
  assertBuilt,
  cliEnv,
  fixtureEntry,
  logLines,
  runCli,
  startServe,
  tempDir,
  track,
  waitFor,
  waitForServerState,
  writeJson,
  type Serve,
} from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { agentToken, MODERN_ENVELOPE as ENVELOPE, modernToolsCall } from '../helpers/modern-http'
import { textOf } from '../helpers/mcp-client'
import { connectHttpV2 } from '../helpers/mcp-v2-client'

useCleanup()

const TOOLS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon'].map((n) => ({
  name: `${n}_notes`,
  description: `The ${n} notes`,
  annotations: { readOnlyHint: true },
}))

interface Req {
  id: string
  name: string
  agent: string | null
  status: string
  granted_for?: string
  answered_via?: string
}

describe('access requests asked in the agent’s own client (ask_in_client)', () => {
  let tmp: string
  let serve: Serve
  let log: string
  const token: Record<string, string> = {}

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-ask-access-')
    const toolsFile = writeJson(path.join(tmp, 'tools.json'), TOOLS)
    log = path.join(tmp, 'logs', 'notes.log')
    fs.mkdirSync(path.dirname(log), { recursive: true })
    const agent = (name: string, extra: Record<string, unknown> = {}) => ({ name, servers: ['notes', 'fresh'], permissions: ['read'], ...extra })
    writeJson(path.join(tmp, 'mcp_config.json'), {
      // "fresh" waits in quarantine: nobody reviewed its launch yet
      mcpServers: { notes: { ...fixtureEntry(toolsFile, log), quarantined: false }, fresh: fixtureEntry(toolsFile, path.join(tmp, 'logs', 'fresh.log')) },
      // a denial stands for the whole server for a while (per agent): each test that denies has an agent of its own
      agents: [...['asker', 'other', 'd1', 'd2', 'd3', 'bridged'].map((n) => agent(n, { ask_in_client: true })), agent('plain')],
    })
    serve = await startServe({ configPath: path.join(tmp, 'mcp_config.json'), dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'notes', 'connected')
    // the user switched every tool off: each is locked (disabled_by_user), which request_access may ask for
    for (const t of TOOLS) expect((await apiRequest(serve, 'POST', `/api/v1/servers/notes/tools/${t.name}/disable`)).status).toBe(200)
    for (const name of ['asker', 'other', 'd1', 'd2', 'd3', 'plain']) token[name] = await agentToken(serve, name)
  }, 60_000)

  afterAll(() => stopServe(serve))

  const calls = (tool: string): number => logLines(log).filter((l) => l.tool === tool).length
  const requests = async (): Promise<Req[]> => (await apiRequest(serve, 'GET', '/api/v1/requests')).json.requests as Req[]
  const modern = (who: string, params: Record<string, unknown>): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> =>
    modernToolsCall(serve, who, 3, params, ENVELOPE)
  const ask = (tool: string) => ({ name: 'request_access', arguments: { name: `notes:${tool}`, reason: `I need ${tool} to answer the user` } })
  const answer = (tool: string, state: unknown, a: Record<string, unknown>) => ({ ...ask(tool), inputResponses: { toolgate_access: a }, requestState: state })
  const out = (r: { result?: Record<string, unknown> }): string => ((r.result?.content as Array<{ text: string }> | undefined) ?? [])[0]?.text ?? ''
  const question = async (who: string, tool: string): Promise<{ state: string; message: string; choices: string[] }> => {
    const r = await modern(who, ask(tool))
    expect(r.result?.resultType).toBe('input_required')
    const q = (
      r.result?.inputRequests as Record<
        string,
        { params: { message: string; requestedSchema: { properties: { answer: { oneOf: Array<{ const: string }> } } } } }
      >
    ).toolgate_access
    return { state: r.result?.requestState as string, message: q.params.message, choices: q.params.requestedSchema.properties.answer.oneOf.map((o) => o.const) }
  }

  it('2026-07-28: the client shows the question with the window’s choices; "Allow once" grants exactly one call, answered via the client', async () => {
    const q = await question(token.asker, 'alpha_notes')
    expect(q.message).toMatch(/Agent "asker" asks for access to notes:alpha_notes/)
    expect(q.message).toContain('I need alpha_notes to answer the user')
    expect(q.choices).toEqual(['once', '1h', 'always', 'deny'])
    expect((await requests()).filter((r) => r.name === 'notes:alpha_notes')).toMatchObject([{ status: 'pending', agent: 'asker' }])
    const r = await modern(token.asker, answer('alpha_notes', q.state, { action: 'accept', content: { answer: 'once' } }))
    expect(JSON.parse(out(r))).toMatchObject({ status: 'granted' })
    expect(out(r)).toMatch(/ONE call/)
    expect((await requests()).find((x) => x.name === 'notes:alpha_notes')).toMatchObject({ status: 'granted', granted_for: 'once', answered_via: 'client' })
    expect((await runCli(['requests', 'list', ...serve.flags])).stdout).toMatch(/granted once \(client\)\s+asker\s+notes:alpha_notes/)
    const before = calls('alpha_notes')
    const call = () => modern(token.asker, { name: 'call_tool_read', arguments: { name: 'notes:alpha_notes', args: {} } })
    expect(out(await call())).not.toMatch(/TOOL_BLOCKED/)
    expect(out(await call())).toMatch(/TOOL_BLOCKED/)
    expect(calls('alpha_notes')).toBe(before + 1)
    // the decision is on the record, made at the client
    const act = (await apiRequest(serve, 'GET', '/api/v1/activity?kind=decision&agent=asker')).json.events as Array<{
      via: string
      action: string
      tool?: string
    }>
    expect(act.some((e) => e.via === 'client' && e.action === 'grant' && e.tool === 'alpha_notes')).toBe(true)
  })

  it('2026-07-28: declined in the client is a denial; the window has nothing left to answer', async () => {
    const q = await question(token.d1, 'beta_notes')
    const r = await modern(token.d1, answer('beta_notes', q.state, { action: 'decline' }))
    expect(JSON.parse(out(r))).toMatchObject({ status: 'denied' })
    expect((await requests()).find((x) => x.name === 'notes:beta_notes')).toMatchObject({ status: 'denied', answered_via: 'client' })
  })

  describe('attacks on requestState', () => {
    it('forged or altered: refused before any handler runs (-32602), nothing granted', async () => {
      const q = await question(token.asker, 'gamma_notes')
      const flipped = q.state.slice(0, -3) + (q.state.at(-3) === 'A' ? 'B' : 'A') + q.state.slice(-2)
      expect((await modern(token.asker, answer('gamma_notes', flipped, { action: 'accept', content: { answer: 'always' } }))).error?.code).toBe(-32602)
      const made = Buffer.from(JSON.stringify({ v: 1, k: 'access', r: 'r_x', p: 'agent:asker', n: 'notes:gamma_notes', d: 9e15 })).toString('base64url')
      expect((await modern(token.asker, answer('gamma_notes', made, { action: 'accept', content: { answer: 'always' } }))).error?.code).toBe(-32602)
      expect((await requests()).find((x) => x.name === 'notes:gamma_notes')?.status).toBe('pending')
    })

    it('another agent, another credential or another tool: refused, no request made, the question stays for the window', async () => {
      const q = await question(token.asker, 'gamma_notes')
      const before = (await requests()).length
      const allow = { action: 'accept', content: { answer: 'always' } }
      // another agent (its own switch on) and another token of the same agent are other credentials
      const again = await agentToken(serve, 'asker')
      for (const who of [token.other, again])
        expect(out(await modern(who, answer('gamma_notes', q.state, allow)))).toMatch(/^REQUEST_DECLINED: the answer \(requestState\) does not belong/)
      expect(out(await modern(token.asker, answer('delta_notes', q.state, allow)))).toMatch(/^REQUEST_DECLINED: the answer \(requestState\) does not belong/)
      expect((await requests()).length).toBe(before)
      expect((await requests()).find((x) => x.name === 'notes:gamma_notes')?.status).toBe('pending')
      const tools = (await apiRequest(serve, 'GET', '/api/v1/servers/notes/tools')).json.tools as Array<{ tool: string; status: string }>
      expect(tools.find((t) => t.tool === 'gamma_notes')?.status).toBe('disabled_by_user')
    })

    it('replayed: the answer counts once; the same requestState again is refused', async () => {
      const q = await question(token.d2, 'gamma_notes')
      expect(JSON.parse(out(await modern(token.d2, answer('gamma_notes', q.state, { action: 'decline' }))))).toMatchObject({ status: 'denied' })
      const replay = await modern(token.d2, answer('gamma_notes', q.state, { action: 'accept', content: { answer: 'always' } }))
      expect(out(replay)).toMatch(/^REQUEST_DECLINED: this question was already answered \(denied\)/)
      const tools = (await apiRequest(serve, 'GET', '/api/v1/servers/notes/tools')).json.tools as Array<{ tool: string; status: string }>
      expect(tools.find((t) => t.tool === 'gamma_notes')?.status).toBe('disabled_by_user')
    })

    it('an answer the question did not offer counts for nothing: the request stays pending', async () => {
      const q = await question(token.asker, 'delta_notes')
      const r = await modern(token.asker, answer('delta_notes', q.state, { action: 'accept', content: { answer: 'forever' } }))
      expect(JSON.parse(out(r))).toMatchObject({ status: 'pending' })
      expect((await requests()).find((x) => x.name === 'notes:delta_notes')?.status).toBe('pending')
    })
  })

  it('2026-07-28: the window answers first; the client’s later answer does not count', async () => {
    const q = await question(token.d3, 'epsilon_notes')
    const id = (await requests()).find((x) => x.name === 'notes:epsilon_notes' && x.agent === 'd3')?.id as string
    expect((await apiRequest(serve, 'POST', `/api/v1/requests/${id}/deny`)).status).toBe(200)
    const r = await modern(token.d3, answer('epsilon_notes', q.state, { action: 'accept', content: { answer: 'always' } }))
    expect(JSON.parse(out(r))).toMatchObject({ status: 'denied' })
    expect((await requests()).find((x) => x.id === id)).toMatchObject({ status: 'denied' })
    expect((await requests()).find((x) => x.id === id)?.answered_via).toBeUndefined()
  })

  it('2025: the question comes as elicitation/create; "Allow always" in the client opens the tool', async () => {
    const client = new V1Client({ name: 'old-client', version: '1' }, { capabilities: { elicitation: {} } })
    const seen: string[] = []
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      seen.push(String(req.params.message))
      return { action: 'accept', content: { answer: 'always' } }
    })
    await client.connect(new V1Http(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token.other}` } } }))
    const r = (await client.callTool(ask('delta_notes'))) as { content: Array<{ text: string }> }
    expect(JSON.parse(r.content[0].text)).toMatchObject({ status: 'granted' })
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatch(/Agent "other" asks for access to notes:delta_notes/)
    const tools = (await apiRequest(serve, 'GET', '/api/v1/servers/notes/tools')).json.tools as Array<{ tool: string; status: string }>
    expect(tools.find((t) => t.tool === 'delta_notes')?.status).toBe('callable')
    await client.close()
  })

  it('2025: the window answers first and the question in the client is withdrawn', async () => {
    const client = new V1Client({ name: 'old-client', version: '1' }, { capabilities: { elicitation: {} } })
    let asked = false
    client.setRequestHandler(ElicitRequestSchema, async (_req, extra) => {
      asked = true
      await new Promise((resolve) => extra.signal.addEventListener('abort', resolve, { once: true }))
      return { action: 'cancel' }
    })
    const transport = new V1Http(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token.other}` } } })
    await client.connect(transport)
    const wire: Array<{ id?: unknown; method?: string; params?: { requestId?: unknown } }> = []
    const deliver = transport.onmessage
    transport.onmessage = (m) => {
      wire.push(m as (typeof wire)[number])
      deliver?.(m)
    }
    const call = client.callTool(ask('epsilon_notes'))
    await waitFor(() => asked, 10_000, 'the elicitation/create in the client')
    const id = (await requests()).find((x) => x.name === 'notes:epsilon_notes' && x.agent === 'other' && x.status === 'pending')?.id as string
    expect((await apiRequest(serve, 'POST', `/api/v1/requests/${id}/grant`, { for: '1h' })).status).toBe(200)
    const r = (await call) as { content: Array<{ text: string }> }
    expect(JSON.parse(r.content[0].text)).toMatchObject({ status: 'granted' })
    const question = wire.find((m) => m.method === 'elicitation/create')
    expect(wire.some((m) => m.method === 'notifications/cancelled' && m.params?.requestId === question?.id)).toBe(true)
    await client.close()
  })

  it('2025 over the stdio bridge to the running owner: the question reaches the client, "Allow once" passes exactly one call', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'stdio', ...serve.flags, '--agent', 'bridged'],
      env: cliEnv() as Record<string, string>,
      cwd: ROOT,
      stderr: 'pipe',
    })
    const client = new V1Client({ name: 'bridged-old-client', version: '1' }, { capabilities: { elicitation: {} } })
    const seen: string[] = []
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      seen.push(String(req.params.message))
      return { action: 'accept', content: { answer: 'once' } }
    })
    await client.connect(transport, { timeout: 60_000 })
    track(transport.pid ?? undefined)
    // a bridge, not an owner: the serve process owns the data dir
    expect(JSON.parse(fs.readFileSync(path.join(serve.dataDir, 'instance.json'), 'utf8')).pid).toBe(serve.pid)
    const r = (await client.callTool(ask('beta_notes'), undefined, { timeout: 30_000 })) as { content: Array<{ text: string }> }
    expect(JSON.parse(r.content[0].text)).toMatchObject({ status: 'granted' })
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatch(/Agent "bridged" asks for access to notes:beta_notes/)
    const before = calls('beta_notes')
    const call = async () =>
      ((await client.callTool({ name: 'call_tool_read', arguments: { name: 'notes:beta_notes', args: {} } })) as { content: Array<{ text: string }> })
        .content[0].text
    expect(await call()).not.toMatch(/TOOL_BLOCKED/)
    expect(await call()).toMatch(/TOOL_BLOCKED/)
    expect(calls('beta_notes')).toBe(before + 1)
    await client.close()
  })

  it('a grant that would approve what nobody reviewed (a server in quarantine) is never asked in the client: the window’s review', async () => {
    const servers = (await apiRequest(serve, 'GET', '/api/v1/servers')).json.servers as Array<{ name: string; state: string }>
    expect(servers.find((x) => x.name === 'fresh')?.state).toBe('quarantined')
    const r = await modern(token.asker, { name: 'request_access', arguments: { name: 'fresh:alpha_notes', reason: 'new server' } })
    expect(r.result?.resultType).not.toBe('input_required')
    expect(JSON.parse(out(r))).toMatchObject({ status: 'pending' })
    expect((await requests()).find((x) => x.name === 'fresh:alpha_notes')).toMatchObject({ status: 'pending', agent: 'asker' })
  })

  it('an agent whose switch is off is never asked in its client: request_access answers pending at once', async () => {
    const agent = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${token.plain}` }, 'modern', { capabilities: { elicitation: { form: {} } } })
    let asked = 0
    agent.client.setRequestHandler('elicitation/create', async () => {
      asked++
      return { action: 'accept', content: { answer: 'always' } }
    })
    const r = await agent.call('request_access', { name: 'notes:alpha_notes', reason: 'plain' })
    expect(JSON.parse(textOf(r))).toMatchObject({ status: 'pending' })
    expect(asked).toBe(0)
    await agent.close()
  })
})
