// The questions queue (requests/questions.ts) and the form read from an elicitation's schema
// (shared/elicit-form.ts): limits, the timeout (a fake clock), content checked against the form.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { checkContent, formOf, shownDefaults } from '../../src/shared/elicit-form'
import { MAX_QUESTIONS_PER_AGENT, QuestionRefused, UserQuestions, type QuestionInput } from '../../src/main/core/requests/questions'
import { samplingText, samplingView } from '../../src/shared/sampling-view'

const form = (properties: Record<string, unknown>, required: string[] = []) => ({ type: 'object', properties, required })

describe('formOf', () => {
  it('reads every kind the MCP elicitation schema has: string, number, integer, boolean, enums old and new, multi-select', () => {
    const r = formOf(
      form(
        {
          s: { type: 'string', title: 'S', format: 'email', maxLength: 9, default: 'a@b.c' },
          n: { type: 'number', maximum: 2.5 },
          i: { type: 'integer', minimum: 1 },
          b: { type: 'boolean', description: 'yes?' },
          e: { type: 'string', enum: ['x', 'y'], enumNames: ['Ex', 'Why'] },
          o: { type: 'string', oneOf: [{ const: 'p', title: 'Pee' }] },
          m: { type: 'array', items: { type: 'string', enum: ['u', 'v'] }, maxItems: 1 },
          t: { type: 'array', items: { anyOf: [{ const: 'k', title: 'Kay' }] } },
        },
        ['s', 'm'],
      ),
    )
    expect(r).toEqual({
      fields: [
        { name: 's', kind: 'string', title: 'S', required: true, format: 'email', maxLength: 9, default: 'a@b.c' },
        { name: 'n', kind: 'number', required: false, maximum: 2.5 },
        { name: 'i', kind: 'integer', required: false, minimum: 1 },
        { name: 'b', kind: 'boolean', required: false, description: 'yes?' },
        {
          name: 'e',
          kind: 'enum',
          required: false,
          options: [
            { value: 'x', title: 'Ex' },
            { value: 'y', title: 'Why' },
          ],
        },
        { name: 'o', kind: 'enum', required: false, options: [{ value: 'p', title: 'Pee' }] },
        {
          name: 'm',
          kind: 'multi',
          required: true,
          options: [
            { value: 'u', title: 'u' },
            { value: 'v', title: 'v' },
          ],
          maxItems: 1,
        },
        { name: 't', kind: 'multi', required: false, options: [{ value: 'k', title: 'Kay' }] },
      ],
    })
  })

  it('refuses what is not a flat form: nested objects, unknown types, a required name that is no field, hidden characters in a name', () => {
    expect(formOf({ type: 'object' })).toEqual({ error: expect.stringContaining('"properties"') })
    expect(formOf(form({ d: { type: 'object', properties: {} } }))).toEqual({ error: expect.stringContaining('field "d" is not one of the kinds') })
    expect(formOf(form({ a: { type: 'string' } }, ['b']))).toEqual({ error: expect.stringContaining('"required" names "b"') })
    expect(formOf(form({ 'a\u200bb': { type: 'string' } }))).toEqual({ error: expect.stringContaining('a\\u200bb') })
  })

  it('keeps only defaults the form can show; shownDefaults is the form as shown (what accept without content sends)', () => {
    const r = formOf(
      form({
        e: { type: 'string', enum: ['x', 'y'], default: 'admin' },
        f: { type: 'string', enum: ['x', 'y'], default: 'y' },
        o: { type: 'string', oneOf: [{ const: 'p' }], default: 'q' },
        m: { type: 'array', items: { type: 'string', enum: ['u', 'v'] }, default: ['u', 'hidden'] },
        k: { type: 'array', items: { anyOf: [{ const: 'u' }, { const: 'v' }] }, default: ['v'] },
        s: { type: 'string', default: '' },
        n: { type: 'integer', default: 0 },
        b: { type: 'boolean', default: false },
        none: { type: 'string' },
      }),
    )
    if ('error' in r) throw new Error(r.error)
    expect(Object.fromEntries(r.fields.map((f) => [f.name, f.default]))).toEqual({
      e: undefined,
      f: 'y',
      o: undefined,
      m: undefined,
      k: ['v'],
      s: '',
      n: 0,
      b: false,
      none: undefined,
    })
    expect(shownDefaults(r.fields)).toEqual({ f: 'y', k: ['v'], s: '', n: 0, b: false })
  })
})

