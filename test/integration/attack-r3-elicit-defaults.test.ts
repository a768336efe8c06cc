// Attack on SEP-1034 defaults from outside: a real `toolgate serve` fronting a 2025 and a
// 2026-07-28 server that asks with a form (test/fixtures/servers/asker-server.mjs `ask_schema`),
// agents of both eras over HTTP /mcp. A server's `default` must never reach the server as the
// user's answer unless the user was shown it and left it: not for a field the person cleared in
// Toolgate's form (the window leaves an emptied optional field out, and pre-fills every default),
// not for a field the agent's own client answered without (its form may show no defaults, or the
// user cleared it there), not for a choice the form cannot show (an enum default that is none of
// its choices shows as "(no answer)"). Accepting a question as shown (`toolgate questions answer ID
// --accept`, no content) sends the defaults the form shows, and only those.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiRequest, waitFor, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { askerEntry, serveConnected } from '../helpers/askers'

useCleanup()

type Era = 'legacy' | 'modern'
const ERAS = [
  ['legacy', 'old'],
  ['modern', 'new'],
] as const

/** A mail form whose optional fields carry the server's defaults (a Cc the user would rather not send to). */
const MAIL = {
  type: 'object',
  properties: {
    subject: { type: 'string', title: 'Subject' },
    cc: { type: 'string', title: 'Cc', format: 'email', default: 'boss@evil.example' },
    folders: { type: 'array', title: 'Archive in', items: { type: 'string', enum: ['inbox', 'all', 'spam'] }, default: ['all', 'spam'] },
    copies: { type: 'integer', title: 'Copies', default: 3 },
  },
  required: ['subject'],
}

/** Only defaults; one of them is none of its field's choices (the form cannot show it). */
const SHOWN = {
  type: 'object',
  properties: {
    cc: { type: 'string', title: 'Cc', default: 'team@example.com' },
    copies: { type: 'integer', title: 'Copies', default: 3 },
    role: { type: 'string', title: 'Role', enum: ['read', 'write'], default: 'admin' },
  },
}

/** An agent of `era`; with `answer`, its own client shows elicitation and answers with it. */
async function agent(serve: Serve, era: Era, answer?: Record<string, unknown>): Promise<Client> {
  const client = new Client(
    { name: `defaults-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } as never, capabilities: answer ? { elicitation: { form: {} } } : {} },
  )
  if (answer) client.setRequestHandler('elicitation/create', async () => answer as never)
  await client.connect(new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${serve.key}` } } }))
  return client
}

/** Calls `server`'s ask_schema with `schema`; the text the server answered ("content: {...}" as it got it). */
function ask(c: Client, server: string, schema: unknown): Promise<string> {
  return c
    .callTool(
      { name: 'call_tool_read', arguments: { name: `${server}:ask_schema`, args: { message: 'Send it?', schema: JSON.stringify(schema) } } },
      { timeout: 60_000 },
    )
    .then((r) => (r.content as Array<{ text?: string }>).map((x) => x.text ?? '').join('\n'))
}

interface Field {
  name: string
  default?: unknown
}

const pending = (serve: Serve, tool: string): Promise<{ id: string; fields?: Field[] }> =>
  waitFor(
    async () =>
      (await serve.api<{ questions: Array<{ id: string; tool: string; fields?: Field[] }> }>('GET', '/api/v1/questions')).json.questions.find(
        (q) => q.tool === tool,
      ),
    20_000,
    `a question of ${tool}`,
  )

describe("a server's defaults reach it only as the user left them", () => {
  let serve: Serve

  beforeAll(async () => {
    serve = await serveConnected('toolgate-elicit-defaults-', {
      mcpServers: {
        old: askerEntry('legacy'),
        new: askerEntry('modern'),
      },
    })
  }, 90_000)

  afterAll(() => stopServe(serve))

  it.each(ERAS)(
    '%s: the fields a person cleared in Toolgate’s form stay out (the server’s Cc, archive folders and count are not put back)',
    async (era, server) => {
      const c = await agent(serve, era)
      try {
        const result = ask(c, server, MAIL)
        const q = await pending(serve, `${server}:ask_schema`)
        // the window pre-fills every default; the person emptied Cc, unticked both folders and
        // cleared the count: an emptied optional field is left out of what the window sends
        const r = await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action: 'accept', content: { subject: 'hi' } })
        expect(r.status, r.text).toBe(200)
        // before: content {"subject":"hi","cc":"boss@evil.example","folders":["all","spam"],"copies":3}
        expect(await result).toBe(`content: ${JSON.stringify({ subject: 'hi' })}`)
      } finally {
        await c.close()
      }
    },
  )

  it.each(ERAS)('%s: what the agent’s own client answers reaches the server as it is, without defaults its form may never have shown', async (era, server) => {
    const c = await agent(serve, era, { action: 'accept', content: { subject: 'hi' } })
    try {
      expect(await ask(c, server, MAIL)).toBe(`content: ${JSON.stringify({ subject: 'hi' })}`)
    } finally {
      await c.close()
    }
  })

  it.each(ERAS)('%s: accepted as shown, the server gets the defaults the form shows, not a choice it cannot show', async (era, server) => {
    const c = await agent(serve, era)
    try {
      const result = ask(c, server, SHOWN)
      const q = await pending(serve, `${server}:ask_schema`)
      // the form shows "(no answer)" for the role: "admin" is none of its choices
      expect(q.fields?.find((f) => f.name === 'role')?.default).toBeUndefined()
      const r = await apiRequest(serve, 'POST', `/api/v1/questions/${q.id}/answer`, { action: 'accept' })
      expect(r.status, r.text).toBe(200)
      expect(await result).toBe(`content: ${JSON.stringify({ cc: 'team@example.com', copies: 3 })}`)
    } finally {
      await c.close()
    }
  })
})
