// Round three attacks on confirmations through the direct view (issues 26 and 27), from outside:
// a real `toolgate serve`, a fixture upstream whose write calls need the user's OK (confirm:
// write) and that logs every call it gets. A call by `<server>__<tool>` or by the tool's own name
// on POST /mcp/direct must wait for the user like call_tool_write does (no skipping the
// confirmation); an agent asked in its client (ask_in_client) cannot carry the answer
// (requestState) of one call over to another tool, another credential or another agent, whether
// the question was asked on /mcp or on /mcp/direct.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiRequest, assertBuilt, fixtureEntry, logLines, startServe, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { agentToken, MODERN_ENVELOPE as ENVELOPE, modernToolsCall } from '../helpers/modern-http'
import { textOf } from '../helpers/mcp-client'
import { connectHttpV2, type Era } from '../helpers/mcp-v2-client'

useCleanup()

const TOOLS = [
  { name: 'edit_notes', description: 'Edit the notes', annotations: { readOnlyHint: false } },
  { name: 'tag_notes', description: 'Tag the notes', annotations: { readOnlyHint: false } },
]

interface Conf {
  id: string
  tool: string
  status: string
}

describe('attack: confirmations through the direct view', () => {
  let serve: Serve
  let log: string
  const token: Record<string, string> = {}

  beforeAll(async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-attack-r3-confirm-')
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
    for (const name of ['asker', 'plain']) token[name] = await agentToken(serve, name)
  }, 60_000)

  afterAll(() => stopServe(serve))

  const edits = (): number => (fs.existsSync(log) ? logLines(log).filter((l) => l.tool === 'edit_notes' || l.tool === 'tag_notes').length : 0)
  const pending = async (): Promise<Conf[]> => (await apiRequest(serve, 'GET', '/api/v1/confirmations')).json.confirmations as Conf[]

  const modernCall = (
    endpoint: '/mcp' | '/mcp/direct',
    who: string,
    id: number,
    params: Record<string, unknown>,
  ): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> => modernToolsCall(serve, who, id, params, ENVELOPE, endpoint)
  const said = (r: { result?: Record<string, unknown>; error?: { message: string } }): string =>
    r.error ? `error ${r.error.message}` : (((r.result?.content as Array<{ text: string }> | undefined) ?? [])[0]?.text ?? JSON.stringify(r.result))

  it.each<[Era, string]>([
    ['legacy', 'notes__edit_notes'],
    ['modern', 'notes__edit_notes'],
    ['legacy', 'edit_notes'],
    ['modern', 'edit_notes'],
  ])('%s: a direct call by %s waits for the user; denied, nothing runs', async (era, name) => {
    const agent = await connectHttpV2(`${serve.url}/mcp/direct`, { authorization: `Bearer ${token.plain}` }, era)
    try {
      const before = edits()
      const call = agent.call(name, { text: `direct ${era}` })
      const conf = await waitFor(async () => (await pending()).find((c) => c.tool === 'notes:edit_notes'), 15_000, 'the confirmation to wait')
      expect(edits()).toBe(before)
      expect((await apiRequest(serve, 'POST', `/api/v1/confirmations/${conf.id}/deny`)).status).toBe(200)
      const r = await call
      expect(r.isError).toBe(true)
      expect(textOf(r)).toMatch(/CALL_DECLINED/)
      expect(edits()).toBe(before)
    } finally {
      await agent.close()
    }
  })

  it('ask_in_client: the answer of one call counts for no other tool, credential or agent, across /mcp and /mcp/direct', { timeout: 90_000 }, async () => {
    for (const [asked, retried] of [
      ['/mcp/direct', '/mcp/direct'],
      ['/mcp', '/mcp/direct'],
      ['/mcp/direct', '/mcp'],
    ] as const) {
      const before = edits()
      const first =
        asked === '/mcp/direct'
          ? await modernCall(asked, token.asker, 1, { name: 'notes__edit_notes', arguments: { text: 'mine' } })
          : await modernCall(asked, token.asker, 1, { name: 'call_tool_write', arguments: { name: 'notes:edit_notes', args: { text: 'mine' } } })
      expect(first.result?.resultType, JSON.stringify(first)).toBe('input_required')
      const state = first.result?.requestState as string
      const answer = { inputResponses: { toolgate_confirm: { action: 'accept', content: { allow: true } } }, requestState: state }
      const tries =
        retried === '/mcp/direct'
          ? [
              [token.asker, { name: 'notes__tag_notes', arguments: { text: 'mine' }, ...answer }],
              [token.asker, { name: 'tag_notes', arguments: { text: 'mine' }, ...answer }],
              [token.asker, { name: 'notes__edit_notes', arguments: { text: 'other' }, ...answer }],
              [token.plain, { name: 'notes__edit_notes', arguments: { text: 'mine' }, ...answer }],
            ]
          : [
              [token.asker, { name: 'call_tool_write', arguments: { name: 'notes:tag_notes', args: { text: 'mine' } }, ...answer }],
              [token.plain, { name: 'call_tool_write', arguments: { name: 'notes:edit_notes', args: { text: 'mine' } }, ...answer }],
            ]
      // a try that became a fresh question for the window waits there: the window denies all of them
      let done = false
      const all = Promise.all(tries.map(([who, params], i) => modernCall(retried, who as string, 2 + i, params as Record<string, unknown>))).finally(
        () => (done = true),
      )
      while (!done) {
        for (const c of await pending()) await apiRequest(serve, 'POST', `/api/v1/confirmations/${c.id}/deny`)
        await new Promise((r) => setTimeout(r, 100))
      }
      for (const [i, r] of (await all).entries()) {
        // refused: an error, a declined call, or a fresh question of its own; never a run
        expect(said(r), `${asked} → ${retried} ${JSON.stringify(tries[i][1]).slice(0, 80)}`).not.toMatch(/"tool":\s*"(edit|tag)_notes"/)
      }
      expect(edits(), `${asked} → ${retried}`).toBe(before)
      for (const c of await pending()) await apiRequest(serve, 'POST', `/api/v1/confirmations/${c.id}/deny`)
    }
  })
})
