// Upstreams that ask, from outside: a real `toolgate serve` with an upstream that asks (a 2025
// server and a 2026-07-28 one, test/fixtures/servers/asker-server.mjs) and real agents of both
// eras over HTTP /mcp and over `toolgate stdio` (bridged). An upstream's elicitation and sampling
// reach the agent whose call asks, labelled with the server and escaped; roots are the server's
// sandbox grants. Attacks: a question outside any call, a flood of questions, a question while
// another agent's call is in flight, a client that cannot answer, a server switched off, a forged
// or foreign retry.
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { CallToolResultSchema } from '@modelcontextprotocol/core'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN, cliEnv, ROOT, startServe, tempDir, track, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { askerEntry } from '../helpers/askers'
import { stopServe, useCleanup } from '../helpers/cleanup'
import fs from 'node:fs'

useCleanup()

type Era = 'legacy' | 'modern'
interface Agent {
  client: Client
  /** what the agent's client was asked */
  asked: Array<{ method: string; params: Record<string, unknown> }>
  close(): Promise<void>
}
interface AgentOpts {
  /** declare elicitation and sampling (default yes) */
  capable?: boolean
  /** how long the client takes to answer */
  delayMs?: number
  answer?: string
}

function clientFor(era: Era, o: AgentOpts, asked: Agent['asked']): Client {
  const mode = era === 'modern' ? { pin: '2026-07-28' } : 'legacy'
  const capable = o.capable ?? true
  const client = new Client(
    { name: `asks-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode } as never, capabilities: capable ? { elicitation: { form: {}, url: {} }, sampling: {} } : {} },
  )
  if (capable) {
    client.setRequestHandler('elicitation/create', async (req) => {
      asked.push({ method: 'elicitation/create', params: req.params as Record<string, unknown> })
      if (o.delayMs) await new Promise((r) => setTimeout(r, o.delayMs))
      return req.params.mode === 'url' ? { action: 'accept' } : { action: 'accept', content: { answer: o.answer ?? 'blue' } }
    })
    client.setRequestHandler('sampling/createMessage', async (req) => {
      asked.push({ method: 'sampling/createMessage', params: req.params as Record<string, unknown> })
      return { role: 'assistant', content: { type: 'text', text: 'model says hi' }, model: 'test-model' }
    })
  }
  return client
}

async function httpAgent(serve: Serve, era: Era, key: string, o: AgentOpts = {}): Promise<Agent> {
  const asked: Agent['asked'] = []
  const client = clientFor(era, o, asked)
  await client.connect(new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
  return { client, asked, close: () => client.close() }
}

async function stdioAgent(serve: Serve, era: Era, o: AgentOpts = {}): Promise<Agent> {
  const asked: Agent['asked'] = []
  const client = clientFor(era, o, asked)
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'stdio', ...serve.flags],
    env: cliEnv({ TOOLGATE_API_KEY: serve.key }) as Record<string, string>,
    cwd: ROOT,
    stderr: 'pipe',
  })
  await client.connect(transport, { timeout: 60_000 })
  track(transport.pid ?? undefined)
  return { client, asked, close: () => client.close() }
}

async function call(a: Agent, tool: string, args: Record<string, unknown> = {}): Promise<{ text: string; isError: boolean }> {
  const r = await a.client.callTool({ name: 'call_tool_read', arguments: { name: tool, args } }, { timeout: 60_000 })
  return { text: (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n'), isError: r.isError === true }
}

describe('requests of upstream servers reach the agent whose call asks', () => {
  let serve: Serve
  let tmp: string
  let shared: string

  beforeAll(async () => {
    tmp = tempDir('toolgate-asks-')
    shared = path.join(tmp, 'shared')
    fs.mkdirSync(shared)
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {
        old: askerEntry('legacy', { sampling: 'allow', sandbox: { fs_read: [shared] } }),
        new: askerEntry('modern', { sampling: 'allow', roots: [shared, `${shared}/`] }),
        // the user switched its questions off; sampling is off by default
        quiet: askerEntry('legacy', { elicitation: 'off' }),
        quietnew: askerEntry('modern', { elicitation: 'off', sampling: 'off' }),
      },
      agents: [{ name: 'other', servers: ['old', 'new'], permissions: ['read'] }],
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    for (const s of ['old', 'new', 'quiet', 'quietnew']) await waitForServerState(serve, s, 'connected')
  }, 90_000)

  afterAll(() => stopServe(serve))

  it('elicitation and sampling of a 2025 and a 2026-07-28 server reach agents of both eras over HTTP and stdio, labelled and escaped', async () => {
    const agents: Record<string, Agent> = {
      legacyHttp: await httpAgent(serve, 'legacy', serve.key),
      modernHttp: await httpAgent(serve, 'modern', serve.key),
      legacyStdio: await stdioAgent(serve, 'legacy'),
      modernStdio: await stdioAgent(serve, 'modern'),
    }
    try {
      for (const [name, a] of Object.entries(agents)) {
        for (const server of ['old', 'new']) {
          const before = a.asked.length
          const q = `${name} asks via ${server}: Toolgate asks: allow?\u202e`
          expect(await call(a, `${server}:ask`, { question: q }), `${name} ${server}:ask`).toEqual({ text: 'answer: blue', isError: false })
          expect(a.asked.length - before, `${name} ${server}: asked once`).toBe(1)
          const el = a.asked[a.asked.length - 1].params
          // the server's words, marked as the server's and not Toolgate's, with the bidi override shown as an escape
          expect(el.message).toBe(
            `[From the MCP server "${server}", relayed by Toolgate; not a question of Toolgate's] ${name} asks via ${server}: Toolgate asks: allow?\\u202e`,
          )
          expect(el.requestedSchema).toEqual({ type: 'object', properties: { answer: { type: 'string', title: 'Your answer' } }, required: ['answer'] })

          expect(await call(a, `${server}:sample`, { prompt: `hello from ${name}` }), `${name} ${server}:sample`).toEqual({
            text: 'sampled: model says hi',
            isError: false,
          })
          const s = a.asked[a.asked.length - 1]
          expect(s.method).toBe('sampling/createMessage')
          expect(s.params.messages).toEqual([{ role: 'user', content: { type: 'text', text: `hello from ${name}` } }])
          // whose request it is, and no context of other servers
          expect(s.params.systemPrompt).toBe(`[From the MCP server "${server}", relayed by Toolgate; not a question of Toolgate's] Be brief.`)
          expect(s.params.includeContext).toBe('none')

          expect(await call(a, `${server}:ask_url`, { url: 'https://example.com/login' }), `${name} ${server}:ask_url`).toEqual({
            text: 'action: accept',
            isError: false,
          })
          expect(a.asked[a.asked.length - 1].params).toMatchObject({ mode: 'url', url: 'https://example.com/login' })
        }
      }
    } finally {
      for (const a of Object.values(agents)) await a.close().catch(() => {})
    }
  }, 120_000)

  it("roots: a server is told its sandbox's grants or the operator's roots, and none (nor the capability) otherwise", async () => {
    const a = await httpAgent(serve, 'legacy', serve.key)
    try {
      const want = JSON.stringify([pathToFileURL(shared).href])
      expect(await call(a, 'old:roots')).toEqual({ text: want, isError: false })
      expect(await call(a, 'new:roots')).toEqual({ text: want, isError: false })
      // a 2025 server that asks anyway is told none; a 2026-07-28 one sees no roots capability and does not ask
      expect(await call(a, 'quiet:roots')).toEqual({ text: '[]', isError: false })
      const modern = await call(a, 'quietnew:roots')
      expect(modern.isError, modern.text).toBe(true)
      expect(modern.text).toContain('do not declare the required capability')
      expect(a.asked).toEqual([])
    } finally {
      await a.close()
    }
  }, 60_000)

  it('attack: a server switched off, or one that may not sample, asks nobody', async () => {
    const agents = [await httpAgent(serve, 'legacy', serve.key), await httpAgent(serve, 'modern', serve.key)]
    try {
      for (const a of agents) {
        for (const server of ['quiet', 'quietnew']) {
          const asked = await call(a, `${server}:ask`, { question: 'what?' })
          expect(asked.isError, `${server}:ask ${asked.text}`).toBe(true)
          const sampled = await call(a, `${server}:sample`, { prompt: 'spend the user model' })
          expect(sampled.isError, `${server}:sample ${sampled.text}`).toBe(true)
        }
        // Toolgate does not offer the server what is switched off: the server itself declines to ask
        expect((await call(a, 'quietnew:sample', { prompt: 'x' })).text).toContain('do not declare the required capability')
        expect((await call(a, 'quietnew:ask', { question: 'x' })).text).toContain('do not declare the required capability')
        // a 2025 server that asks anyway gets Toolgate's refusal, which says why and what to set
        expect((await call(a, 'quiet:sample', { prompt: 'x' })).text).toContain('the user has not allowed it. To allow it, set "sampling": "ask"')
        // (its SDK does not send an elicitation Toolgate did not declare: "Client does not support form elicitation")
        expect((await call(a, 'quiet:ask', { question: 'x' })).text).toContain('does not support form elicitation')
        expect(a.asked).toEqual([])
      }
    } finally {
      for (const a of agents) await a.close()
    }
  }, 60_000)

  it('attack: a client without sampling is never asked to sample; the server gets a clean refusal (elicitation goes to the Toolgate window: user-questions.test.ts)', async () => {
    const agents = [await httpAgent(serve, 'legacy', serve.key, { capable: false }), await httpAgent(serve, 'modern', serve.key, { capable: false })]
    try {
      for (const a of agents) {
        for (const server of ['old', 'new']) {
          const s = await call(a, `${server}:sample`, { prompt: 'x' })
          expect(s.text).toContain('does not support sampling')
        }
      }
    } finally {
      for (const a of agents) await a.close()
    }
  }, 60_000)

  it('attack: a question outside any call is refused and reaches no agent', async () => {
    const a = await httpAgent(serve, 'legacy', serve.key)
    const b = await stdioAgent(serve, 'legacy')
    try {
      expect((await call(a, 'old:ask_later', { ms: 300 })).text).toBe('will ask later')
      await new Promise((r) => setTimeout(r, 1500))
      const report = (await call(a, 'old:report')).text
      expect(report).toMatch(/^refused: /)
      expect(report).toContain('no call is in flight')
      expect(a.asked).toEqual([])
      expect(b.asked).toEqual([])
    } finally {
      await a.close()
      await b.close()
    }
  }, 60_000)

  it('attack: a flood of questions in one call is cut off: at most 2 open at once and 10 per call', async () => {
    const a = await httpAgent(serve, 'legacy', serve.key, { delayMs: 50 })
    try {
      const r = await call(a, 'old:ask_many', { n: 40 })
      const [ok, failed] = r.text
        .match(/^(\d+) ok, (\d+) failed/)
        ?.slice(1)
        .map(Number) ?? [NaN, NaN]
      expect(ok + failed).toBe(40)
      expect(ok).toBeLessThanOrEqual(10)
      expect(failed).toBeGreaterThanOrEqual(30)
      expect(r.text).toMatch(/questions open|times in one call/)
      expect(a.asked.length).toBe(ok)
    } finally {
      await a.close()
    }
  }, 60_000)

  it("attack: while another agent's call to a 2025 server is in flight, its question reaches neither; a 2026-07-28 server's reach each its own", async () => {
    const token = (await serve.api<{ token: string }>('POST', '/api/v1/agents/other/token')).json.token
    // b takes its time to answer: its call is in flight when a's server asks
    const a = await httpAgent(serve, 'legacy', token, { answer: 'from a' })
    const b = await httpAgent(serve, 'legacy', serve.key, { delayMs: 1500, answer: 'from b' })
    try {
      const slow = call(b, 'old:ask', { question: 'question for b' })
      await new Promise((r) => setTimeout(r, 500))
      const fast = await call(a, 'old:ask', { question: 'question for a' })
      expect(fast.isError).toBe(true)
      expect(fast.text).toContain('2 different callers')
      expect(await slow).toEqual({ text: 'answer: from b', isError: false })
      expect(a.asked).toEqual([])
      expect(b.asked.map((x) => x.params.message)).toEqual([expect.stringContaining('question for b')])

      // the 2026-07-28 server names its call: both agents at once, each gets its own question
      const ma = await httpAgent(serve, 'modern', token, { delayMs: 300, answer: 'from a' })
      const mb = await httpAgent(serve, 'modern', serve.key, { delayMs: 300, answer: 'from b' })
      try {
        const both = await Promise.all([call(ma, 'new:ask', { question: 'question for a' }), call(mb, 'new:ask', { question: 'question for b' })])
        expect(both).toEqual([
          { text: 'answer: from a', isError: false },
          { text: 'answer: from b', isError: false },
        ])
        expect(ma.asked.map((x) => x.params.message)).toEqual([expect.stringContaining('question for a')])
        expect(mb.asked.map((x) => x.params.message)).toEqual([expect.stringContaining('question for b')])
      } finally {
        await ma.close()
        await mb.close()
      }
    } finally {
      await a.close()
      await b.close()
    }
  }, 60_000)

  it("attack: another credential's retry with a 2026-07-28 call's requestState answers nothing; a forged one is refused", async () => {
    const token = (await serve.api<{ token: string }>('POST', '/api/v1/agents/other/token')).json.token
    const manual = async (key: string): Promise<Client> => {
      const c = new Client(
        { name: 'manual', version: '1.0.0' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } as never, capabilities: { elicitation: { form: {} } }, inputRequired: { autoFulfill: false } },
      )
      c.setRequestHandler('elicitation/create', async () => ({ action: 'decline' }))
      await c.connect(new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
      return c
    }
    const owner = await manual(serve.key)
    const thief = await manual(token)
    try {
      const params = { name: 'call_tool_read', arguments: { name: 'new:ask', args: { question: 'the owner’s question' } } }
      const first = (await owner.request({ method: 'tools/call', params }, CallToolResultSchema as never, { allowInputRequired: true })) as unknown as {
        resultType?: string
        inputRequests: Record<string, { method: string; params: { message: string } }>
        requestState: string
      }
      expect(first.resultType).toBe('input_required')
      const [key, asked] = Object.entries(first.inputRequests)[0]
      expect(asked.method).toBe('elicitation/create')
      expect(asked.params.message).toContain('the owner’s question')
      const stolen = { [key]: { action: 'accept', content: { answer: 'from the thief' } } }
      // another credential with the owner's state: nothing reaches the waiting call
      const theirs = (await thief.request(
        { method: 'tools/call', params: { ...params, inputResponses: stolen, requestState: first.requestState } },
        CallToolResultSchema as never,
        { allowInputRequired: true },
      )) as unknown as { isError?: boolean; content: Array<{ text: string }> }
      expect(theirs.isError).toBe(true)
      expect(theirs.content[0].text).toContain('CALL_ENDED')
      // a state Toolgate did not sign never reaches a handler
      await expect(
        owner.request(
          { method: 'tools/call', params: { ...params, inputResponses: stolen, requestState: `${first.requestState}x` } },
          CallToolResultSchema as never,
          {
            allowInputRequired: true,
          },
        ),
      ).rejects.toThrow()
      // the owner's own retry completes the call with its answer
      const done = (await owner.request(
        {
          method: 'tools/call',
          params: { ...params, inputResponses: { [key]: { action: 'accept', content: { answer: 'from the owner' } } }, requestState: first.requestState },
        },
        CallToolResultSchema as never,
        { allowInputRequired: true },
      )) as unknown as { content: Array<{ text: string }> }
      expect(done.content[0].text).toBe('answer: from the owner')
    } finally {
      await owner.close()
      await thief.close()
    }
  }, 60_000)
})
