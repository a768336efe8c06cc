// A server's question as a person sees it and as the server reads the answer, from outside: a real
// `toolgate serve` fronting a 2025 and a 2026-07-28 server that ask with a schema of their choice
// (test/fixtures/servers/asker-server.mjs `ask_schema`), agents of both eras over HTTP /mcp, one
// whose client shows questions and one whose client cannot (Toolgate asks the user; answered
// through the control API). The values a form answers with (enum, const, default) reach the client
// and the Toolgate form unchanged, and the value the user picks is the one the server gets; the
// text a person reads is escaped and cut. Attacks: hostile values (bidi, newline, markup), a huge
// message and title, a schema with too many fields or choices, a huge value, a deep schema.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiRequest, waitFor, type Serve } from '../helpers/cli'
import { askerEntry, serveConnected } from '../helpers/askers'
import { stopServe, useCleanup } from '../helpers/cleanup'

useCleanup()

type Era = 'legacy' | 'modern'
const SERVERS = { legacy: 'old', modern: 'new' } as const

interface Agent {
  client: Client
  /** the elicitations the agent's client got */
  asked: Array<Record<string, unknown>>
  close(): Promise<void>
}

/** An agent; `pick` (a client that shows questions) answers each form with what it returns. */
async function agent(serve: Serve, era: Era, pick?: (params: Record<string, unknown>) => Record<string, unknown>): Promise<Agent> {
  const asked: Agent['asked'] = []
  const client = new Client(
    { name: `values-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } as never, capabilities: pick ? { elicitation: { form: {} } } : {} },
  )
  if (pick) {
    client.setRequestHandler('elicitation/create', async (req) => {
      const params = req.params as Record<string, unknown>
      asked.push(params)
      return { action: 'accept', content: pick(params) as never }
    })
  }
  await client.connect(new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${serve.key}` } } }))
  return { client, asked, close: () => client.close() }
}

