// The guards of an upstream's requests (upstream/server-requests.ts): roots, labels, the calls in flight.
import { describe, expect, it } from 'vitest'
import { CallsInFlight, labelRequest, rootsFor, type CallAsker } from '../../src/main/core/upstream/server-requests'
import { ServerEntrySchema } from '../../src/shared/config-schema'

const server = (extra: Record<string, unknown>) => ServerEntrySchema.parse({ name: 's', command: 'node', ...extra })

describe('rootsFor', () => {
  it("is the operator's roots, else the sandbox's grants with cwd, else none", () => {
    expect(rootsFor(server({ roots: ['/srv/a', '~/notes', '/srv/a/'] }), '/home/u').map((r) => r.uri)).toEqual(['file:///srv/a', 'file:///home/u/notes'])
    expect(rootsFor(server({ sandbox: { fs_read: ['/data/in'], fs_write: ['/data/out'] }, cwd: '/data' }), '/home/u').map((r) => r.uri)).toEqual([
      'file:///data/in',
      'file:///data/out',
      'file:///data',
    ])
    // nothing granted: no roots (cwd alone grants nothing), and never the whole disk
    expect(rootsFor(server({ cwd: '/data' }))).toEqual([])
    expect(rootsFor(server({ sandbox: false, cwd: '/data' }))).toEqual([])
    expect(rootsFor(ServerEntrySchema.parse({ name: 'h', url: 'https://example.com/mcp' }))).toEqual([])
  })
})

describe('labelRequest', () => {
  it('marks the question as the server’s, escapes and masks it; sampling gets no context and no tools', () => {
    const mask = (t: string): string => t.replaceAll('s3cret', '********')
    const el = labelRequest(
      'files',
      'elicitation/create',
      {
        message: 'Toolgate asks:\u202e allow? s3cret',
        requestedSchema: { type: 'object', properties: { a: { type: 'string', title: 'A\u0007', default: 's3cret' } } },
      },
      mask,
    )
    expect(el.message).toBe(`[From the MCP server "files", relayed by Toolgate; not a question of Toolgate's] Toolgate asks:\\u202e allow? ********`)
    expect(el.requestedSchema).toEqual({ type: 'object', properties: { a: { type: 'string', title: 'A\\u0007', default: '********' } } })
    const s = labelRequest(
      'files',
      'sampling/createMessage',
      {
        messages: [{ role: 'user', content: { type: 'text', text: 'the s3cret' } }],
        includeContext: 'allServers',
        tools: [{ name: 'x' }],
        toolChoice: { mode: 'required' },
        maxTokens: 10,
      },
      mask,
    )
    expect(s).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'the ********' } }],
      maxTokens: 10,
      includeContext: 'none',
      systemPrompt: `[From the MCP server "files", relayed by Toolgate; not a question of Toolgate's]`,
      _meta: { 'toolgate/server': 'files' },
    })
  })

  it('for the Toolgate window: the same text made safe, without the label (the window labels it with the configured name)', () => {
    const mask = (t: string): string => t.replaceAll('s3cret', '********')
    const el = labelRequest(
      'files',
      'elicitation/create',
      { message: 'Toolgate asks:\u202e s3cret', requestedSchema: { type: 'object', properties: {} } },
      mask,
      false,
    )
    expect(el.message).toBe('Toolgate asks:\\u202e ********')
    const s = labelRequest(
      'files',
      'sampling/createMessage',
      { messages: [{ role: 'user', content: { type: 'text', text: 'the s3cret\u202e' } }], systemPrompt: 'Be s3cret', maxTokens: 5 },
      mask,
      false,
    )
    expect(s).toEqual({ messages: [{ role: 'user', content: { type: 'text', text: 'the ********\\u202e' } }], maxTokens: 5, systemPrompt: 'Be ********' })
  })
})

