// A confirmation answered in the agent's own client. A real `toolgate serve`
// with a fixture upstream whose write calls need the user's OK (confirm: write) and that logs
// every call that reaches it. An agent with ask_in_client gets the question in its client:
// 2026-07-28 by input_required + requestState (the SDK v2 client answers and retries), 2025 by
// elicitation/create. The window stays: whoever answers first wins, the other is withdrawn. And
// the attacks on requestState: forged, replayed, another credential, other arguments, another
// tool, too late.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { apiRequest, assertBuilt, fixtureEntry, logLines, startServe, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { agentToken, MODERN_ENVELOPE as ENVELOPE, modernToolsCall } from '../helpers/modern-http'
import { textOf } from '../helpers/mcp-client'
import { connectHttpV2 } from '../helpers/mcp-v2-client'

useCleanup()

const TOOLS = [
  { name: 'read_notes', description: 'Read the notes', annotations: { readOnlyHint: true } },
  { name: 'edit_notes', description: 'Edit the notes', annotations: { readOnlyHint: false } },
  { name: 'tag_notes', description: 'Tag the notes', annotations: { readOnlyHint: false } },
]

interface Conf {
  id: string
  tool: string
  status: string
  answered_via?: string
}

describe('confirmations asked in the agent’s own client (ask_in_client)', () => {
  let tmp: string
  let serve: Serve
  let log: string
  let asker: string
  let plain: string

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-ask-')
    const toolsFile = writeJson(path.join(tmp, 'tools.json'), TOOLS)
    log = path.join(tmp, 'logs', 'notes.log')
    fs.mkdirSync(path.dirname(log), { recursive: true })
    writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { notes: { ...fixtureEntry(toolsFile, log), quarantined: false, confirm: 'write', confirm_timeout_s: 20 } },
      agents: [
        { name: 'asker', servers: ['notes'], permissions: ['read', 'write'], ask_in_client: true },
        { name: 'plain', servers: ['notes'], permissions: ['read', 'write'] },
      ],
    })
    serve = await startServe({ configPath: path.join(tmp, 'mcp_config.json'), dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'notes', 'connected')
    asker = await agentToken(serve, 'asker')
    plain = await agentToken(serve, 'plain')
  }, 60_000)

  afterAll(() => stopServe(serve))

  const edits = (): number => logLines(log).filter((l) => l.tool === 'edit_notes' || l.tool === 'tag_notes').length
  const confirmation = async (id?: string): Promise<Conf> => {
    const all = (await apiRequest(serve, 'GET', '/api/v1/confirmations?status=all')).json.confirmations as Conf[]
    return id ? (all.find((c) => c.id === id) as Conf) : (all.at(-1) as Conf)
  }
  const pending = async (): Promise<Conf[]> => (await apiRequest(serve, 'GET', '/api/v1/confirmations')).json.confirmations as Conf[]

  /** One raw 2026-07-28 tools/call with `token`: the parsed JSON-RPC answer. */
  const modernCall = (
    token: string,
    id: number,
    params: Record<string, unknown>,
  ): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> => modernToolsCall(serve, token, id, params, ENVELOPE)

  it('2026-07-28: the client shows the question, the person allows, exactly that call runs (answered via the client)', async () => {
    const seen: string[] = []
    const agent = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${asker}` }, 'modern', { capabilities: { elicitation: { form: {} } } })
    agent.client.setRequestHandler('elicitation/create', async (req) => {
      seen.push(String((req.params as { message?: string }).message))
      return { action: 'accept', content: { allow: true } }
    })
    const before = edits()
    const r = await agent.call('call_tool_write', { name: 'notes:edit_notes', args: { text: 'from the client' } })
    expect(textOf(r)).not.toMatch(/CALL_DECLINED/)
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatch(/Agent "asker" wants to call notes:edit_notes/)
    expect(edits()).toBe(before + 1)
    expect(await confirmation()).toMatchObject({ tool: 'notes:edit_notes', status: 'allowed', answered_via: 'client' })
    await agent.close()
  })

  it('2026-07-28: the person declines in the client: CALL_DECLINED, nothing runs, the window has nothing left to answer', async () => {
    const agent = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${asker}` }, 'modern', { capabilities: { elicitation: { form: {} } } })
    agent.client.setRequestHandler('elicitation/create', async () => ({ action: 'decline' }))
    const before = edits()
    const r = await agent.call('call_tool_write', { name: 'notes:edit_notes', args: { text: 'no' } })
    expect(textOf(r)).toMatch(/^CALL_DECLINED/)
    expect(edits()).toBe(before)
    expect(await confirmation()).toMatchObject({ status: 'denied', answered_via: 'client' })
    expect(await pending()).toEqual([])
    await agent.close()
  })

  it('2026-07-28: the window answers first: the client’s later answer does not count', async () => {
    const first = await modernCall(asker, 1, { name: 'call_tool_write', arguments: { name: 'notes:edit_notes', args: { text: 'window first' } } })
    expect(first.result?.resultType).toBe('input_required')
    const state = first.result?.requestState as string
    const waiting = await pending()
    expect(waiting).toHaveLength(1)
    expect((await apiRequest(serve, 'POST', `/api/v1/confirmations/${waiting[0].id}/allow`)).status).toBe(200)
    const before = edits()
    const retry = await modernCall(asker, 2, {
      name: 'call_tool_write',
      arguments: { name: 'notes:edit_notes', args: { text: 'window first' } },
      inputResponses: { toolgate_confirm: { action: 'decline' } },
      requestState: state,
    })
    expect(JSON.stringify(retry.result)).not.toMatch(/CALL_DECLINED/)
    expect(edits()).toBe(before + 1)
    expect(await confirmation(waiting[0].id)).toMatchObject({ status: 'allowed', answered_via: 'api' })
  })

  it('2025: the question comes as elicitation/create; the window answers first and the question is withdrawn', async () => {
    const client = new V1Client({ name: 'old-client', version: '1' }, { capabilities: { elicitation: {} } })
    let asked = false
    // the person does not answer here: the window will
    client.setRequestHandler(ElicitRequestSchema, async (_req, extra) => {
      asked = true
      await new Promise((resolve) => extra.signal.addEventListener('abort', resolve, { once: true }))
      return { action: 'cancel' }
    })
    const transport = new V1Http(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${asker}` } } })
    await client.connect(transport)
    // what reaches the client on the wire (SDK 1.x ignores a cancellation of request id 0, the
    // first a server sends, so its handler's signal cannot tell: the wire can)
    const wire: Array<{ id?: unknown; method?: string; params?: { requestId?: unknown } }> = []
    const deliver = transport.onmessage
    transport.onmessage = (m) => {
      wire.push(m as (typeof wire)[number])
      deliver?.(m)
    }
    const before = edits()
    const call = client.callTool({ name: 'call_tool_write', arguments: { name: 'notes:tag_notes', args: { tag: 'x' } } })
    await waitFor(() => asked, 10_000, 'the elicitation/create in the client')
    const question = wire.find((m) => m.method === 'elicitation/create')
    const waiting = await pending()
    expect(waiting).toHaveLength(1)
    await apiRequest(serve, 'POST', `/api/v1/confirmations/${waiting[0].id}/allow`)
    const r = (await call) as { content: Array<{ text: string }> }
    expect(r.content[0].text).not.toMatch(/CALL_DECLINED/)
    expect(edits()).toBe(before + 1)
    expect(wire.some((m) => m.method === 'notifications/cancelled' && m.params?.requestId === question?.id)).toBe(true)
    expect(await confirmation(waiting[0].id)).toMatchObject({ status: 'allowed', answered_via: 'api' })
    await client.close()
  })

  it('2025: the person answers in the client first: the call runs, answered via the client', async () => {
    const client = new V1Client({ name: 'old-client', version: '1' }, { capabilities: { elicitation: {} } })
    client.setRequestHandler(ElicitRequestSchema, async () => ({ action: 'accept', content: { allow: true } }))
    await client.connect(new V1Http(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${asker}` } } }))
    const before = edits()
    const r = (await client.callTool({ name: 'call_tool_write', arguments: { name: 'notes:tag_notes', args: { tag: 'y' } } })) as {
      content: Array<{ text: string }>
    }
    expect(r.content[0].text).not.toMatch(/CALL_DECLINED/)
    expect(edits()).toBe(before + 1)
    expect(await confirmation()).toMatchObject({ status: 'allowed', answered_via: 'client' })
    await client.close()
  })

  it('an agent without ask_in_client is never asked in its client: the call waits for the window', async () => {
    const agent = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${plain}` }, 'modern', { capabilities: { elicitation: { form: {} } } })
    let asked = 0
    agent.client.setRequestHandler('elicitation/create', async () => {
      asked++
      return { action: 'accept', content: { allow: true } }
    })
    const call = agent.call('call_tool_write', { name: 'notes:edit_notes', args: { text: 'plain' } })
    const waiting = await waitFor(async () => (await pending())[0], 10_000, 'the confirmation in the window')
    await apiRequest(serve, 'POST', `/api/v1/confirmations/${waiting.id}/deny`)
    expect(textOf(await call)).toMatch(/^CALL_DECLINED/)
    expect(asked).toBe(0)
    await agent.close()
  })

  describe('attacks on requestState', () => {
    const ask = async (args: Record<string, unknown>, tool = 'notes:edit_notes'): Promise<string> => {
      const r = await modernCall(asker, 10, { name: 'call_tool_write', arguments: { name: tool, args } })
      expect(r.result?.resultType).toBe('input_required')
      return r.result?.requestState as string
    }
    const retry = (token: string, state: string, args: Record<string, unknown>, tool = 'notes:edit_notes', allow = true) =>
      modernCall(token, 11, {
        name: 'call_tool_write',
        arguments: { name: tool, args },
        inputResponses: { toolgate_confirm: { action: 'accept', content: { allow } } },
        requestState: state,
      })
    const text = (r: { result?: Record<string, unknown> }): string => ((r.result?.content as Array<{ text: string }> | undefined) ?? [])[0]?.text ?? ''

    it('a forged or altered requestState is refused before any handler runs (-32602); nothing runs', async () => {
      const state = await ask({ text: 'forge' })
      const before = edits()
      const flipped = state.slice(0, -3) + (state.at(-3) === 'A' ? 'B' : 'A') + state.slice(-2)
      const r = await retry(asker, flipped, { text: 'forge' })
      expect(r.error?.code).toBe(-32602)
      const made = await retry(
        asker,
        Buffer.from(JSON.stringify({ v: 1, c: 'c_x', p: 'agent:asker', t: 'notes:edit_notes', a: 'x', d: 9e15 })).toString('base64url'),
        { text: 'forge' },
      )
      expect(made.error?.code).toBe(-32602)
      expect(edits()).toBe(before)
    })

    it('replayed: the same requestState runs the call once, then is refused', async () => {
      const state = await ask({ text: 'once' })
      const before = edits()
      expect(text(await retry(asker, state, { text: 'once' }))).not.toMatch(/CALL_DECLINED/)
      expect(text(await retry(asker, state, { text: 'once' }))).toMatch(/^CALL_DECLINED: this confirmation was already used/)
      expect(edits()).toBe(before + 1)
    })

    it('another credential, other arguments or another tool with the requestState: refused, the question stays for the window', async () => {
      const state = await ask({ text: 'mine' })
      const before = edits()
      // another token of the same agent is another credential
      const other = await agentToken(serve, 'asker')
      expect(text(await retry(other, state, { text: 'mine' }))).toMatch(/^CALL_DECLINED: the answer \(requestState\) does not belong to this call/)
      expect(text(await retry(asker, state, { text: 'other' }))).toMatch(/^CALL_DECLINED/)
      expect(text(await retry(asker, state, { text: 'mine' }, 'notes:tag_notes'))).toMatch(/^CALL_DECLINED: the answer \(requestState\) does not belong/)
      expect(edits()).toBe(before)
      const still = await pending()
      expect(still.some((c) => c.tool === 'notes:edit_notes')).toBe(true)
      for (const c of still) await apiRequest(serve, 'POST', `/api/v1/confirmations/${c.id}/deny`)
    })
  })
})