async function askSchema(a: Agent, server: string, message: string, schema: unknown): Promise<{ text: string; isError: boolean }> {
  const r = await a.client.callTool(
    { name: 'call_tool_read', arguments: { name: `${server}:ask_schema`, args: { message, schema: JSON.stringify(schema) } } },
    { timeout: 60_000 },
  )
  return { text: (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n'), isError: r.isError === true }
}

interface Field {
  name: string
  kind: string
  title?: string
  description?: string
  default?: unknown
  options?: Array<{ value: string; title: string }>
}
interface Question {
  id: string
  tool: string
  message: string
  fields?: Field[]
}

const pending = (serve: Serve, tool: string): Promise<Question> =>
  waitFor(
    async () => (await serve.api<{ questions: Question[] }>('GET', '/api/v1/questions')).json.questions.find((q) => q.tool === tool),
    20_000,
    `a question of ${tool}`,
  )

// an attacker's values: a bidi override that reverses what is shown, a newline, markup, a quote
const BIDI = 'invoice\u202efdp.exe'
const NEWLINE = 'yes\nToolgate: approved'
const MARKUP = '<img src=x onerror=alert(1)>"'
const HOSTILE = {
  type: 'object',
  properties: {
    pick: { type: 'string', title: 'Pick\u202e one', enum: [BIDI, NEWLINE, MARKUP], default: BIDI },
    titled: {
      type: 'string',
      oneOf: [
        { const: BIDI, title: 'The invoice' },
        { const: NEWLINE, title: 'Yes' },
      ],
    },
    many: { type: 'array', items: { type: 'string', enum: [BIDI, 'plain'] }, default: [BIDI] },
  },
  required: ['pick'],
}
const CUT = /… \[cut by Toolgate: the server's text was (\d+) characters\]$/

describe("a question's values reach the user and the server unchanged; its text is escaped and cut", () => {
  let serve: Serve

  beforeAll(async () => {
    serve = await serveConnected('toolgate-question-values-', {
      mcpServers: {
        old: askerEntry('legacy'),
        new: askerEntry('modern'),
      },
    })
  }, 90_000)

  afterAll(() => stopServe(serve))

  it("the agent's client gets the values as sent, with escaped titles where a value would show otherwise; the server gets the pick (both eras)", async () => {
    for (const era of ['legacy', 'modern'] as const) {
      for (const server of Object.values(SERVERS)) {
        const a = await agent(serve, era, () => ({ pick: BIDI, titled: NEWLINE, many: [BIDI, 'plain'] }))
        try {
          const r = await askSchema(a, server, 'Choose', HOSTILE)
          expect(r, `${era} agent, server ${server}`).toEqual({
            isError: false,
            text: `content: ${JSON.stringify({ pick: BIDI, titled: NEWLINE, many: [BIDI, 'plain'] })}`,
          })
          const schema = a.asked[0].requestedSchema as { properties: Record<string, Record<string, unknown>> }
          const { pick, titled, many } = schema.properties
          expect(pick.enum).toEqual([BIDI, NEWLINE, MARKUP])
          expect(pick.default).toBe(BIDI)
          // what a person reads is escaped: the title, and names for the values that would show otherwise
          expect(pick.title).toBe('Pick\\u202e one')
          expect(pick.enumNames).toEqual(['invoice\\u202efdp.exe', 'yes\\u000aToolgate: approved', MARKUP])
          expect(titled.oneOf).toEqual([
            { const: BIDI, title: 'The invoice' },
            { const: NEWLINE, title: 'Yes' },
          ])
          expect(many.items).toEqual({
            anyOf: [
              { const: BIDI, title: 'invoice\\u202efdp.exe' },
              { const: 'plain', title: 'plain' },
            ],
          })
          expect(many.default).toEqual([BIDI])
        } finally {
          await a.close()
        }
      }
    }
  }, 60_000)

  it('the Toolgate form offers the values as sent (shown escaped), and the value the user picks is the one the server gets (both eras)', async () => {
    for (const era of ['legacy', 'modern'] as const) {
      const server = SERVERS[era]
      const a = await agent(serve, era)
      try {
        const call = askSchema(a, server, 'Choose', HOSTILE)
        const q = await pending(serve, `${server}:ask_schema`)
        const pick = q.fields?.find((f) => f.name === 'pick')
        expect(pick?.options).toEqual([
          { value: BIDI, title: 'invoice\\u202efdp.exe' },
          { value: NEWLINE, title: 'yes\\u000aToolgate: approved' },
          { value: MARKUP, title: MARKUP },
        ])
        expect(pick?.default).toBe(BIDI)
        expect(pick?.title).toBe('Pick\\u202e one')
        expect(q.fields?.find((f) => f.name === 'many')?.options?.map((o) => o.value)).toEqual([BIDI, 'plain'])
        // an escaped title is not a value: the form refuses it, and the question stays open
        const wrong = await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action: 'accept', content: { pick: 'invoice\\u202efdp.exe' } })
        expect(wrong.status).toBe(400)
        const ok = await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, {
          action: 'accept',
          content: { pick: NEWLINE, titled: BIDI, many: [BIDI] },
        })
        expect(ok.json, JSON.stringify(ok.json)).toMatchObject({ ok: true })
        expect(await call).toEqual({ isError: false, text: `content: ${JSON.stringify({ pick: NEWLINE, titled: BIDI, many: [BIDI] })}` })
      } finally {
        await a.close()
      }
    }
  }, 60_000)

  it("a hostile server's huge message and title are cut with a mark, in the client and in the Toolgate form (both eras)", async () => {
    const huge = `Toolgate asks: ${'A'.repeat(300_000)}\u202e`
    const schema = {
      type: 'object',
      properties: { answer: { type: 'string', title: 'T'.repeat(5000), description: `D${'d'.repeat(20_000)}` } },
    }
    for (const era of ['legacy', 'modern'] as const) {
      const server = SERVERS[era]
      const inClient = await agent(serve, era, () => ({ answer: 'ok' }))
      try {
        expect(await askSchema(inClient, server, huge, schema)).toEqual({ isError: false, text: 'content: {"answer":"ok"}' })
        const asked = inClient.asked[0]
        const message = asked.message as string
        expect(message.startsWith(`[From the MCP server "${server}", relayed by Toolgate; not a question of Toolgate's] Toolgate asks: AAA`)).toBe(true)
        expect(message).toMatch(CUT)
        expect(Number(CUT.exec(message)?.[1])).toBe(huge.length)
        expect(message.length).toBeLessThan(4300)
        const field = (asked.requestedSchema as { properties: { answer: { title: string; description: string } } }).properties.answer
        expect(field.title).toMatch(CUT)
        expect(field.title.length).toBeLessThan(300)
        expect(field.description).toMatch(CUT)
        expect(field.description.length).toBeLessThan(1100)
      } finally {
        await inClient.close()
      }
      const a = await agent(serve, era)
      try {
        const call = askSchema(a, server, huge, schema)
        const q = await pending(serve, `${server}:ask_schema`)
        expect(q.message.startsWith('Toolgate asks: AAA')).toBe(true)
        expect(q.message).toMatch(CUT)
        expect(q.message.length).toBeLessThan(4100)
        expect(q.fields?.[0].title).toMatch(CUT)
        expect(q.fields?.[0].description).toMatch(CUT)
        await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action: 'decline' })
        expect(await call).toEqual({ isError: false, text: 'action: decline' })
      } finally {
        await a.close()
      }
    }
  }, 90_000)

  it('a schema more than a person can answer is refused to the server, and nobody is asked (both eras, both paths)', async () => {
    const fields = Object.fromEntries([...Array(41).keys()].map((i) => [`f${i}`, { type: 'string' }]))
    const choices = { type: 'object', properties: { c: { type: 'string', enum: [...Array(201).keys()].map(String) } } }
    const longValue = { type: 'object', properties: { c: { type: 'string', enum: ['x'.repeat(1001)] } } }
    const wide = (n: number) => ({ type: 'string', enum: [...Array(200).keys()].map((i) => `${n}-${i}-${'v'.repeat(900)}`) })
    const big = { type: 'object', properties: { a: wide(1), b: wide(2) } }
    const cases: Array<[unknown, RegExp]> = [
      [{ type: 'object', properties: fields }, /41 fields \(at most 40\)/],
      [choices, /201 choices \(at most 200\)/],
      [longValue, /1001 characters long \(at most 1000\)/],
      [big, /at most 262144/],
    ]
    for (const era of ['legacy', 'modern'] as const) {
      const server = SERVERS[era]
      for (const withClient of [true, false]) {
        const a = await agent(serve, era, withClient ? () => ({}) : undefined)
        try {
          for (const [schema, why] of cases) {
            const r = await askSchema(a, server, 'Answer all of this', schema)
            expect(r.text, `${era}, client ${withClient}`).toMatch(why)
            expect(r.text).toMatch(/nobody was asked/)
          }
          expect(a.asked).toEqual([])
        } finally {
          await a.close()
        }
      }
    }
    expect(
      (await serve.api<{ questions: Question[] }>('GET', '/api/v1/questions?status=all')).json.questions.filter((q) => q.message === 'Answer all of this'),
    ).toEqual([])
  }, 90_000)
})
