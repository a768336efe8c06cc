// Ask in the agent's client, through the stdio bridge: a 2025 client of `toolgate stdio` bridged to a
// running owner is asked in its client (the owner's elicitation/create travels over the bridge,
// the client's answer back). A real `toolgate serve` with a fixture upstream whose write calls
// need the user's OK. And the attacks on the way back: an answer to an id the client was not
// sent, another agent answering the question of this agent's call (through its own bridge and
// straight over HTTP with the owner's id), a stale answer after the window answered.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
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
  rawRequest,
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

useCleanup()

type Msg = { jsonrpc?: string; id?: unknown; method?: string; params?: Record<string, unknown>; result?: Record<string, unknown>; error?: unknown }
interface Conf {
  id: string
  tool: string
  agent: string | null
  status: string
  answered_via?: string
}

/** `toolgate stdio` played line by line: every message it writes, and raw writes to it. */
function lineClient(args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [BIN, 'stdio', ...args], { env: cliEnv(), cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] })
  track(child.pid)
  const got: Msg[] = []
  readline.createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (l) => {
    if (l.trim()) got.push(JSON.parse(l) as Msg)
  })
  let n = 0
  const write = (m: Msg): void => void child.stdin?.write(`${JSON.stringify({ jsonrpc: '2.0', ...m })}\n`)
  const request = async (method: string, params: Record<string, unknown> = {}, timeoutMs = 30_000): Promise<Msg> => {
    const id = `r${++n}`
    write({ id, method, params })
    return waitFor(() => got.find((m) => m.id === id && !('method' in m)), timeoutMs, `the answer to ${method}`)
  }
  return {
    child,
    got,
    write,
    request,
    start: async (name: string): Promise<void> => {
      await request('initialize', { protocolVersion: '2025-11-25', capabilities: { elicitation: { form: {} } }, clientInfo: { name, version: '1' } }, 60_000)
      write({ method: 'notifications/initialized' })
    },
    /** the questions the owner asked this client */
    asked: (): Msg[] => got.filter((m) => m.method === 'elicitation/create' && m.id !== undefined),
    close: async (): Promise<void> => {
      child.stdin?.end()
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)))
    },
  }
}

