// A server's question outlives the call's timeout, from outside: a real `toolgate serve` with a
// short `call_timeout_ms` (3 s) fronting a 2025 and a 2026-07-28 server that ask
// (test/fixtures/servers/asker-server.mjs), agents of both eras over HTTP /mcp. While a question of
// the call is open (asked in Toolgate, or in the agent's own client) the call's clock stands still;
// the question's own timeout bounds the wait; once it is answered the call's clock runs again, and
// a server that then works past its time still times out. The waits here are the point of the
// test (time must pass beyond the call's timeout while the question is open).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiRequest, waitFor, type Serve } from '../helpers/cli'
import { askerEntry, serveConnected } from '../helpers/askers'
import { stopServe, useCleanup } from '../helpers/cleanup'

const CALL_TIMEOUT_MS = 3000

useCleanup()

type Era = 'legacy' | 'modern'
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** An agent; with `answerAfterMs` its client shows questions and answers each that much later. */
async function agent(serve: Serve, era: Era, answerAfterMs?: number): Promise<Client> {
  const client = new Client(
    { name: `slow-${era}`, version: '1.0.0' },
    {
      versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } as never,
      capabilities: answerAfterMs !== undefined ? { elicitation: { form: {} } } : {},
    },
  )
  if (answerAfterMs !== undefined) {
    client.setRequestHandler('elicitation/create', async () => {
      await sleep(answerAfterMs)
      return { action: 'accept', content: { answer: 'from the client, late' } }
    })
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${serve.key}` } } }))
  return client
}

async function call(c: Client, tool: string, args: Record<string, unknown> = {}): Promise<{ text: string; isError: boolean; ms: number }> {
  const t = Date.now()
  const r = await c.callTool({ name: 'call_tool_read', arguments: { name: tool, args } }, { timeout: 60_000 })
  return { text: (r.content as Array<{ text?: string }>).map((x) => x.text ?? '').join('\n'), isError: r.isError === true, ms: Date.now() - t }
}

const pending = (serve: Serve, tool: string): Promise<{ id: string }> =>
  waitFor(
    async () => (await serve.api<{ questions: Array<{ id: string; tool: string }> }>('GET', '/api/v1/questions')).json.questions.find((q) => q.tool === tool),
    20_000,
    `a question of ${tool}`,
  )

// each era of agent against each era of server
const PAIRS: Array<[Era, 'old' | 'new']> = [
  ['legacy', 'old'],
  ['modern', 'new'],
  ['modern', 'old'],
  ['legacy', 'new'],
]

describe('call_timeout_ms stands still while a question of the call is open', () => {
  let serve: Serve

  beforeAll(async () => {
    serve = await serveConnected('toolgate-question-timeout-', {
      call_timeout_ms: CALL_TIMEOUT_MS,
      mcpServers: {
        old: askerEntry('legacy', { confirm_timeout_s: 30 }),
        new: askerEntry('modern', { confirm_timeout_s: 30 }),
        // its questions wait 5 s for the user: longer than the call's 3 s, and then the server gets "cancel"
        brief: askerEntry('legacy', { confirm_timeout_s: 5 }),
      },
    })
  }, 90_000)

  afterAll(() => stopServe(serve))

  it('a question asked in Toolgate and answered after the call timeout: the server gets the answer, the agent the result (both eras)', async () => {
    for (const [era, server] of PAIRS) {
      const c = await agent(serve, era)
      try {
        const pendingCall = call(c, `${server}:ask`, { question: 'Take your time' })
        const q = await pending(serve, `${server}:ask`)
        await sleep(CALL_TIMEOUT_MS + 1500)
        const r = await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action: 'accept', content: { answer: 'slow but sure' } })
        expect(r.status, `${era} agent, ${server}: ${r.text}`).toBe(200)
        const got = await pendingCall
        expect(got, `${era} agent, ${server}`).toMatchObject({ isError: false, text: 'answer: slow but sure' })
        expect(got.ms).toBeGreaterThan(CALL_TIMEOUT_MS + 1000)
      } finally {
        await c.close()
      }
    }
  }, 90_000)

  it("a question the agent's own client answers after the call timeout reaches the server (both eras)", async () => {
    for (const [era, server] of PAIRS) {
      const c = await agent(serve, era, CALL_TIMEOUT_MS + 1500)
      try {
        const got = await call(c, `${server}:ask`, { question: 'Take your time' })
        expect(got, `${era} agent, ${server}`).toMatchObject({ isError: false, text: 'answer: from the client, late' })
      } finally {
        await c.close()
      }
    }
  }, 90_000)

  it("after the answer the call's clock runs again: a server that then works past its time times out", async () => {
    for (const [era, server] of PAIRS.slice(0, 2)) {
      const c = await agent(serve, era)
      try {
        const pendingCall = call(c, `${server}:ask_then_wait`, { ms: CALL_TIMEOUT_MS + 2000 })
        const q = await pending(serve, `${server}:ask_then_wait`)
        await sleep(1500)
        await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action: 'accept', content: { answer: 'go' } })
        const got = await pendingCall
        expect(got.isError, `${era} agent, ${server}: ${got.text}`).toBe(true)
        expect(got.text).toMatch(
          new RegExp(`timed out after ${CALL_TIMEOUT_MS} ms \\(not counting the \\d+ s it waited for answers to the server's questions\\)`),
        )
      } finally {
        await c.close()
      }
    }
  }, 90_000)

  it("the question's own timeout bounds the wait: nobody answers, the server gets cancel after 5 s, not a timeout after 3 s", async () => {
    const c = await agent(serve, 'legacy')
    try {
      const got = await call(c, 'brief:ask', { question: 'Nobody will answer' })
      expect(got).toMatchObject({ isError: false, text: 'action: cancel' })
      expect(got.ms).toBeGreaterThan(4500)
      const q = (await serve.api<{ questions: Array<{ tool: string; status: string }> }>('GET', '/api/v1/questions?status=all')).json.questions.find(
        (x) => x.tool === 'brief:ask',
      )
      expect(q?.status).toBe('timeout')
    } finally {
      await c.close()
    }
  }, 60_000)
})
