// Confirmation and the agent's own request timeout, from outside: a real `toolgate serve`
// with a fixture upstream that logs every call reaching it; MCP SDK clients over Streamable HTTP
// and through a `toolgate stdio` bridge to that owner. A client that sent a progressToken and
// resets its timeout on progress keeps waiting past that timeout (the user allows late and the
// call runs); a call without a progressToken hears no progress at all; a client that gives up
// (its timeout fires, the SDK sends notifications/cancelled) withdraws its question: it leaves
// the queue, activity says cancelled, no more progress follows, and the upstream is never called;
// so does an HTTP client whose connection drops without a word.
import path from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import type { JSONRPCMessage, Progress } from '@modelcontextprotocol/sdk/types.js'
import { assertBuilt, fixtureEntry, logLines, startServe, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, connectStdio, textOf, type McpHandle, type ToolResult } from '../helpers/mcp-client'

useCleanup()

interface Conf {
  id: string
  status: string
  args_text: string
  args_hmac: string
}
interface CallEvent {
  kind: string
  tool?: string
  outcome?: string
  args_hmac?: string
  error?: string
}

/** The client's request timeout: shorter than the confirmation wait, longer than Toolgate's progress interval (5 s). */
const CLIENT_TIMEOUT_MS = 8000
/** The client that gives up: its timeout fires while the user has not answered yet. */
const GIVE_UP_MS = 2000

/** Every notifications/progress a client receives (when), and the progressToken of each call it sent (by its text). */
function watch(h: McpHandle) {
  const transport = h.client.transport
  if (!transport) throw new Error('client not connected')
  const progress: Array<{ token: unknown; at: number }> = []
  const tokenOf = new Map<string, unknown>()
  const onmessage = transport.onmessage
  transport.onmessage = (m: JSONRPCMessage, extra?: unknown) => {
    if ('method' in m && m.method === 'notifications/progress')
      progress.push({ token: (m.params as { progressToken?: unknown }).progressToken, at: Date.now() })
    ;(onmessage as (m: JSONRPCMessage, extra?: unknown) => void)?.(m, extra)
  }
  const send = transport.send.bind(transport)
  transport.send = (m, opts) => {
    if ('method' in m && m.method === 'tools/call') {
      const p = m.params as { arguments?: { args?: { text?: string } }; _meta?: { progressToken?: unknown } }
      const text = p.arguments?.args?.text
      if (text) tokenOf.set(text, p._meta?.progressToken)
    }
    return send(m, opts)
  }
  return { progress, tokenOf }
}