describe('a 2025 client bridged to a running owner is asked in its client', () => {
  let tmp: string
  let serve: Serve
  let log: string
  let otherToken: string
  let askerToken: string

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-ask-bridge-')
    const toolsFile = writeJson(path.join(tmp, 'tools.json'), [
      { name: 'read_notes', description: 'Read the notes', annotations: { readOnlyHint: true } },
      { name: 'edit_notes', description: 'Edit the notes', annotations: { readOnlyHint: false } },
    ])
    log = path.join(tmp, 'logs', 'notes.log')
    fs.mkdirSync(path.dirname(log), { recursive: true })
    writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { notes: { ...fixtureEntry(toolsFile, log), quarantined: false, confirm: 'write', confirm_timeout_s: 30 } },
      agents: [
        { name: 'asker', servers: ['notes'], permissions: ['read', 'write'], ask_in_client: true },
        { name: 'other', servers: ['notes'], permissions: ['read', 'write'], ask_in_client: true },
      ],
    })
    serve = await startServe({ configPath: path.join(tmp, 'mcp_config.json'), dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'notes', 'connected')
    askerToken = (await runCli(['agents', 'token', 'asker', ...serve.flags])).stdout.trim().split('\n')[0].trim()
    otherToken = (await runCli(['agents', 'token', 'other', ...serve.flags])).stdout.trim().split('\n')[0].trim()
  }, 60_000)

  afterAll(() => stopServe(serve))

  const edits = (): number => logLines(log).filter((l) => l.tool === 'edit_notes').length
  const all = async (): Promise<Conf[]> => (await apiRequest(serve, 'GET', '/api/v1/confirmations?status=all')).json.confirmations as Conf[]
  const pending = async (): Promise<Conf[]> => (await apiRequest(serve, 'GET', '/api/v1/confirmations')).json.confirmations as Conf[]
  const bridgeArgs = (agent: string): string[] => [...serve.flags, '--agent', agent]

  it('the SDK client over the bridge: the question arrives, the person allows, exactly that call runs (answered via the client)', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'stdio', ...bridgeArgs('asker')],
      env: cliEnv() as Record<string, string>,
      cwd: ROOT,
      stderr: 'pipe',
    })
    const client = new V1Client({ name: 'bridged-old-client', version: '1' }, { capabilities: { elicitation: {} } })
    const seen: string[] = []
    client.setRequestHandler(ElicitRequestSchema, async (req) => {
      seen.push(req.params.message)
      return { action: 'accept', content: { allow: true } }
    })
    await client.connect(transport, { timeout: 60_000 })
    track(transport.pid ?? undefined)
    // a bridge, not an owner: the serve process owns the data dir
    expect(JSON.parse(fs.readFileSync(path.join(serve.dataDir, 'instance.json'), 'utf8')).pid).toBe(serve.pid)
    const before = edits()
    const r = (await client.callTool({ name: 'call_tool_write', arguments: { name: 'notes:edit_notes', args: { text: 'over the bridge' } } }, undefined, {
      timeout: 30_000,
    })) as { content: Array<{ text: string }> }
    expect(r.content[0].text).not.toMatch(/CALL_DECLINED/)
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatch(/Agent "asker" wants to call notes:edit_notes/)
    expect(edits()).toBe(before + 1)
    expect((await all()).at(-1)).toMatchObject({ tool: 'notes:edit_notes', agent: 'asker', status: 'allowed', answered_via: 'client' })
    await client.close()
  })

  it('the window denies first: the question is withdrawn in the client under its id; the client’s stale Allow runs nothing', async () => {
    const c = lineClient(bridgeArgs('asker'))
    await c.start('line-client')
    const before = edits()
    c.write({ id: 'call', method: 'tools/call', params: { name: 'call_tool_write', arguments: { name: 'notes:edit_notes', args: { text: 'window first' } } } })
    const q = await waitFor(() => c.asked()[0], 15_000, 'the question in the client')
    const [waiting] = await pending()
    expect((await apiRequest(serve, 'POST', `/api/v1/confirmations/${waiting.id}/deny`)).status).toBe(200)
    const answer = await waitFor(() => c.got.find((m) => m.id === 'call' && !('method' in m)), 15_000, 'the call’s answer')
    expect(JSON.stringify(answer.result)).toMatch(/CALL_DECLINED/)
    await waitFor(() => c.got.find((m) => m.method === 'notifications/cancelled' && m.params?.requestId === q.id), 5000, 'the withdrawal in the client')
    // too late: the window answered
    c.write({ id: q.id, result: { action: 'accept', content: { allow: true } } })
    await c.request('ping')
    expect(edits()).toBe(before)
    expect((await all()).find((x) => x.id === waiting.id)).toMatchObject({ status: 'denied', answered_via: 'api' })
    await c.close()
  })

  describe('attacks', () => {
    /** asker's call waits with its question in asker's own HTTP session; `id` is the owner's id of that question */
    const askerWaits = async (text: string) => {
      const client = new V1Client({ name: 'asker-http', version: '1' }, { capabilities: { elicitation: {} } })
      // the person at asker's client does not answer: only the window (or an attacker) could
      client.setRequestHandler(ElicitRequestSchema, async (_req, extra) => {
        await new Promise((resolve) => extra.signal.addEventListener('abort', resolve, { once: true }))
        return { action: 'cancel' }
      })
      const transport = new V1Http(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${askerToken}` } } })
      await client.connect(transport)
      const wire: Msg[] = []
      const deliver = transport.onmessage
      transport.onmessage = (m) => {
        wire.push(m as Msg)
        deliver?.(m)
      }
      const call = client.callTool({ name: 'call_tool_write', arguments: { name: 'notes:edit_notes', args: { text } } }, undefined, { timeout: 60_000 })
      const q = await waitFor(() => wire.find((m) => m.method === 'elicitation/create'), 15_000, 'asker’s question')
      const conf = await waitFor(async () => (await pending()).find((c) => c.agent === 'asker'), 5000, 'asker’s confirmation')
      return { client, transport, call, id: q.id as number, conf }
    }

    it('another agent answering the question of this agent’s call (its own bridge guessing ids, its own HTTP session with the owner’s id, asker’s session with its token): nothing counts', async () => {
      const a = await askerWaits('not yours')
      const before = edits()
      const allow = { action: 'accept', content: { allow: true } }

      // through its own bridge: ids it was never sent, the owner's id included
      const b = lineClient(bridgeArgs('other'))
      await b.start('other-line')
      for (const id of [0, 1, 2, 3, a.id, String(a.id)]) b.write({ id, result: allow })
      await b.request('ping')

      // straight at the owner, in its own 2025 session, with the owner's id of asker's question
      const headers = { authorization: `Bearer ${otherToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
      const init = await rawRequest(`${serve.url}/mcp`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'x', version: '1' } },
        }),
      })
      const sid = String(init.headers['mcp-session-id'])
      const inSession = { ...headers, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' }
      await rawRequest(`${serve.url}/mcp`, {
        method: 'POST',
        headers: inSession,
        body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
      })
      await rawRequest(`${serve.url}/mcp`, { method: 'POST', headers: inSession, body: JSON.stringify({ jsonrpc: '2.0', id: a.id, result: allow }) })
      // into asker's session with its own token: refused
      const into = await rawRequest(`${serve.url}/mcp`, {
        method: 'POST',
        headers: { ...headers, 'mcp-session-id': String(a.transport.sessionId), 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: a.id, result: allow }),
      })
      expect(into.status).toBe(403)

      expect((await pending()).map((c) => c.id)).toContain(a.conf.id)
      expect(edits()).toBe(before)
      await apiRequest(serve, 'POST', `/api/v1/confirmations/${a.conf.id}/deny`)
      const r = (await a.call) as { content: Array<{ text: string }> }
      expect(r.content[0].text).toMatch(/^CALL_DECLINED/)
      expect(edits()).toBe(before)
      expect((await all()).find((c) => c.id === a.conf.id)).toMatchObject({ status: 'denied', answered_via: 'api' })
      await b.close()
      await a.client.close()
    })
  })
})
