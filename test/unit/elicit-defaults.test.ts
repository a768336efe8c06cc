// The defaults of a form elicitation that Toolgate, as the server's client, fills into an accepted
// answer (SEP-1034): only fields the answer leaves out, only form values, only on accept, and a
// server's schema cannot reach anything but the answer's own fields.
import { describe, expect, it } from 'vitest'
import { withFormDefaults } from '../../src/main/core/upstream/elicit-defaults'

// the schema of the suite's client scenario elicitation-sep1034-client-defaults
const SCHEMA = {
  type: 'object',
  properties: {
    name: { type: 'string', default: 'John Doe' },
    age: { type: 'integer', default: 30 },
    score: { type: 'number', default: 95.5 },
    status: { type: 'string', enum: ['active', 'inactive', 'pending'], default: 'active' },
    verified: { type: 'boolean', default: true },
    pets: { type: 'array', items: { type: 'string', enum: ['cat', 'dog'] }, default: ['cat'] },
    note: { type: 'string' },
  },
}
const form = { mode: 'form', message: 'please accept', requestedSchema: SCHEMA }

describe('form defaults in an accepted answer', () => {
  it('fills every field the answer leaves out that has a default, and only those', () => {
    expect(withFormDefaults('elicitation/create', form, { action: 'accept', content: {} })).toEqual({
      action: 'accept',
      content: { name: 'John Doe', age: 30, score: 95.5, status: 'active', verified: true, pets: ['cat'] },
    })
    // what the answer says wins, false and "" included
    expect(withFormDefaults('elicitation/create', form, { action: 'accept', content: { name: '', verified: false, note: 'x' } })).toEqual({
      action: 'accept',
      content: { name: '', verified: false, note: 'x', age: 30, score: 95.5, status: 'active', pets: ['cat'] },
    })
  })

  it('a form without mode is a form; decline, cancel, URL questions and sampling are left as they are', () => {
    const { mode, ...noMode } = form
    void mode
    expect(withFormDefaults('elicitation/create', noMode, { action: 'accept', content: {} }).content).toMatchObject({ name: 'John Doe' })
    for (const answer of [{ action: 'decline' }, { action: 'cancel' }, { action: 'accept' }])
      expect(withFormDefaults('elicitation/create', form, answer)).toEqual(answer)
    expect(
      withFormDefaults('elicitation/create', { mode: 'url', url: 'https://x.example', requestedSchema: SCHEMA }, { action: 'accept', content: {} }),
    ).toEqual({
      action: 'accept',
      content: {},
    })
    expect(withFormDefaults('sampling/createMessage', form, { action: 'accept', content: {} })).toEqual({ action: 'accept', content: {} })
  })

  it('does not change the answer it was given', () => {
    const answer = { action: 'accept', content: {} as Record<string, unknown> }
    withFormDefaults('elicitation/create', form, answer)
    expect(answer.content).toEqual({})
  })

  it("a default of another shape than a form value is not sent (the server's answer stays valid)", () => {
    const odd = {
      requestedSchema: {
        type: 'object',
        properties: {
          obj: { type: 'string', default: { a: 1 } },
          nan: { type: 'number', default: Number.NaN },
          mixed: { type: 'array', default: ['a', 1] },
          nul: { default: null },
        },
      },
    }
    expect(withFormDefaults('elicitation/create', odd, { action: 'accept', content: {} })).toEqual({ action: 'accept', content: {} })
    expect(withFormDefaults('elicitation/create', { requestedSchema: 'nope' }, { action: 'accept', content: {} })).toEqual({ action: 'accept', content: {} })
  })

  it('attack: a field named __proto__ or constructor in the schema stays a field of the answer; nothing reaches Object.prototype', () => {
    const properties = JSON.parse('{"__proto__": {"type": "string", "default": "polluted"}, "constructor": {"type": "string", "default": "c"}}') as Record<
      string,
      unknown
    >
    const got = withFormDefaults('elicitation/create', { requestedSchema: { type: 'object', properties } }, { action: 'accept', content: {} })
    const content = got.content as Record<string, unknown>
    expect(Object.getPrototypeOf(content)).toBe(Object.prototype)
    expect(Object.hasOwn(content, '__proto__')).toBe(true)
    expect(JSON.parse(JSON.stringify(content))).toEqual(JSON.parse('{"__proto__": "polluted", "constructor": "c"}'))
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
    // an inherited default (a schema object whose prototype has one) is not the schema's own
    const inherited = Object.create({ default: 'from the prototype' }) as Record<string, unknown>
    inherited.type = 'string'
    expect(
      withFormDefaults('elicitation/create', { requestedSchema: { type: 'object', properties: { x: inherited } } }, { action: 'accept', content: {} }).content,
    ).toEqual({})
  })
})
