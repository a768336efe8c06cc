// The user's answers to servers' questions on the activity record, from outside: a real `toolgate
// serve` fronting a 2025 and a 2026-07-28 server that ask (test/fixtures/servers/asker-server.mjs),
// agents of both eras over HTTP /mcp. An answer given in Toolgate (API, CLI), one nobody gave in
// time, and one given in the agent's own client are each recorded as a decision (accept, decline,
// cancel) under the agent whose call asked, naming the server, the tool and the fields the answer
// filled. Attack: what the user typed (a password) is never on the record, nor in its files.
import fs from 'node:fs'
import path from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiRequest, runCli, startServe, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { askerEntry } from '../helpers/askers'
import { stopServe, useCleanup } from '../helpers/cleanup'

const SECRET = 'hunter2-Zq9-do-not-record'

useCleanup()

type Era = 'legacy' | 'modern'

async function agent(serve: Serve, era: Era, inClient = false): Promise<Client> {
  const client = new Client(
    { name: `record-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } as never, capabilities: inClient ? { elicitation: { form: {} } } : {} },
  )
  if (inClient) client.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { user: 'ada', password: SECRET } }))
  await client.connect(new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${serve.key}` } } }))
  return client
}

const LOGIN = {
  type: 'object',
  properties: { user: { type: 'string', title: 'User' }, password: { type: 'string', title: 'Password' }, note: { type: 'string' } },
  required: ['user', 'password'],
}

function callSchema(c: Client, server: string): Promise<string> {
  return c
    .callTool(
      { name: 'call_tool_read', arguments: { name: `${server}:ask_schema`, args: { message: 'Sign in', schema: JSON.stringify(LOGIN) } } },
      { timeout: 60_000 },
    )
    .then((r) => (r.content as Array<{ text?: string }>).map((x) => x.text ?? '').join('\n'))
}

interface Decision {
  kind: string
  action: string
  server: string
  tool?: string
  agent: string | null
  client: string | null
  by: string
  via: string
  message: string
  question?: { id?: string; mode: string; asked_in: string; fields?: string[]; url_host?: string }
}

const decisions = async (serve: Serve): Promise<Decision[]> =>
  (await serve.api<{ events: Decision[] }>('GET', '/api/v1/activity?kind=decision&limit=200')).json.events

const pending = (serve: Serve, tool: string): Promise<{ id: string }> =>
  waitFor(
    async () => (await serve.api<{ questions: Array<{ id: string; tool: string }> }>('GET', '/api/v1/questions')).json.questions.find((q) => q.tool === tool),
    20_000,
    `a question of ${tool}`,
  )

function filesHolding(dir: string, needle: string): string[] {
  const out: string[] = []
  for (const e of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!e.isFile()) continue
    const p = path.join(e.parentPath, e.name)
    if (fs.readFileSync(p).includes(needle)) out.push(p)
  }
  return out
}

describe("the user's answers to servers' questions are on the activity record, never what the user typed", () => {
  let serve: Serve
  let dataDir: string

  beforeAll(async () => {
    const tmp = tempDir('toolgate-question-activity-')
    dataDir = path.join(tmp, 'data')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {
        old: askerEntry('legacy'),
        new: askerEntry('modern'),
        brief: askerEntry('legacy', { confirm_timeout_s: 2 }),
      },
    })
    serve = await startServe({ configPath, dataDir })
    for (const s of ['old', 'new', 'brief']) await waitForServerState(serve, s, 'connected')
  }, 90_000)

  afterAll(() => stopServe(serve))

  it('an answer in Toolgate (API accept, CLI decline): the action, the server, the call, the agent, the fields filled; never the values (both eras)', async () => {
    for (const [era, server] of [
      ['legacy', 'old'],
      ['modern', 'new'],
    ] as const) {
      const c = await agent(serve, era)
      try {
        const accepted = callSchema(c, server)
        const q = await pending(serve, `${server}:ask_schema`)
        const r = await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action: 'accept', content: { user: 'ada', password: SECRET } })
        expect(r.status, r.text).toBe(200)
        expect(await accepted).toBe(`content: ${JSON.stringify({ user: 'ada', password: SECRET })}`)
        const declined = callSchema(c, server)
        const q2 = await pending(serve, `${server}:ask_schema`)
        expect((await runCli(['questions', 'answer', q2.id, '--decline', ...serve.flags])).code).toBe(0)
        expect(await declined).toBe('action: decline')
        const mine = (await decisions(serve)).filter((d) => d.question?.id === q.id || d.question?.id === q2.id)
        expect(mine.map((d) => [d.action, d.by, d.via])).toEqual(
          expect.arrayContaining([
            ['accept', 'user', 'api'],
            ['decline', 'user', 'cli'],
          ]),
        )
        const acc = mine.find((d) => d.action === 'accept')
        expect(acc).toMatchObject({ kind: 'decision', server, tool: 'ask_schema', agent: null, client: `record-${era}` })
        expect(acc?.question).toEqual({ id: q.id, mode: 'form', asked_in: 'toolgate', fields: ['user', 'password'] })
        expect(mine.find((d) => d.action === 'decline')?.question).toEqual({ id: q2.id, mode: 'form', asked_in: 'toolgate' })
      } finally {
        await c.close()
      }
    }
  }, 90_000)

  it('a question nobody answered in time: recorded as cancel by Toolgate (the timer)', async () => {
    const c = await agent(serve, 'legacy')
    try {
      expect(await callSchema(c, 'brief')).toBe('action: cancel')
      const d = (await decisions(serve)).find((x) => x.server === 'brief')
      expect(d).toMatchObject({ action: 'cancel', by: 'toolgate', via: 'timer', tool: 'ask_schema', client: 'record-legacy' })
      expect(d?.question).toMatchObject({ mode: 'form', asked_in: 'toolgate' })
      expect(d?.message).toMatch(/Nobody answered the question of server "brief" in time/)
    } finally {
      await c.close()
    }
  }, 60_000)

  it("an answer in the agent's own client: recorded as given there, with the fields filled (both eras)", async () => {
    for (const [era, server] of [
      ['legacy', 'old'],
      ['modern', 'new'],
      ['modern', 'old'],
    ] as const) {
      const before = (await decisions(serve)).length
      const c = await agent(serve, era, true)
      try {
        expect(await callSchema(c, server)).toBe(`content: ${JSON.stringify({ user: 'ada', password: SECRET })}`)
        const d = (await decisions(serve)).slice(0, (await decisions(serve)).length - before).find((x) => x.question?.asked_in === 'client')
        expect(d, `${era} agent, ${server}`).toMatchObject({ action: 'accept', by: 'user', via: 'client', server, tool: 'ask_schema', client: `record-${era}` })
        expect(d?.question).toEqual({ mode: 'form', asked_in: 'client', fields: ['user', 'password'] })
      } finally {
        await c.close()
      }
    }
  }, 60_000)

  it('what the user typed is nowhere on the record: not in the API, not in the files', async () => {
    const all = await serve.api('GET', '/api/v1/activity?limit=500')
    expect(all.status).toBe(200)
    expect(all.text).not.toContain(SECRET)
    expect(filesHolding(path.join(dataDir, 'activity'), SECRET)).toEqual([])
  })
})