describe('a call waiting for confirmation and the client’s request timeout', () => {
  let serve: Serve
  let tmp: string
  const handles: Record<string, McpHandle> = {}
  const log = () => logLines(path.join(tmp, 'notes.log'))
  const list = async (q = '') => (await serve.api<{ confirmations: Conf[] }>('GET', `/api/v1/confirmations${q}`)).json.confirmations
  const post = async (p: string) =>
    (await fetch(serve.url + p, { method: 'POST', headers: { authorization: `Bearer ${serve.key}`, 'content-type': 'application/json' }, body: '{}' })).status
  const waiting = (text: string) =>
    waitFor(async () => (await list()).find((c) => c.args_text === JSON.stringify({ text })), 20_000, `the confirmation of ${text}`)
  const calls = async (outcome: string) => (await serve.api<{ events: CallEvent[] }>('GET', `/api/v1/activity?kind=call&outcome=${outcome}`)).json.events

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-confirm-progress-')
    const tools = writeJson(path.join(tmp, 'tools.json'), [{ name: 'edit_notes', description: 'Edit the notes', annotations: { readOnlyHint: false } }])
    const dataDir = path.join(tmp, 'data')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      agents: [{ name: 'editor', servers: '*', permissions: ['read', 'write'] }],
      // the wait is far longer than the clients' timeouts below
      mcpServers: { notes: fixtureEntry(tools, path.join(tmp, 'notes.log'), { quarantined: false, confirm: 'write', confirm_timeout_s: 60 }) },
    })
    // the key lives in the data dir, so the stdio bridge finds it as on a real machine
    serve = await startServe({ configPath, dataDir, key: null })
    await waitForServerState(serve, 'notes', 'connected')
    handles.http = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}`, 'x-toolgate-agent': 'editor' })
    handles['stdio bridge'] = await connectStdio(['--config', configPath, '--data-dir', dataDir, '--agent', 'editor'])
  }, 90_000)

  // a failed run leaves nothing waiting for the next one
  afterEach(async () => {
    for (const c of await list()) await post(`/api/v1/confirmations/${c.id}/deny`)
  })

  afterAll(async () => {
    for (const h of Object.values(handles)) await h.close().catch(() => {})
    await stopServe(serve)
  })

  for (const via of ['http', 'stdio bridge']) {
    it(`${via}: progress keeps a client waiting past its own timeout until the user allows; no token, no progress; a client that gives up withdraws its question`, async () => {
      const h = handles[via]
      const seen = watch(h)
      const tag = via.replace(' ', '-')
      const [late, quiet, givesUp] = [`late-${tag}`, `quiet-${tag}`, `gives-up-${tag}`]
      // the result, or the error it failed with (never an unhandled rejection)
      const call = (text: string, opts: Parameters<typeof h.client.callTool>[2]) =>
        (h.client.callTool({ name: 'call_tool_write', arguments: { name: 'notes:edit_notes', args: { text } } }, undefined, opts) as Promise<ToolResult>).catch(
          (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
        )
      const result = async (p: Promise<ToolResult | Error>): Promise<ToolResult> => {
        const r = await p
        if (r instanceof Error) throw r
        return r
      }
      const mine = () => log().filter((l) => String(l.arguments.text).endsWith(tag))
      const started = Date.now()

      // B: progress with resetTimeoutOnProgress and a timeout far below the 60 s wait
      const heard: Progress[] = []
      const waitsLong = call(late, { onprogress: (p) => heard.push(p), resetTimeoutOnProgress: true, timeout: CLIENT_TIMEOUT_MS })
      // C: no onprogress, so no progressToken; a timeout long enough to outlast the test
      const quietCall = call(quiet, { timeout: 60_000 })
      // A: asks for progress but does not reset its timeout: it gives up and the SDK sends notifications/cancelled
      const givingUp = call(givesUp, { onprogress: () => {}, timeout: GIVE_UP_MS })
      const [cB, cC, cA] = [await waiting(late), await waiting(quiet), await waiting(givesUp)]

      // A gave up: its question leaves the queue at once, the user can no longer allow it
      expect(String(await givingUp)).toMatch(/Request timed out/)
      await waitFor(async () => !(await list()).some((c) => c.id === cA.id), 10_000, 'the abandoned confirmation to leave the queue')
      const withdrawnAt = Date.now()
      expect((await list('?status=cancelled')).find((c) => c.id === cA.id)).toBeDefined()
      expect(await post(`/api/v1/confirmations/${cA.id}/allow`)).toBe(409)
      const cancelled = (await calls('cancelled')).find((e) => e.args_hmac === cA.args_hmac)
      expect(cancelled).toMatchObject({ tool: 'notes:edit_notes', outcome: 'cancelled' })
      expect(cancelled?.error).toMatch(/cancelled before the user answered; it was not run/)

      // B outlives its own timeout: the user answers only after it would have fired
      await waitFor(() => Date.now() - started > CLIENT_TIMEOUT_MS + 1000, 30_000, 'the client timeout to pass')
      expect(mine()).toEqual([])
      expect((await list()).find((c) => c.id === cB.id)?.status, 'B still waits after its client timeout').toBe('pending')
      expect((await list()).map((c) => c.id).sort()).toEqual([cB.id, cC.id].sort())
      expect(await post(`/api/v1/confirmations/${cB.id}/allow`)).toBe(200)
      const r = await result(waitsLong)
      expect(r.isError, textOf(r)).toBeFalsy()
      expect(mine()).toEqual([{ tool: 'edit_notes', arguments: { text: late } }])

      // what B heard: at once and then every few seconds, the time left counting down, progress rising
      expect(heard.length).toBeGreaterThanOrEqual(2)
      for (const p of heard) {
        expect(p.total).toBe(60)
        expect(p.message).toMatch(
          /^Waiting for the user to allow or deny this call of notes:edit_notes in Toolgate \(\d+ s left\); it runs only if they allow it\.$/,
        )
      }
      const left = heard.map((p) => Number(/\((\d+) s left\)/.exec(p.message ?? '')?.[1]))
      for (let i = 1; i < heard.length; i++) {
        expect(heard[i].progress).toBeGreaterThan(heard[i - 1].progress)
        expect(left[i]).toBeLessThan(left[i - 1])
      }

      // C waited as long and heard nothing; A heard nothing after it gave up
      expect(await post(`/api/v1/confirmations/${cC.id}/deny`)).toBe(200)
      expect(textOf(await result(quietCall))).toMatch(/^CALL_DECLINED: the user declined this call of notes:edit_notes/)
      const tokens = { A: seen.tokenOf.get(givesUp), B: seen.tokenOf.get(late), C: seen.tokenOf.get(quiet) }
      expect(tokens.C).toBeUndefined()
      expect(tokens.A).toBeDefined()
      expect(seen.progress.filter((p) => p.token !== tokens.A && p.token !== tokens.B)).toEqual([])
      expect(seen.progress.filter((p) => p.token === tokens.B)).toHaveLength(heard.length)
      expect(seen.progress.filter((p) => p.token === tokens.A && p.at > withdrawnAt)).toEqual([])
      expect(seen.progress.filter((p) => p.token === tokens.A).length).toBeGreaterThanOrEqual(1)

      // activity: each call with its own outcome, and filtering by one outcome gives only that one
      const declined = await calls('declined')
      expect(declined.find((e) => e.args_hmac === cC.args_hmac)).toBeDefined()
      expect(declined.every((e) => e.outcome === 'declined')).toBe(true)
      expect(mine()).toHaveLength(1)
    }, 60_000)
  }

  it('an HTTP client that vanishes without notifications/cancelled (its connection drops) withdraws its question too', async () => {
    const h = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}`, 'x-toolgate-agent': 'editor' })
    const text = 'vanished'
    const pending = h.client
      .callTool({ name: 'call_tool_write', arguments: { name: 'notes:edit_notes', args: { text } } }, undefined, { timeout: 60_000 })
      .catch((e: unknown) => e)
    const c = await waiting(text)
    // the client process dies: its connections close, no cancel and no DELETE of the session is sent
    await h.client.transport?.close()
    await pending
    await waitFor(async () => !(await list()).some((x) => x.id === c.id), 10_000, 'the abandoned confirmation to leave the queue')
    expect((await list('?status=cancelled')).find((x) => x.id === c.id)).toBeDefined()
    expect(await post(`/api/v1/confirmations/${c.id}/allow`)).toBe(409)
    expect((await calls('cancelled')).find((e) => e.args_hmac === c.args_hmac)).toMatchObject({ outcome: 'cancelled' })
    expect(log().filter((l) => l.arguments.text === text)).toEqual([])
  }, 60_000)
})
