// Attacks on questions asked in Toolgate from outside (docs/passthrough.md "Questions asked in
// Toolgate"): a real `toolgate serve` fronting the asker fixture (test/fixtures/servers/asker-server.mjs),
// a real agent over HTTP /mcp whose client cannot show forms. A hostile schema names its fields
// after Object's members ("toString", "constructor"): an optional one left empty must still be
// accepted, a required one must not seem filled by the inherited member; a URL with credentials
// before the host is refused to the server; an agent's token reads no question and no event.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiRequest, runCli, waitFor, type Serve } from '../helpers/cli'
import { askerEntry, serveConnected } from '../helpers/askers'
import { stopServe, useCleanup } from '../helpers/cleanup'

useCleanup()

interface Question {
  id: string
  tool: string
  url?: string
  url_host?: string
  fields?: Array<{ name: string; required: boolean }>
}

describe('attacks on questions asked in Toolgate', () => {
  let serve: Serve
  let client: Client

  beforeAll(async () => {
    serve = await serveConnected('toolgate-question-attacks-', {
      mcpServers: {
        old: askerEntry('legacy'),
        gone: askerEntry('legacy'),
        samp: askerEntry('legacy', { sampling: 'ask' }),
      },
      agents: [{ name: 'other', servers: ['old'], permissions: ['read'] }],
    })
    client = new Client({ name: 'no-forms', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } as never, capabilities: { sampling: {} } })
    client.setRequestHandler('sampling/createMessage', async () => ({ role: 'assistant', content: { type: 'text', text: 'model says hi' }, model: 'm' }))
    await client.connect(new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${serve.key}` } } }))
  }, 90_000)

  afterAll(async () => {
    await client?.close()
    await stopServe(serve)
  })

  async function call(tool: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
    const r = await client.callTool({ name: 'call_tool_read', arguments: { name: tool, args } }, { timeout: 60_000 })
    return { text: (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n'), isError: r.isError === true }
  }

  const pending = (tool: string): Promise<Question> =>
    waitFor(
      async () => (await serve.api<{ questions: Question[] }>('GET', '/api/v1/questions')).json.questions.find((q) => q.tool === tool),
      20_000,
      `a question of ${tool}`,
    )

  it("fields named after Object's members: an optional one may stay empty, a required one is not filled by the inherited member", async () => {
    const schema = {
      type: 'object',
      properties: { toString: { type: 'string', title: 'Optional note' }, constructor: { type: 'string', title: 'Required name' } },
      required: ['constructor'],
    }
    const result = call('old:ask_schema', { message: 'fill in', schema: JSON.stringify(schema) })
    const q = await pending('old:ask_schema')
    expect(q.fields?.map((f) => [f.name, f.required])).toEqual([
      ['toString', false],
      ['constructor', true],
    ])
    // the required field left out: refused with the field's name, not "must be text" of an inherited function
    const missing = await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action: 'accept', content: {} })
    expect(missing.status).toBe(400)
    expect(missing.json.error.message).toContain('"constructor" is required')
    // a smuggled "__proto__" key is never sent on: the HTTP body's parse drops it, the server gets
    // only the form's fields (an optional one left empty is covered in test/unit: the fixture's own
    // SDK, ajv, reads the inherited "toString" of a plain object and would refuse it itself)
    const ok = await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, {
      action: 'accept',
      content: JSON.parse('{"toString":"a note","constructor":"Ada","__proto__":{"x":1}}'),
    })
    expect(ok.status, ok.text).toBe(200)
    expect(await result).toEqual({ text: 'content: {"toString":"a note","constructor":"Ada"}', isError: false })
  }, 60_000)

  it('a URL with credentials before the host is refused to the server (nobody is asked); a look-alike IDN host shows the host it really leads to', async () => {
    for (const url of ['https://good.example.com@evil.example.net/login', 'https://user:hunter2@example.com/']) {
      const r = await call('old:ask_url', { url })
      expect(r.text, url).toMatch(/user name or password before its host/)
      expect(r.text).toMatch(/nobody was asked/)
      expect(
        (await serve.api<{ questions: Question[] }>('GET', '/api/v1/questions?status=all')).json.questions.filter((q) => q.tool === 'old:ask_url'),
      ).toEqual([])
    }
    const result = call('old:ask_url', { url: 'https://аpple.com/login' })
    const q = await pending('old:ask_url')
    expect(q.url_host).toBe('xn--pple-43d.com')
    expect((await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action: 'decline' })).status).toBe(200)
    expect(await result).toEqual({ text: 'action: decline', isError: false })
  }, 60_000)

  it('a URL holding terminal escapes, bidi overrides and line breaks is shown normalized: the CLI and the window print none of them', async () => {
    const url = 'https://evil.example.net/\u001b[2J\u001b]0;Toolgate\u0007\u202emoc.elgoog//:sptth\u200b/x'
    const result = call('old:ask_url', { url })
    const q = await pending('old:ask_url')
    expect(q.url_host).toBe('evil.example.net')
    // eslint-disable-next-line no-control-regex
    const hidden = /[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/
    expect(q.url, JSON.stringify(q.url)).not.toMatch(hidden)
    // the same page: the browser opens what the URL parser makes of the server's URL
    expect(q.url).toBe(new URL(url).href)
    const shown = await runCli(['questions', 'show', q.id, ...serve.flags])
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout).toContain('evil.example.net')
    expect(shown.stdout.replaceAll('\n', ' '), JSON.stringify(shown.stdout)).not.toMatch(hidden)
    expect((await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action: 'decline' })).status).toBe(200)
    expect(await result).toEqual({ text: 'action: decline', isError: false })
  }, 60_000)

  it("a question's id answers no sampling confirmation, a sampling confirmation's id answers no question", async () => {
    const asked = call('old:ask', { question: 'which?' })
    const q = await pending('old:ask')
    const sampled = call('samp:sample', { prompt: 'spend it' })
    const c = await waitFor(
      async () =>
        (await serve.api<{ confirmations: Array<{ id: string; tool: string; kind?: string }> }>('GET', '/api/v1/confirmations')).json.confirmations.find(
          (x) => x.tool === 'samp:sample',
        ),
      20_000,
      'the sampling confirmation',
    )
    expect(c.kind).toBe('sampling')
    expect((await apiRequest(serve, 'POST', `/api/v1/confirmations/${q.id}/allow`, {})).status).toBe(404)
    expect((await apiRequest(serve, 'POST', `/api/v1/questions/${c.id}/answer`, { action: 'accept' })).status).toBe(404)
    // both still wait for the user
    expect((await serve.api<{ questions: Question[] }>('GET', '/api/v1/questions')).json.questions.map((x) => x.id)).toContain(q.id)
    expect((await apiRequest(serve, 'POST', `/api/v1/confirmations/${c.id}/deny`, {})).status).toBe(200)
    expect((await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action: 'decline' })).status).toBe(200)
    expect((await sampled).isError).toBe(true)
    expect(await asked).toEqual({ text: 'action: decline', isError: false })
  }, 60_000)

  it('a question does not outlive its server: disabling the server withdraws it', async () => {
    const asked = call('gone:ask', { question: 'still there?' }).catch((e: Error) => ({ text: e.message, isError: true }))
    const q = await pending('gone:ask')
    expect((await apiRequest(serve, 'POST', '/api/v1/servers/gone/disable', {})).status).toBe(200)
    await asked
    await waitFor(
      async () => {
        const all = (await serve.api<{ questions: Array<Question & { status: string }> }>('GET', '/api/v1/questions?status=all')).json.questions
        return all.find((x) => x.id === q.id)?.status !== 'pending'
      },
      20_000,
      'the question of the disabled server withdrawn',
    )
    expect((await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action: 'accept', content: { answer: 'late' } })).status).toBe(409)
  }, 60_000)

  it("an agent's token reads no question and no event stream (questions hold other agents' data)", async () => {
    const token = (await serve.api<{ token: string }>('POST', '/api/v1/agents/other/token')).json.token
    for (const p of ['/api/v1/questions?status=all', '/api/v1/events', '/api/v1/confirmations?status=all']) {
      const r = await fetch(`${serve.url}${p}`, { headers: { authorization: `Bearer ${token}` } })
      expect([401, 403], p).toContain(r.status)
      await r.body?.cancel()
    }
  }, 30_000)
})