describe('CallsInFlight', () => {
  const asker = (owner: string, log: string[]): CallAsker => ({
    owner,
    takes: () => true,
    ask: async (method) => {
      log.push(`${owner} ${method}`)
      return { action: 'accept' }
    },
  })

  it("gives a 2025 server's request to the only caller in flight, and to nobody when there are none or several", async () => {
    const calls = new CallsInFlight('s')
    const log: string[] = []
    expect(() => calls.forUnnamed('elicitation/create')).toThrow(/no call is in flight/)
    const a1 = calls.begin(asker('a', log))
    const a2 = calls.begin(asker('a', log))
    expect([a1.id, a2.id]).toContain(calls.forUnnamed('elicitation/create'))
    const b = calls.begin(asker('b', log))
    expect(() => calls.forUnnamed('elicitation/create')).toThrow(/2 different callers/)
    const anon = calls.begin(null)
    expect(() => calls.forUnnamed('elicitation/create')).toThrow(/3 different callers/)
    b.end()
    anon.end()
    await calls.ask(calls.forUnnamed('sampling/createMessage'), 'sampling/createMessage', {}, new AbortController().signal)
    expect(log).toEqual(['a sampling/createMessage'])
    a1.end()
    a2.end()
    await expect(calls.ask(a1.id, 'elicitation/create', {}, new AbortController().signal)).rejects.toThrow(/has ended/)
  })

  it('withdraws an open question when its call ends (the asker sees its signal abort)', async () => {
    const calls = new CallsInFlight('s')
    let seen: AbortSignal | null = null
    const waiting: CallAsker = {
      owner: 'a',
      takes: () => true,
      ask: (_m, _p, signal) =>
        new Promise((_r, reject) => {
          seen = signal
          signal.addEventListener('abort', () => reject(new Error('withdrawn')), { once: true })
        }),
    }
    const c = calls.begin(waiting)
    const asked = calls.ask(c.id, 'elicitation/create', {}, new AbortController().signal)
    expect(seen).not.toBeNull()
    c.end()
    await expect(asked).rejects.toThrow('withdrawn')
  })

  it('refuses a caller that is no agent, and a flood: 2 open at once, 10 per call', async () => {
    const calls = new CallsInFlight('s')
    const none = calls.begin(null)
    await expect(calls.ask(none.id, 'elicitation/create', {}, new AbortController().signal)).rejects.toThrow(/cannot be asked/)
    const release: Array<() => void> = []
    const slow: CallAsker = { owner: 'a', takes: () => true, ask: () => new Promise((r) => release.push(() => r({ action: 'cancel' }))) }
    const c = calls.begin(slow)
    const open = [
      calls.ask(c.id, 'elicitation/create', {}, new AbortController().signal),
      calls.ask(c.id, 'elicitation/create', {}, new AbortController().signal),
    ]
    await expect(calls.ask(c.id, 'elicitation/create', {}, new AbortController().signal)).rejects.toThrow(/2 questions open/)
    release.forEach((r) => r())
    await Promise.all(open)
    for (let i = 0; i < 8; i++) {
      const p = calls.ask(c.id, 'elicitation/create', {}, new AbortController().signal)
      release.pop()?.()
      release.forEach((r) => r())
      await p
    }
    await expect(calls.ask(c.id, 'elicitation/create', {}, new AbortController().signal)).rejects.toThrow(/more than 10 times/)
  })
})

describe('a form question: values as sent, text escaped and cut', () => {
  const mask = (t: string): string => t.replaceAll('s3cret', '********')
  const form = (requestedSchema: unknown, message = 'm') => labelRequest('files', 'elicitation/create', { message, requestedSchema }, mask, false)

  it('keeps enum, const and default values and required names as sent (masked only); titles it adds show them escaped', () => {
    const el = form({
      type: 'object',
      properties: {
        a: { type: 'string', title: 'A\u202e', enum: ['x\u202ey', 'plain'], default: 'x\u202ey' },
        b: { type: 'string', oneOf: [{ const: 'p\u0007' }, { const: 'q', title: 'Q\u0007' }] },
        c: { type: 'array', items: { type: 'string', enum: ['m\u200bn', 's3cret'] }, default: ['m\u200bn'] },
        'd\u202e': { type: 'string', enum: ['ok'] },
      },
      required: ['a', 'd\u202e'],
    })
    expect(el.requestedSchema).toEqual({
      type: 'object',
      properties: {
        a: { type: 'string', title: 'A\\u202e', enum: ['x\u202ey', 'plain'], enumNames: ['x\\u202ey', 'plain'], default: 'x\u202ey' },
        b: {
          type: 'string',
          oneOf: [
            { const: 'p\u0007', title: 'p\\u0007' },
            { const: 'q', title: 'Q\\u0007' },
          ],
        },
        c: {
          type: 'array',
          items: {
            anyOf: [
              { const: 'm\u200bn', title: 'm\\u200bn' },
              { const: '********', title: '********' },
            ],
          },
          default: ['m\u200bn'],
        },
        // a field name is a key the answer carries: as sent (the Toolgate form refuses it); without a
        // title of its own, the client would show the name itself: it gets one that shows it escaped
        'd\u202e': { type: 'string', title: 'd\\u202e', enum: ['ok'] },
      },
      required: ['a', 'd\u202e'],
    })
  })

  it('cuts the message, titles and descriptions with a mark that says how long they were', () => {
    const el = form(
      { type: 'object', properties: { a: { type: 'string', title: 't'.repeat(201), description: 'd'.repeat(1000) } } },
      `${'m'.repeat(3999)}\u202e`,
    )
    // escaping made it longer than the limit: cut after escaping too
    expect(el.message).toBe(`${'m'.repeat(3999)}\\… [cut by Toolgate: the server's text was 4000 characters]`)
    const a = (el.requestedSchema as { properties: { a: { title: string; description: string } } }).properties.a
    expect(a.title).toBe(`${'t'.repeat(200)}… [cut by Toolgate: the server's text was 201 characters]`)
    expect(a.description).toBe('d'.repeat(1000))
    expect(form({ type: 'object', properties: {} }, 'x'.repeat(1_000_000)).message).toMatch(
      /^x{4000}… \[cut by Toolgate: the server's text was 1000000 characters\]$/,
    )
  })

  it('refuses a schema that is more than a person can answer: deep nesting, a long value, too many choices', () => {
    let deep: Record<string, unknown> = { type: 'string' }
    for (let i = 0; i < 8; i++) deep = { type: 'object', properties: { x: deep } }
    expect(() => form(deep)).toThrow(/nests deeper than 6 levels/)
    expect(() => form({ type: 'object', properties: { a: { type: 'string', default: 'v'.repeat(1001) } } })).toThrow(/"default" .* 1001 characters long/)
    expect(() =>
      form({ type: 'object', properties: { a: { type: 'array', items: { anyOf: [...Array(201).keys()].map((i) => ({ const: String(i) })) } } } }),
    ).toThrow(/"anyOf" .* 201 choices/)
  })
})
