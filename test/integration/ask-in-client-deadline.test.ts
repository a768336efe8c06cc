// Two edges of asking in the agent's own client (ask_in_client). 1. A client that cannot show a
// question (it declared no elicitation) is never asked, even with the agent's switch on: the call
// waits for the window, in both eras. 2. A requestState past its deadline answers nothing. A
// 2026-07-28 agent with ask_in_client gets a
// confirmation's question as input_required with a signed requestState; the confirmation waits
// confirm_timeout_s (here 2 s). A retry that brings "allow" after that, with the genuine state of
// that very call (same credential, tool and arguments), is declined as timed out, and the upstream
// is never called. Then a fresh call is asked again (the late answer opened nothing). Real
// `toolgate serve`, raw HTTP, a fixture upstream that logs every call that reaches it.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { apiRequest, assertBuilt, fixtureEntry, logLines, startServe, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { agentToken, MODERN_ENVELOPE as ENVELOPE, modernToolsCall, type Rpc } from '../helpers/modern-http'

useCleanup()

/** a 2026-07-28 client that shows no questions */
const NO_FORMS = { ...ENVELOPE, 'io.modelcontextprotocol/clientCapabilities': {} }

describe('asking in the agent’s own client: a client without forms, and the deadline', () => {
  let serve: Serve
  let log: string
  let patientLog: string
  let asker: string

  beforeAll(async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-ask-deadline-')
    const toolsFile = writeJson(path.join(tmp, 'tools.json'), [{ name: 'edit_notes', description: 'Edit the notes', annotations: { readOnlyHint: false } }])
    log = path.join(tmp, 'logs', 'notes.log')
    patientLog = path.join(tmp, 'logs', 'patient.log')
    fs.mkdirSync(path.dirname(log), { recursive: true })
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {
        // the deadline: 2 s
        notes: { ...fixtureEntry(toolsFile, log), quarantined: false, confirm: 'write', confirm_timeout_s: 2 },
        // a question that waits long enough for the window to answer on a loaded machine
        patient: { ...fixtureEntry(toolsFile, patientLog), quarantined: false, confirm: 'write', confirm_timeout_s: 60 },
      },
      agents: [{ name: 'asker', servers: ['notes', 'patient'], permissions: ['read', 'write'], ask_in_client: true }],
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'notes', 'connected')
    asker = await agentToken(serve, 'asker')
  }, 60_000)

  afterAll(() => stopServe(serve))

  const edits = (): number => logLines(log).filter((l) => l.tool === 'edit_notes').length
  const patientEdits = (): number => logLines(patientLog).filter((l) => l.tool === 'edit_notes').length
  const call = (id: number, params: Record<string, unknown>, envelope: Record<string, unknown> = ENVELOPE): Promise<Rpc> =>
    modernToolsCall(serve, asker, id, params, envelope)
  const text = (r: Rpc): string => ((r.result?.content as Array<{ text: string }> | undefined) ?? [])[0]?.text ?? JSON.stringify(r)
  const args = { name: 'notes:edit_notes', args: { text: 'late' } }

  const pending = async (): Promise<Array<{ id: string; tool: string }>> =>
    (await apiRequest(serve, 'GET', '/api/v1/confirmations')).json.confirmations as Array<{ id: string; tool: string }>

  it('2026-07-28: a client that declared no elicitation is not asked: the call waits for the window', async () => {
    const before = patientEdits()
    const answer = call(10, { name: 'call_tool_write', arguments: { name: 'patient:edit_notes', args: { text: 'no forms' } } }, NO_FORMS)
    const waiting = await waitFor(async () => (await pending())[0], 10_000, 'the confirmation in the window')
    expect((await apiRequest(serve, 'POST', `/api/v1/confirmations/${waiting.id}/allow`)).status).toBe(200)
    const r = await answer
    expect(r.result?.resultType).not.toBe('input_required')
    expect(text(r)).not.toMatch(/CALL_DECLINED/)
    expect(patientEdits()).toBe(before + 1)
  })

  it('2025: a session whose client declared no elicitation gets no elicitation/create: the call waits for the window', async () => {
    const client = new V1Client({ name: 'no-forms', version: '1' }, { capabilities: {} })
    const transport = new V1Http(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${asker}` } } })
    await client.connect(transport)
    const wire: Array<{ method?: string }> = []
    const deliver = transport.onmessage
    transport.onmessage = (m) => {
      wire.push(m as { method?: string })
      deliver?.(m)
    }
    try {
      const before = patientEdits()
      const answer = client.callTool({ name: 'call_tool_write', arguments: { name: 'patient:edit_notes', args: { text: 'old no forms' } } })
      const waiting = await waitFor(async () => (await pending())[0], 10_000, 'the confirmation in the window')
      await apiRequest(serve, 'POST', `/api/v1/confirmations/${waiting.id}/deny`)
      const r = (await answer) as { content: Array<{ text: string }> }
      expect(r.content[0].text).toMatch(/^CALL_DECLINED/)
      expect(wire.some((m) => m.method === 'elicitation/create')).toBe(false)
      expect(patientEdits()).toBe(before)
    } finally {
      await client.close()
    }
  })

  it('an "allow" brought after the confirmation timed out is declined as timed out; nothing runs; the next call is asked again', async () => {
    const first = await call(1, { name: 'call_tool_write', arguments: args })
    expect(first.result?.resultType).toBe('input_required')
    const state = first.result?.requestState as string
    expect(typeof state).toBe('string')
    const before = edits()
    await waitFor(
      async () => {
        const all = (await apiRequest(serve, 'GET', '/api/v1/confirmations?status=all')).json.confirmations as Array<{ status: string }>
        return all.at(-1)?.status === 'timeout' || undefined
      },
      15_000,
      'the confirmation to time out',
    )
    const late = await call(2, {
      name: 'call_tool_write',
      arguments: args,
      inputResponses: { toolgate_confirm: { action: 'accept', content: { allow: true } } },
      requestState: state,
    })
    expect(text(late)).toMatch(/^CALL_DECLINED \(timeout\)/)
    expect(edits()).toBe(before)
    // the late answer opened nothing: the same call is asked again
    const again = await call(3, { name: 'call_tool_write', arguments: args })
    expect(again.result?.resultType).toBe('input_required')
    expect(again.result?.requestState).not.toBe(state)
    expect(edits()).toBe(before)
  })
})
