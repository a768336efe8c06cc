// Questions of upstream servers that Toolgate asks the user itself, and sampling that waits for the
// user's Allow, from outside: a real `toolgate serve` fronting a 2025 and a 2026-07-28 server that
// ask (test/fixtures/servers/asker-server.mjs), real agents of both eras over HTTP /mcp whose
// clients cannot show elicitation, answered through the control API and the CLI. Attacks: a forged
// question id and an agent's token answer nothing, content that breaks the schema is refused 400,
// a server's message that claims to be Toolgate stays the server's, an answer after the timeout is
// refused (the server got "cancel"), a non-web URL is never shown, sampling never runs without the
// user's setting (off refuses, ask waits for Allow, Deny and timeout answer the server the reason).
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiRequest, openEvents, runCli, waitFor, type Serve } from '../helpers/cli'
import { askerEntry, serveConnected } from '../helpers/askers'
import { stopServe, useCleanup } from '../helpers/cleanup'

useCleanup()

type Era = 'legacy' | 'modern'
interface Agent {
  client: Client
  /** what the agent's client was asked (only sampling: it declares no elicitation) */
  asked: string[]
  close(): Promise<void>
}

/** An agent whose client declares no elicitation; with `sampling`, it samples ("model says hi"). */
async function agent(serve: Serve, era: Era, key = serve.key, sampling = false): Promise<Agent> {
  const asked: string[] = []
  const client = new Client(
    { name: `no-forms-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } as never, capabilities: sampling ? { sampling: {} } : {} },
  )
  if (sampling) {
    client.setRequestHandler('sampling/createMessage', async () => {
      asked.push('sampling/createMessage')
      return { role: 'assistant', content: { type: 'text', text: 'model says hi' }, model: 'test-model' }
    })
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
  return { client, asked, close: () => client.close() }
}

async function call(a: Agent, tool: string, args: Record<string, unknown> = {}, signal?: AbortSignal): Promise<{ text: string; isError: boolean }> {
  const r = await a.client.callTool({ name: 'call_tool_read', arguments: { name: tool, args } }, { timeout: 60_000, ...(signal ? { signal } : {}) })
  return { text: (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n'), isError: r.isError === true }
}

interface Question {
  id: string
  server: string
  agent: string | null
  tool: string
  mode: string
  message: string
  fields?: unknown[]
  url?: string
  url_host?: string
  status: string
  answered_via?: string
}

async function pendingQuestion(serve: Serve, tool: string): Promise<Question> {
  return waitFor(
    async () => (await serve.api<{ questions: Question[] }>('GET', '/api/v1/questions')).json.questions.find((q) => q.tool === tool),
    20_000,
    `a question of ${tool}`,
  )
}

async function questionById(serve: Serve, id: string): Promise<Question | undefined> {
  return (await serve.api<{ questions: Question[] }>('GET', '/api/v1/questions?status=all')).json.questions.find((q) => q.id === id)
}

const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', title: 'Your name', minLength: 2 },
    age: { type: 'integer', title: 'Age', minimum: 0 },
    color: {
      type: 'string',
      title: 'Colour',
      oneOf: [
        { const: 'r', title: 'Red' },
        { const: 'g', title: 'Green' },
      ],
    },
    ok: { type: 'boolean', title: 'Agree', default: true },
  },
  required: ['name', 'color'],
}

describe("upstream questions the agent's client cannot show are asked in Toolgate", () => {
  let serve: Serve

  beforeAll(async () => {
    serve = await serveConnected('toolgate-questions-', {
      mcpServers: {
        old: askerEntry('legacy', { sampling: 'ask' }),
        new: askerEntry('modern', { sampling: 'ask' }),
        // nobody answers its questions in time
        brief: askerEntry('legacy', { sampling: 'ask', confirm_timeout_s: 2 }),
        // sampling off (the default)
        plain: askerEntry('legacy'),
      },
      agents: [{ name: 'other', servers: ['old'], permissions: ['read'] }],
    })
  }, 90_000)

  afterAll(() => stopServe(serve))

  it('a form built from the requested schema, labelled with the configured server, answered through the HTTP API (agents and servers of both eras)', async () => {
    const events = await openEvents(serve)
    try {
      for (const era of ['legacy', 'modern'] as const) {
        const a = await agent(serve, era)
        try {
          for (const server of ['old', 'new']) {
            const tool = `${server}:ask_schema`
            // the server's words claim to be Toolgate's and hide a bidi override
            const result = call(a, tool, { message: 'Toolgate asks: confirm your name\u202e', schema: JSON.stringify(SCHEMA) })
            const q = await pendingQuestion(serve, tool)
            // who asks comes from the config, the server's text is escaped and carries no label of Toolgate's
            expect(q).toMatchObject({ server, agent: null, mode: 'form', status: 'pending', message: 'Toolgate asks: confirm your name\\u202e' })
            expect(q.fields).toEqual([
              { name: 'name', kind: 'string', title: 'Your name', required: true, minLength: 2 },
              { name: 'age', kind: 'integer', title: 'Age', required: false, minimum: 0 },
              {
                name: 'color',
                kind: 'enum',
                title: 'Colour',
                required: true,
                options: [
                  { value: 'r', title: 'Red' },
                  { value: 'g', title: 'Green' },
                ],
              },
              { name: 'ok', kind: 'boolean', title: 'Agree', required: false, default: true },
            ])
            await events.next('question', 15_000, (e) => e.data.id === q.id && e.data.new === true)
            const r = await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action: 'accept', content: { name: 'Ada', age: 36, color: 'g' } })
            expect(r.status, r.text).toBe(200)
            // the answer leaves out "ok": content is the whole answer, its default is not put back
            expect(await result, `${era} ${server}`).toEqual({ text: 'content: {"name":"Ada","age":36,"color":"g"}', isError: false })
            expect(await questionById(serve, q.id)).toMatchObject({ status: 'accepted', answered_via: 'api' })
            await events.next('question', 15_000, (e) => e.data.id === q.id && e.data.status === 'accepted')
          }
        } finally {
          await a.close()
        }
      }
    } finally {
      events.close()
    }
  }, 120_000)

  it('decline and cancel reach the server as such; nothing is answered for the user', async () => {
    const a = await agent(serve, 'legacy')
    try {
      for (const action of ['decline', 'cancel'] as const) {
        const result = call(a, 'old:ask', { question: 'may I?' })
        const q = await pendingQuestion(serve, 'old:ask')
        expect((await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action })).status).toBe(200)
        expect(await result).toEqual({ text: `action: ${action}`, isError: false })
      }
    } finally {
      await a.close()
    }
  }, 60_000)

  it('answered through the CLI: questions list, show, answer --accept --content and --decline', async () => {
    const a = await agent(serve, 'modern')
    try {
      const result = call(a, 'new:ask', { question: 'Your favourite colour?' })
      const q = await pendingQuestion(serve, 'new:ask')
      const list = await runCli(['questions', ...serve.flags])
      expect(list.code, list.stderr).toBe(0)
      expect(list.stdout).toContain(q.id)
      expect(list.stdout).toContain('new')
      const shown = await runCli(['questions', 'show', q.id, ...serve.flags])
      expect(shown.stdout).toContain('The MCP server "new" asks (this is the server\'s question, not Toolgate\'s)')
      expect(shown.stdout).toContain('"answer" — Your answer: string, required')
      // the CLI refuses what the form does not take, and the question stays open
      const bad = await runCli(['questions', 'answer', q.id, '--accept', '--content', '{"answer": 7}', ...serve.flags])
      expect(bad.code).not.toBe(0)
      expect(bad.stderr).toContain('"answer" (Your answer) must be text')
      expect((await questionById(serve, q.id))?.status).toBe('pending')
      const ok = await runCli(['questions', 'answer', q.id, '--accept', '--content', '{"answer": "green"}', ...serve.flags])
      expect(ok.code, ok.stderr).toBe(0)
      expect(ok.stdout).toContain('Sent your answer to server "new"')
      expect(await result).toEqual({ text: 'answer: green', isError: false })
      expect((await questionById(serve, q.id))?.answered_via).toBe('cli')

      const second = call(a, 'new:ask', { question: 'again?' })
      const q2 = await pendingQuestion(serve, 'new:ask')
      expect((await runCli(['questions', 'answer', q2.id, '--decline', ...serve.flags])).code).toBe(0)
      expect(await second).toEqual({ text: 'action: decline', isError: false })
    } finally {
      await a.close()
    }
  }, 90_000)

  it("attack: a forged question id, another question's id and an agent's token answer nothing", async () => {
    const token = (await serve.api<{ token: string }>('POST', '/api/v1/agents/other/token')).json.token
    const a = await agent(serve, 'legacy', token)
    try {
      const result = call(a, 'old:ask', { question: 'the real question' })
      const q = await pendingQuestion(serve, 'old:ask')
      expect(q.agent).toBe('other')
      const forged = await apiRequest(serve, 'POST', `/api/v1/questions/q_forged000000/answer`, { action: 'accept', content: { answer: 'x' } })
      expect(forged.status).toBe(404)
      expect(forged.json.error.code).toBe('unknown_question')
      // the agent itself (its token) cannot reach the control API to answer its own server's question
      const byAgent = await fetch(`${serve.url}/api/v1/questions/${q.id}/answer`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ action: 'accept', content: { answer: 'from the agent' } }),
      })
      expect([401, 403]).toContain(byAgent.status)
      const listByAgent = await fetch(`${serve.url}/api/v1/questions`, { headers: { authorization: `Bearer ${token}` } })
      expect([401, 403]).toContain(listByAgent.status)
      // a body with keys the answer does not take is refused
      const extra = await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action: 'accept', content: { answer: 'x' }, via: 'tray' })
      expect(extra.status).toBe(400)
      expect((await questionById(serve, q.id))?.status).toBe('pending')
      expect((await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action: 'accept', content: { answer: 'the user' } })).status).toBe(200)
      expect(await result).toEqual({ text: 'answer: the user', isError: false })
      // answered once: a second answer is refused
      const again = await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action: 'decline' })
      expect(again.status).toBe(409)
    } finally {
      await a.close()
    }
  }, 60_000)

  it('attack: content that violates the schema is refused 400 with what is wrong; nothing reaches the server', async () => {
    const a = await agent(serve, 'legacy')
    try {
      const result = call(a, 'old:ask_schema', { message: 'fill in', schema: JSON.stringify(SCHEMA) })
      const q = await pendingQuestion(serve, 'old:ask_schema')
      const tries: Array<[unknown, string]> = [
        [{ name: 'Ada' }, '"color" is required'],
        [{ name: 'A', color: 'r' }, '"name" (Your name) must be at least 2 characters'],
        [{ name: 'Ada', color: 'blue' }, '"color" (Colour) must be one of "r", "g"'],
        [{ name: 'Ada', color: 'r', age: 1.5 }, '"age" (Age) must be a whole number'],
        [{ name: 'Ada', color: 'r', age: -1 }, '"age" (Age) must be at least 0'],
        [{ name: 'Ada', color: 'r', ok: 'yes' }, '"ok" (Agree) must be true or false'],
        [{ name: 'Ada', color: 'r', password: 'x' }, 'the form has no field "password"'],
        [['Ada'], 'content must be an object'],
      ]
      for (const [content, why] of tries) {
        const r = await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action: 'accept', content })
        expect(r.status, JSON.stringify(content)).toBe(400)
        // the table's schema refuses a body that is no object; the form's, content that breaks it
        expect(r.json.error.code).toBe(Array.isArray(content) ? 'invalid_arguments' : 'invalid_content')
        expect(r.json.error.message, JSON.stringify(content)).toContain(why)
      }
      const declineWithContent = await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action: 'decline', content: { name: 'x' } })
      expect(declineWithContent.status).toBe(400)
      expect((await questionById(serve, q.id))?.status).toBe('pending')
      expect((await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action: 'accept', content: { name: 'Ada', color: 'r' } })).status).toBe(200)
      // "ok" left out: content is the whole answer, its default is not put back (only accept without content sends the defaults)
      expect(await result).toEqual({ text: 'content: {"name":"Ada","color":"r"}', isError: false })
    } finally {
      await a.close()
    }
  }, 60_000)

  it('attack: a schema Toolgate cannot show, and a URL that is not a web page, are refused to the server; nobody is asked', async () => {
    const a = await agent(serve, 'legacy')
    try {
      const nested = { type: 'object', properties: { deep: { type: 'object', properties: { x: { type: 'string' } } } } }
      const r = await call(a, 'old:ask_schema', { message: 'nested', schema: JSON.stringify(nested) })
      // refused before it reaches the queue (the SDK's own check of elicitation/create)
      expect(r.isError, r.text).toBe(true)
      expect(r.text).toContain('Invalid elicitation')
      const hidden = { type: 'object', properties: { 'pass\u202eword': { type: 'string' } } }
      expect((await call(a, 'old:ask_schema', { message: 'hidden', schema: JSON.stringify(hidden) })).text).toContain('control, bidi or invisible')
      for (const url of ['javascript:alert(1)', 'file:///etc/passwd']) {
        const u = await call(a, 'old:ask_url', { url })
        expect(u.isError, u.text).toBe(true)
        expect(u.text).toContain('not an http(s) URL')
      }
      expect(
        (await serve.api<{ questions: Question[] }>('GET', '/api/v1/questions?status=all')).json.questions.filter((q) => /nested|hidden/.test(q.message)),
      ).toEqual([])
    } finally {
      await a.close()
    }
  }, 60_000)

  it('URL mode: the URL and its host are shown; accept tells the server, Toolgate opens nothing', async () => {
    const a = await agent(serve, 'modern')
    try {
      const result = call(a, 'new:ask_url', { url: 'https://login.example.com/auth?x=1' })
      const q = await pendingQuestion(serve, 'new:ask_url')
      expect(q).toMatchObject({ mode: 'url', url: 'https://login.example.com/auth?x=1', url_host: 'login.example.com', message: 'Open this page to sign in' })
      expect((await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action: 'accept', content: { x: 1 } })).status).toBe(400)
      expect((await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action: 'accept' })).status).toBe(200)
      expect(await result).toEqual({ text: 'action: accept', isError: false })
    } finally {
      await a.close()
    }
  }, 60_000)

  it('attack: an answer after the timeout is refused; the server got "cancel", nothing answered for the user', async () => {
    const a = await agent(serve, 'legacy')
    try {
      const result = call(a, 'brief:ask', { question: 'quick!' })
      const q = await pendingQuestion(serve, 'brief:ask')
      expect(await result).toEqual({ text: 'action: cancel', isError: false })
      expect((await questionById(serve, q.id))?.status).toBe('timeout')
      const late = await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action: 'accept', content: { answer: 'late' } })
      expect(late.status).toBe(409)
      expect(late.json.error.code).toBe('question_answered')
    } finally {
      await a.close()
    }
  }, 60_000)

  it('a question dies with its call: the agent cancels, the question is withdrawn', async () => {
    const a = await agent(serve, 'legacy')
    try {
      const stop = new AbortController()
      const result = call(a, 'old:ask', { question: 'never answered' }, stop.signal).catch((e: Error) => e)
      const q = await pendingQuestion(serve, 'old:ask')
      stop.abort()
      await result
      await waitFor(async () => (await questionById(serve, q.id))?.status === 'withdrawn', 20_000, 'the question withdrawn')
      expect((await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action: 'decline' })).status).toBe(409)
    } finally {
      await a.close()
    }
  }, 60_000)
})

interface SamplingConfirmation {
  id: string
  kind?: string
  server: string
  tool: string
  status: string
  sampling?: { messages: Array<{ role: string; text: string }>; system_prompt?: string; max_tokens: number | null }
}

describe('sampling never runs without the user’s setting', () => {
  let serve: Serve

  beforeAll(async () => {
    serve = await serveConnected('toolgate-sampling-', {
      mcpServers: {
        old: askerEntry('legacy', { sampling: 'ask' }),
        new: askerEntry('modern', { sampling: 'ask' }),
        brief: askerEntry('legacy', { sampling: 'ask', confirm_timeout_s: 2 }),
        plain: askerEntry('legacy'),
      },
    })
  }, 90_000)

  afterAll(() => stopServe(serve))

  const pendingSampling = (tool: string): Promise<SamplingConfirmation> =>
    waitFor(
      async () => (await serve.api<{ confirmations: SamplingConfirmation[] }>('GET', '/api/v1/confirmations')).json.confirmations.find((c) => c.tool === tool),
      20_000,
      `a sampling confirmation of ${tool}`,
    )

  it('"ask": the request waits in the confirmations queue (kind sampling) and reaches the client only on Allow; Deny answers the server why (both eras)', async () => {
    for (const era of ['legacy', 'modern'] as const) {
      const a = await agent(serve, era, serve.key, true)
      try {
        for (const server of ['old', 'new']) {
          const tool = `${server}:sample`
          const result = call(a, tool, { prompt: `spend it ${era}` })
          const c = await pendingSampling(tool)
          expect(c).toMatchObject({ kind: 'sampling', server, status: 'pending' })
          expect(c.sampling).toEqual({ messages: [{ role: 'user', text: `spend it ${era}` }], system_prompt: 'Be brief.', max_tokens: 50 })
          // nothing reached the agent's client (the user's model) yet
          expect(a.asked).toEqual([])
          expect((await apiRequest(serve, 'POST', `/api/v1/confirmations/${c.id}/allow`, {})).status).toBe(200)
          expect(await result, `${era} ${server}`).toEqual({ text: 'sampled: model says hi', isError: false })
          expect(a.asked).toEqual(['sampling/createMessage'])
          a.asked.length = 0

          const denied = call(a, tool, { prompt: 'again' })
          const d = await pendingSampling(tool)
          expect((await apiRequest(serve, 'POST', `/api/v1/confirmations/${d.id}/deny`, {})).status).toBe(200)
          const r = await denied
          expect(r.isError, r.text).toBe(true)
          expect(r.text).toContain(`the user denied this sampling request of server "${server}"`)
          expect(a.asked).toEqual([])
        }
      } finally {
        await a.close()
      }
    }
  }, 120_000)

  it('"ask" with nobody answering: the server is told the request timed out, the model was not used', async () => {
    const a = await agent(serve, 'legacy', serve.key, true)
    try {
      const r = await call(a, 'brief:sample', { prompt: 'anyone?' })
      expect(r.isError, r.text).toBe(true)
      expect(r.text).toContain('nobody allowed this sampling request of server "brief" within 2 s')
      expect(a.asked).toEqual([])
    } finally {
      await a.close()
    }
  }, 60_000)

  it('"off" (the default): refused at once, no confirmation, the client is never asked', async () => {
    const a = await agent(serve, 'legacy', serve.key, true)
    try {
      const r = await call(a, 'plain:sample', { prompt: 'spend the user model' })
      expect(r.isError, r.text).toBe(true)
      expect(r.text).toContain('the user has not allowed it')
      const all = (await serve.api<{ confirmations: SamplingConfirmation[] }>('GET', '/api/v1/confirmations?status=all')).json.confirmations
      expect(all.filter((c) => c.server === 'plain')).toEqual([])
      expect(a.asked).toEqual([])
    } finally {
      await a.close()
    }
  }, 60_000)
})
