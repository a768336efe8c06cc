// A second caller while a first caller's question is open (a call waiting for the user's OK,
// asked in the first caller's own client too): every caller's call gets a confirmation of its
// own, bound to its agent, client, tool and arguments, and answering one settles that call only.
// Nothing is shared between callers but the limits (docs/confirmations.md). The one refusal
// between callers is a 2025 upstream's own question (docs/passthrough.md: it names no call), in
// upstream-asks.test.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport as V1Http } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js'
import { apiRequest, assertBuilt, fixtureEntry, logLines, startServe, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { agentToken, MODERN_ENVELOPE, modernToolsCall } from '../helpers/modern-http'
import { connectHttp, textOf } from '../helpers/mcp-client'

useCleanup()

interface Conf {
  id: string
  agent: string | null
  client: string | null
  tool: string
  args_text: string
  status: string
}

describe('a second caller while a first caller’s question is open', () => {
  let serve: Serve
  let log: string

  beforeAll(async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-second-caller-')
    const toolsFile = writeJson(path.join(tmp, 'tools.json'), [{ name: 'edit_notes', description: 'Edit the notes', annotations: { readOnlyHint: false } }])
    log = path.join(tmp, 'logs', 'notes.log')
    fs.mkdirSync(path.dirname(log), { recursive: true })
    writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { notes: { ...fixtureEntry(toolsFile, log), quarantined: false, confirm: 'write', confirm_timeout_s: 30 } },
      agents: [
        { name: 'asker', servers: ['notes'], permissions: ['read', 'write'], ask_in_client: true },
        { name: 'plain', servers: ['notes'], permissions: ['read', 'write'] },
      ],
    })
    serve = await startServe({ configPath: path.join(tmp, 'mcp_config.json'), dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'notes', 'connected')
  }, 60_000)

  afterAll(() => stopServe(serve))

  const pending = async (): Promise<Conf[]> => (await apiRequest(serve, 'GET', '/api/v1/confirmations')).json.confirmations as Conf[]
  const edits = (): string[] => logLines(log).map((l) => String((l.arguments as { text?: unknown } | undefined)?.text))

  /** A 2025 client of `token` that shows the question and leaves it open (the person is away). */
  const waitingClient = async (token: string, name: string): Promise<{ client: V1Client; asked: () => number }> => {
    const client = new V1Client({ name, version: '1' }, { capabilities: { elicitation: {} } })
    let asked = 0
    client.setRequestHandler(ElicitRequestSchema, async (_req, extra) => {
      asked++
      await new Promise((resolve) => extra.signal.addEventListener('abort', resolve, { once: true }))
      return { action: 'cancel' }
    })
    await client.connect(new V1Http(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } }))
    return { client, asked: () => asked }
  }

  it('the same tool with the same arguments, by another session of the same agent, another agent and a 2026-07-28 credential: each its own question', async () => {
    const asker = await agentToken(serve, 'asker')
    const asker2 = await agentToken(serve, 'asker')
    const plain = await agentToken(serve, 'plain')
    const args = { name: 'notes:edit_notes', args: { text: 'same' } }
    const first = await waitingClient(asker, 'first-client')
    const second = await waitingClient(asker2, 'second-client')
    const other = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${plain}` })
    try {
      const firstCall = first.client.callTool({ name: 'call_tool_write', arguments: args }) as Promise<{ content: Array<{ text: string }> }>
      await waitFor(() => first.asked() === 1, 10_000, "the question in the first caller's client")
      // while it is open: the same agent in another session, another agent, and a 2026-07-28 call
      const secondCall = second.client.callTool({ name: 'call_tool_write', arguments: args }) as Promise<{ content: Array<{ text: string }> }>
      const otherCall = other.call('call_tool_write', args)
      const modern = await modernToolsCall(serve, asker2, 1, { name: 'call_tool_write', arguments: args }, MODERN_ENVELOPE)
      // none refused: the 2026-07-28 call asks (input_required), the others wait, each with its own confirmation
      expect(modern.result?.resultType).toBe('input_required')
      await waitFor(() => second.asked() === 1, 10_000, "the question in the second caller's client")
      const open = await waitFor(async () => ((await pending()).length === 4 ? await pending() : undefined), 10_000, 'four confirmations')
      expect(open.map((c) => `${c.agent}/${c.client}/${c.tool}/${c.args_text}`).sort()).toEqual([
        'asker/first-client/notes:edit_notes/{"text":"same"}',
        'asker/raw-modern/notes:edit_notes/{"text":"same"}',
        'asker/second-client/notes:edit_notes/{"text":"same"}',
        'plain/toolgate-it-http/notes:edit_notes/{"text":"same"}',
      ])
      expect(new Set(open.map((c) => c.id)).size).toBe(4)
      expect(edits()).toEqual([])

      // the user allows the other agent's: exactly that call runs; the first caller's question stays open
      const plainConf = open.find((c) => c.agent === 'plain') as Conf
      expect((await apiRequest(serve, 'POST', `/api/v1/confirmations/${plainConf.id}/allow`)).status).toBe(200)
      expect(textOf(await otherCall)).not.toMatch(/CALL_DECLINED/)
      expect(edits()).toEqual(['same'])
      expect((await pending()).map((c) => c.id).sort()).toEqual(
        open
          .filter((c) => c !== plainConf)
          .map((c) => c.id)
          .sort(),
      )

      // the first caller's own answer (here: the window's deny) settles its call only
      const firstConf = open.find((c) => c.client === 'first-client') as Conf
      await apiRequest(serve, 'POST', `/api/v1/confirmations/${firstConf.id}/deny`)
      expect((await firstCall).content[0].text).toMatch(/^CALL_DECLINED/)
      expect((await pending()).map((c) => c.client).sort()).toEqual(['raw-modern', 'second-client'])
      for (const c of await pending()) await apiRequest(serve, 'POST', `/api/v1/confirmations/${c.id}/deny`)
      expect((await secondCall).content[0].text).toMatch(/^CALL_DECLINED/)
      expect(edits()).toEqual(['same'])
    } finally {
      await first.client.close()
      await second.client.close()
      await other.close()
    }
  }, 60_000)
})