describe('checkContent', () => {
  const r = formOf(
    form(
      {
        name: { type: 'string', title: 'Name', minLength: 2 },
        n: { type: 'integer', maximum: 3 },
        e: { type: 'string', enum: ['a'] },
        m: { type: 'array', items: { type: 'string', enum: ['u'] }, minItems: 1 },
      },
      ['name'],
    ),
  )
  const fields = 'fields' in r ? r.fields : []

  it('passes content that matches, and only the fields of the form', () => {
    expect(checkContent(fields, { name: 'Ada', n: 3, e: 'a', m: ['u'] })).toEqual({ ok: true, content: { name: 'Ada', n: 3, e: 'a', m: ['u'] } })
  })

  it('says every problem: missing, too short, wrong type, not a choice, unknown field', () => {
    const bad = checkContent(fields, { name: 'A', n: 4.5, e: 'b', m: [], x: 1 })
    expect(bad.ok).toBe(false)
    const why = bad.ok ? '' : bad.error
    for (const part of [
      '"name" (Name) must be at least 2 characters',
      '"n" must be a whole number',
      '"e" must be one of "a"',
      '"m" needs at least 1 choices',
      'the form has no field "x"',
    ]) {
      expect(why).toContain(part)
    }
    expect(checkContent(fields, {})).toEqual({ ok: false, error: '"name" is required' })
  })

  it("attack: fields named after Object's members read no inherited member; a __proto__ key is no field", () => {
    const form = formOf({
      type: 'object',
      properties: { toString: { type: 'string' }, constructor: { type: 'string' }, hasOwnProperty: { type: 'boolean' } },
      required: ['constructor'],
    })
    if ('error' in form) throw new Error(form.error)
    // the optional ones left empty are fine (they were refused as "must be text" / "true or false")
    expect(checkContent(form.fields, { constructor: 'Ada' })).toEqual({ ok: true, content: { constructor: 'Ada' } })
    // the required one is not filled by Object's constructor
    expect(checkContent(form.fields, {})).toEqual({ ok: false, error: '"constructor" is required' })
    expect(checkContent(form.fields, JSON.parse('{"constructor":"Ada","__proto__":{"toString":"x"}}'))).toEqual({
      ok: false,
      error: 'the form has no field "__proto__"',
    })
  })
})

