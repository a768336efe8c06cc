// The per-agent switch "ask in its own client", from outside. A real
// `toolgate serve` with an organisation policy (TOOLGATE_POLICY) and a fixture upstream whose write
// calls need the user's OK. Off by default; the user turns it on with the CLI or the control API
// (the window's test is renderer-ask-in-client); the operator's config locks it; the organisation's
// policy forbids it (for some agents, then, live, for all). And the attacks: an agent's own token
// cannot switch it, a question outstanding when the switch goes off is not answered by the client,
// and another agent cannot answer with this agent's requestState.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import {
  apiRequest,
  assertBuilt,
  fixtureEntry,
  logLines,
  rawRequest,
  runCli,
  startServe,
  tempDir,
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

const TOOLS = [{ name: 'edit_notes', description: 'Edit the notes', annotations: { readOnlyHint: false } }]

interface Switch {
  on: boolean
  source: string
  locked: boolean
  note?: string
}

describe('the ask_in_client switch on a live serve', () => {
  let tmp: string
  let serve: Serve
  let log: string
  let policyFile: string
  const token: Record<string, string> = {}

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-ask-switch-')
    const toolsFile = writeJson(path.join(tmp, 'tools.json'), TOOLS)
    log = path.join(tmp, 'logs', 'notes.log')
    fs.mkdirSync(path.dirname(log), { recursive: true })
    // the organisation lets three agents be asked in their client; "barred" is not among them
    policyFile = writeJson(path.join(tmp, 'org', 'policy.json'), { ask_in_client: ['asker', 'other', 'fixed'] })
    const agent = (name: string, extra: Record<string, unknown> = {}) => ({ name, servers: ['notes'], permissions: ['read', 'write'], ...extra })
    writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { notes: { ...fixtureEntry(toolsFile, log), quarantined: false, confirm: 'write', confirm_timeout_s: 30 } },
      agents: [agent('asker'), agent('other'), agent('fixed', { ask_in_client: false }), agent('barred', { ask_in_client: true })],
    })
    serve = await startServe({ configPath: path.join(tmp, 'mcp_config.json'), dataDir: path.join(tmp, 'data'), env: { TOOLGATE_POLICY: policyFile } })
    await waitForServerState(serve, 'notes', 'connected')
    for (const name of ['asker', 'other', 'fixed', 'barred']) token[name] = await agentToken(serve, name)
  }, 60_000)

  afterAll(() => stopServe(serve))

  const edits = (): number => logLines(log).filter((l) => l.tool === 'edit_notes').length
  const pending = async (): Promise<Array<{ id: string; agent: string | null }>> => (await apiRequest(serve, 'GET', '/api/v1/confirmations')).json.confirmations
  const switchOf = async (name: string): Promise<Switch> => {
    const r = await runCli(['agents', 'list', '--json', ...serve.flags])
    expect(r.code).toBe(0)
    return (JSON.parse(r.stdout) as { agents: Array<{ name: string; kind: string; ask_in_client: Switch }> }).agents.find(
      (a) => a.kind === 'agent' && a.name === name,
    )?.ask_in_client as Switch
  }
  /** One raw 2026-07-28 tools/call with an agent's token: the parsed JSON-RPC answer. */
  const modernCall = (who: string, params: Record<string, unknown>): Promise<{ result?: Record<string, unknown>; error?: { code: number } }> =>
    modernToolsCall(serve, who, 7, params, ENVELOPE)
  const edit = (text: string) => ({ name: 'call_tool_write', arguments: { name: 'notes:edit_notes', args: { text } } })
  const resultText = (r: { result?: Record<string, unknown> }): string => ((r.result?.content as Array<{ text: string }> | undefined) ?? [])[0]?.text ?? ''
  /** A call that waits for the window (not asked in the client): deny it there and see it declined. */
  const waitsForWindow = async (who: string, text: string): Promise<void> => {
    const call = modernCall(token[who], edit(text))
    const waiting = await waitFor(async () => (await pending()).find((c) => c.agent === who), 10_000, `${who}'s confirmation in the window`)
    expect((await apiRequest(serve, 'POST', `/api/v1/confirmations/${waiting.id}/deny`)).status).toBe(200)
    const r = await call
    expect(r.result?.resultType).not.toBe('input_required')
    expect(resultText(r)).toMatch(/^CALL_DECLINED/)
  }

  it('is off by default: a client that shows questions is not asked, the call waits for the window', async () => {
    expect(await switchOf('asker')).toEqual({ on: false, source: 'default', locked: false })
    await waitsForWindow('asker', 'default')
  })

  it('an agent cannot switch it on for itself: its token opens no control API, its tools have no such switch', async () => {
    for (const who of [token.asker, token.barred]) {
      const r = await rawRequest(`${serve.url}/api/v1/agents/asker/ask-in-client`, {
        method: 'POST',
        headers: { authorization: `Bearer ${who}`, 'content-type': 'application/json' },
        body: JSON.stringify({ on: true }),
      })
      expect(r.status).toBe(403)
    }
    const agent = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${token.asker}` }, 'modern')
    const names = (await agent.client.listTools()).tools.map((t) => t.name)
    expect(names.filter((n) => /ask|client|agent/i.test(n))).toEqual([])
    await agent.close()
    expect(await switchOf('asker')).toMatchObject({ on: false, source: 'default' })
  })

  it('the user turns it on (CLI): the next call asks in the 2026-07-28 client, the person allows, exactly that call runs', async () => {
    const set = await runCli(['agents', 'ask-in-client', 'asker', 'on', ...serve.flags])
    expect(set.code).toBe(0)
    expect(set.stdout).toMatch(/agent "asker"/)
    expect(await switchOf('asker')).toEqual({ on: true, source: 'user', locked: false })
    const agent = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${token.asker}` }, 'modern', { capabilities: { elicitation: { form: {} } } })
    const seen: string[] = []
    agent.client.setRequestHandler('elicitation/create', async (req) => {
      seen.push(String((req.params as { message?: string }).message))
      return { action: 'accept', content: { allow: true } }
    })
    const before = edits()
    const r = await agent.call('call_tool_write', { name: 'notes:edit_notes', args: { text: 'switched on' } })
    expect(textOf(r)).not.toMatch(/CALL_DECLINED/)
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatch(/Agent "asker" wants to call notes:edit_notes/)
    expect(edits()).toBe(before + 1)
    await agent.close()
  })

  it('…and a 2025 client is asked by elicitation/create', async () => {
    const client = new V1Client({ name: 'old-client', version: '1' }, { capabilities: { elicitation: {} } })
    let asked = 0
    client.setRequestHandler(ElicitRequestSchema, async () => {
      asked++
      return { action: 'accept', content: { allow: true } }
    })
    await client.connect(new V1Http(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token.asker}` } } }))
    const before = edits()
    const r = (await client.callTool(edit('old client'))) as { content: Array<{ text: string }> }
    expect(r.content[0].text).not.toMatch(/CALL_DECLINED/)
    expect(asked).toBe(1)
    expect(edits()).toBe(before + 1)
    await client.close()
  })

  it("another agent cannot answer with this agent's requestState, even with its own switch on", async () => {
    expect((await apiRequest(serve, 'POST', '/api/v1/agents/other/ask-in-client', { on: true })).status).toBe(200)
    const asked = await modernCall(token.asker, edit('mine'))
    expect(asked.result?.resultType).toBe('input_required')
    const state = asked.result?.requestState as string
    const before = edits()
    const r = await modernCall(token.other, {
      ...edit('mine'),
      inputResponses: { toolgate_confirm: { action: 'accept', content: { allow: true } } },
      requestState: state,
    })
    expect(resultText(r)).toMatch(/^CALL_DECLINED: the answer \(requestState\) does not belong to this call/)
    expect(edits()).toBe(before)
    // asker's question still waits for the window
    const still = (await pending()).filter((c) => c.agent === 'asker')
    expect(still).toHaveLength(1)
    await apiRequest(serve, 'POST', `/api/v1/confirmations/${still[0].id}/deny`)
  })

  it('switched off while a question is out: the client’s answer no longer counts, the same question waits for the window', async () => {
    const asked = await modernCall(token.asker, edit('late'))
    expect(asked.result?.resultType).toBe('input_required')
    const set = await runCli(['agents', 'ask-in-client', 'asker', 'off', ...serve.flags])
    expect(set.code).toBe(0)
    const first = (await pending()).filter((c) => c.agent === 'asker')
    expect(first).toHaveLength(1)
    const before = edits()
    let done = false
    const retry = modernCall(token.asker, {
      ...edit('late'),
      inputResponses: { toolgate_confirm: { action: 'accept', content: { allow: true } } },
      requestState: asked.result?.requestState,
    }).finally(() => (done = true))
    // the client's "allow" counted for nothing: the retry waits, the one question still pending, no second card
    await new Promise((resolve) => setTimeout(resolve, 1500))
    expect(done).toBe(false)
    expect((await pending()).filter((c) => c.agent === 'asker').map((c) => c.id)).toEqual([first[0].id])
    expect(edits()).toBe(before)
    expect((await apiRequest(serve, 'POST', `/api/v1/confirmations/${first[0].id}/deny`)).status).toBe(200)
    expect(resultText(await retry)).toMatch(/^CALL_DECLINED/)
    expect(edits()).toBe(before)
  })

  it("the operator's config locks it: the switch shows who decides, setting it is refused (409)", async () => {
    expect(await switchOf('fixed')).toMatchObject({ on: false, source: 'config', locked: true, note: expect.stringMatching(/mcp_config\.json/) })
    const r = await apiRequest(serve, 'POST', '/api/v1/agents/fixed/ask-in-client', { on: true })
    expect(r.status).toBe(409)
    expect(r.json.error.code).toBe('ask_in_client_locked')
    const cli = await runCli(['agents', 'ask-in-client', 'fixed', 'on', ...serve.flags])
    expect(cli.code).not.toBe(0)
    expect(cli.stderr).toMatch(/operator/)
    await waitsForWindow('fixed', 'locked off')
  })

  it('the organisation forbids it: off and locked whatever the config says; a policy change applies live to every agent', async () => {
    expect(await switchOf('barred')).toMatchObject({ on: false, source: 'organisation', locked: true, note: expect.stringMatching(/set by your organisation/) })
    const r = await apiRequest(serve, 'POST', '/api/v1/agents/barred/ask-in-client', { on: true })
    expect(r.status).toBe(409)
    expect(r.json.error.message).toMatch(/set by your organisation/)
    await waitsForWindow('barred', 'config says yes')

    expect((await apiRequest(serve, 'POST', '/api/v1/agents/asker/ask-in-client', { on: true })).status).toBe(200)
    writeJson(policyFile, { ask_in_client: false })
    await waitFor(async () => (await switchOf('asker')).source === 'organisation', 10_000, 'the policy change')
    expect(await switchOf('asker')).toMatchObject({ on: false, locked: true })
    await waitsForWindow('asker', 'organisation says no')
    // the user's own choice is kept for when the organisation allows it again
    writeJson(policyFile, {})
    await waitFor(async () => (await switchOf('asker')).source === 'user', 10_000, 'the policy change back')
    expect((await switchOf('asker')).on).toBe(true)
  })
})
