// The structured-output check (structured-output.ts) across relistings: every tools/list makes new
// objects of the same schemas, and the JSON Schema validator keeps each schema object it compiled
// for good. A server that relists in a loop (list_changed, reconnects) made every call after a
// relisting compile its schema again, and the server's validator grow by one compiled schema each
// time. Now a schema is compiled once per server and text; the results are checked the same.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/client/validators/ajv'
import { checkStructuredOutput } from '../../src/main/core/agent-server/structured-output'

const schema = { type: 'object', properties: { celsius: { type: 'number' } }, required: ['celsius'] }
const ok = { content: [], structuredContent: { celsius: 21 } }
const bad = { content: [], structuredContent: { celsius: 'hot' } }

afterEach(() => {
  vi.restoreAllMocks()
})

describe('structured output across relistings', () => {
  it.each([
    ['without $id', schema],
    ['with a $id', { $id: 'https://weather.example/schemas/relist.json', ...schema }],
  ])('%s: the same schema listed again is not compiled again; results are still checked', (_, s) => {
    const compiles = vi.spyOn(AjvJsonSchemaValidator.prototype, 'getValidator')
    const server = `relist-${Math.random()}`
    for (let i = 0; i < 50; i++) {
      const listed = structuredClone(s) // what a new tools/list makes
      expect(checkStructuredOutput(server, `${server}:t`, listed, ok).isError, `listing ${i}`).toBeFalsy()
      expect(checkStructuredOutput(server, `${server}:t`, listed, bad).isError, `listing ${i}`).toBe(true)
    }
    // before: 50
    expect(compiles).toHaveBeenCalledTimes(1)
    // another server's identical schema: compiled in its own validator (36d78e1)
    checkStructuredOutput(`${server}-other`, `${server}-other:t`, structuredClone(s), ok)
    expect(compiles).toHaveBeenCalledTimes(2)
    // a changed schema: compiled (and checked with the new one)
    const changed = { ...structuredClone(s), required: ['fahrenheit'] }
    expect(checkStructuredOutput(server, `${server}:t`, changed, ok).isError).toBe(true)
    expect(compiles).toHaveBeenCalledTimes(3)
  })
})