describe('UserQuestions', () => {
  let now = Date.parse('2026-11-27T10:00:00Z')
  const events: Array<{ id: string; status: string; new?: boolean }> = []
  const make = () => new UserQuestions({ timeoutS: () => 30, emit: (e) => events.push(e), now: () => now })
  const input = (
    agent: string | null,
    params: Record<string, unknown> = { mode: 'form', message: 'hi', requestedSchema: form({ a: { type: 'string' } }, ['a']) },
  ): QuestionInput => ({
    server: 's',
    agent,
    client: 'c',
    tool: 's:t',
    params,
  })

  beforeEach(() => {
    vi.useFakeTimers()
    events.length = 0
  })
  afterEach(() => vi.useRealTimers())

  it('nobody answers for the user: the timeout is cancel, and an answer after it is refused 409', async () => {
    const qs = make()
    const asked = qs.ask(input('a'), new AbortController().signal)
    const [q] = qs.list()
    expect(q.expires_at).toBe('2026-11-27T10:00:30.000Z')
    now += 30_000
    await vi.advanceTimersByTimeAsync(30_000)
    await expect(asked).resolves.toEqual({ action: 'cancel' })
    expect(qs.list({ status: 'all' })[0].status).toBe('timeout')
    expect(() => qs.answer(q.id, 'accept', { a: 'x' }, 'api')).toThrow(expect.objectContaining({ status: 409 }))
    expect(events.map((e) => e.status)).toEqual(['pending', 'timeout'])
  })

  it('a question whose call ends is withdrawn; the answer is refused', async () => {
    const qs = make()
    const stop = new AbortController()
    const asked = qs.ask(input('a'), stop.signal)
    const [q] = qs.list()
    stop.abort()
    await expect(asked).rejects.toBeInstanceOf(QuestionRefused)
    expect(qs.list({ status: 'all' })[0].status).toBe('withdrawn')
    expect(() => qs.answer(q.id, 'decline', undefined, 'api')).toThrow(expect.objectContaining({ status: 409 }))
  })

  it('content is checked (400), a forged id is 404; the right answer reaches the asker once', async () => {
    const qs = make()
    const asked = qs.ask(input('a'), new AbortController().signal)
    const [q] = qs.list()
    expect(() => qs.answer('q_forged', 'accept', { a: 'x' }, 'api')).toThrow(expect.objectContaining({ status: 404 }))
    expect(() => qs.answer(q.id, 'accept', { a: 1 }, 'api')).toThrow(expect.objectContaining({ status: 400 }))
    expect(() => qs.answer(q.id, 'cancel', { a: 'x' }, 'api')).toThrow(expect.objectContaining({ status: 400 }))
    expect(qs.answer(q.id, 'accept', { a: 'x' }, 'window').question.answered_via).toBe('window')
    await expect(asked).resolves.toEqual({ action: 'accept', content: { a: 'x' } })
    expect(() => qs.answer(q.id, 'accept', { a: 'y' }, 'api')).toThrow(expect.objectContaining({ status: 409 }))
  })

  it(`at most ${MAX_QUESTIONS_PER_AGENT} waiting per agent; other agents still ask; a URL must be a web page`, () => {
    const qs = make()
    for (let i = 0; i < MAX_QUESTIONS_PER_AGENT; i++) qs.open(input('a'))
    expect(() => qs.open(input('a'))).toThrow(QuestionRefused)
    expect(qs.open(input('b')).agent).toBe('b')
    expect(() => qs.open(input('b', { mode: 'url', message: 'go', url: 'javascript:alert(1)' }))).toThrow(/not an http\(s\) URL/)
    expect(qs.open(input('c', { mode: 'url', message: 'go', url: 'https://xn--80ak6aa92e.com/a' })).url_host).toBe('xn--80ak6aa92e.com')
    // no user name or password before the host (it hides where the URL leads), and at most MAX_URL_CHARS as sent and as shown
    expect(() => qs.open(input('c', { mode: 'url', message: 'go', url: 'https://bank.example@evil.example/' }))).toThrow(/user name or password/)
    expect(() => qs.open(input('c', { mode: 'url', message: 'go', url: 'https://:pw@example.com/' }))).toThrow(/user name or password/)
    expect(() => qs.open(input('c', { mode: 'url', message: 'go', url: `https://example.com/${'a'.repeat(4077)}` }))).toThrow(
      /4097 characters long \(at most 4096\)/,
    )
    expect(qs.open(input('c', { mode: 'url', message: 'go', url: `https://example.com/${'a'.repeat(4076)}` })).url).toHaveLength(4096)
    expect(() => qs.open(input('c', { mode: 'url', message: 'go', url: `https://example.com/${'\u00e9'.repeat(700)}` }))).toThrow(/once normalized/)
  })
})

describe('samplingView', () => {
  it('shows text cut at a readable length, images as a note, the model preferences and maxTokens', () => {
    const v = samplingView({
      messages: [
        { role: 'user', content: { type: 'text', text: 'x'.repeat(2500) } },
        { role: 'user', content: [{ type: 'image', mimeType: 'image/png', data: 'A'.repeat(4096) }] },
      ],
      modelPreferences: { hints: [{ name: 'claude' }], costPriority: 0.2 },
      maxTokens: 100,
    })
    expect(v.messages[0]).toEqual({ role: 'user', text: `${'x'.repeat(2000)}…`, truncated: true })
    expect(v.messages[1]).toEqual({ role: 'user', text: '[image, image/png, 3 KB: not shown]' })
    expect(v.model_preferences).toEqual({ hints: ['claude'], cost_priority: 0.2 })
    expect(samplingText(v)).toContain('model preferences: hints claude; cost 0.2')
    expect(samplingText(v)).toContain('maxTokens: 100')
  })
})
