// The main build gives the MCP SDK's JSON-RPC guards a test of the members their schema requires
// before the zod parse (scripts/sdk-fast-guards.mts). That test may only ever say "no" where the
// schema says "no": here each guard's test is run against the published guard (the schema's own
// safeParse, as vitest loads the SDK unbuilt) on every message of a generated set, messages that
// pass included; the check that refuses a changed SDK is tried on changed copies; and the built
// bundle holds every guard with its test, none without.
import fs from 'node:fs'
import path from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it } from 'vitest'
import * as server from '@modelcontextprotocol/server'
import * as client from '@modelcontextprotocol/client'
import { assertPinned, FAST_GUARDS, type FastGuard, fastGuards, guardStatements, schemaFile } from '../../scripts/sdk-fast-guards.mjs'
import { wireFile } from '../../scripts/sdk-dedupe.mjs'
import { assertBuilt, cleanupTemp, ROOT, tempDir } from '../helpers/cli'

const SDK = path.join(ROOT, 'node_modules/@modelcontextprotocol')
afterAll(cleanupTemp)

type Guard = (value: unknown) => boolean
const published = (name: string, pkg: Record<string, unknown>): Guard => {
  const g = pkg[name]
  if (typeof g !== 'function') throw new Error(`the SDK no longer exports ${name}`)
  return g as Guard
}
/** The guard as the build writes it (its statement), its schema's parse replaced by the published guard. */
const fastOf = (g: FastGuard, full: Guard): Guard => {
  const statement = guardStatements(g).fast
  const parse = `${g.schema}.safeParse(value).success`
  expect(statement.endsWith(`&& ${parse};`)).toBe(true)
  return new Function('full', `${statement.replace(parse, 'full(value)')}\nreturn ${g.guard}`)(full) as Guard
}

/** A member's values: kinds its schema takes and kinds it does not. */
const member = {
  jsonrpc: fc.constantFrom('2.0', '1.0', 2, null),
  id: fc.oneof(fc.constantFrom(0, 7, 'a', 1.5, -1, null, true), fc.constant({}), fc.constant([1])),
  method: fc.constantFrom('tools/call', 'initialize', 'notifications/initialized', 'notifications/progress', '', 7, null),
  params: fc.oneof(fc.constant({}), fc.constant({ name: 'x', arguments: {} }), fc.constant({ _meta: { progressToken: 'p' } }), fc.constantFrom('all', 3, null)),
  result: fc.oneof(fc.constant({}), fc.constant({ content: [] }), fc.constant({ _meta: 'x' }), fc.constantFrom('ok', null, 0)),
  error: fc.oneof(
    fc.constant({ code: -32600, message: 'no' }),
    fc.constant({ code: 1.5, message: 'no' }),
    fc.constant({ code: 1 }),
    fc.constantFrom('bad', null),
  ),
  extra: fc.constantFrom(true, 'x'),
}
type Key = keyof typeof member
/** The initialize request's params, which its schema requires. */
const initParams = { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } }
/** One message of each kind that passes its guard. */
const valid: Record<string, unknown>[] = [
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x', arguments: { id: 'a' } } },
  { jsonrpc: '2.0', id: 'r', method: 'tools/list' },
  { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1 } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'ok' }] } },
  { jsonrpc: '2.0', id: 3, result: {} },
  { jsonrpc: '2.0', id: 4, error: { code: -32601, message: 'Method not found' } },
  { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error', data: 'x' } },
  { jsonrpc: '2.0', id: 0, method: 'initialize', params: initParams },
]
/** A change to a message: a member left out, given another value (one its schema may refuse), or added. */
const change = fc.oneof(
  fc.record({ drop: fc.constantFrom(...(Object.keys(member) as Key[])) }),
  fc.constantFrom(...(Object.keys(member) as Key[])).chain((key) => member[key].map((value) => ({ key, value }))),
)
/** Valid messages of every kind with none to three changes, and values that are no object at all. */
const messages = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.tuple(fc.constantFrom(...valid), fc.array(change, { maxLength: 3 })).map(([base, changes]) => {
      const m: Record<string, unknown> = { ...base }
      for (const c of changes) {
        if ('drop' in c) delete m[c.drop]
        else m[c.key] = c.value
      }
      return m as unknown
    }),
  },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(null, undefined, 0, 'x', [], [valid[0]]) },
)

describe('each guard with its test', () => {
  for (const g of FAST_GUARDS) {
    for (const [pkgName, pkg] of [
      ['server', server],
      ['client', client],
    ] as const) {
      it(`${g.guard} (${pkgName} package) answers as the published guard on every message`, () => {
        const full = published(g.guard, pkg)
        const fast = fastOf(g, full)
        let yes = 0
        fc.assert(
          fc.property(messages, (m) => {
            const want = full(m)
            if (want) yes++
            expect(fast(m), JSON.stringify(m)).toBe(want)
          }),
          { numRuns: 4000, seed: 29 },
        )
        // the set held messages the guard says yes to: a test that says "no" too often is seen
        expect(yes).toBeGreaterThan(20)
      })
    }
  }

  it('the same check catches a test that says "no" where the schema says "yes"', () => {
    // a request needs no params: a test that asked for them would turn requests away
    const full = published('isJSONRPCRequest', server)
    const wrong = fastOf({ guard: 'isJSONRPCRequest', schema: 'JSONRPCRequestSchema', needs: `value.jsonrpc === "2.0" && value.params !== undefined` }, full)
    const found = fc.check(
      fc.property(messages, (m) => wrong(m) === full(m)),
      { numRuns: 4000, seed: 29 },
    )
    expect(found.failed).toBe(true)
  })
})

describe('the step refuses an SDK that changed under it', () => {
  const core = fs.realpathSync(path.join(SDK, 'core/dist'))

  it('holds on the installed SDK', () => {
    const file = schemaFile(core)
    expect(() => assertPinned(file, fs.readFileSync(file, 'utf8'))).not.toThrow()
    for (const pkg of ['client', 'server']) {
      const f = wireFile(fs.realpathSync(path.join(SDK, pkg, 'dist')))
      expect(() => fastGuards(fs.readFileSync(f, 'utf8'), f)).not.toThrow()
    }
  })

  it('refuses a schema whose required member became optional', () => {
    const file = schemaFile(core)
    const text = fs.readFileSync(file, 'utf8')
    const changed = text.replace(
      /(const JSONRPCRequestSchema = z\.object\(\{\s*jsonrpc: z\.literal\(JSONRPC_VERSION\),\s*id: RequestIdSchema)/,
      '$1.optional()',
    )
    expect(changed).not.toBe(text)
    const copy = path.join(tempDir('toolgate-fast-guards-'), path.basename(file))
    fs.writeFileSync(copy, changed)
    expect(() => assertPinned(copy, changed)).toThrow(/JSONRPCRequestSchema changed/)
  })

  it('refuses a guard that is no longer the published one-liner', () => {
    const f = wireFile(fs.realpathSync(path.join(SDK, 'server/dist')))
    const text = fs.readFileSync(f, 'utf8')
    const { published: line } = guardStatements(FAST_GUARDS[2] as FastGuard)
    const changed = text.replace(line, line.replace('(value) =>', '(value, strict) =>'))
    expect(changed).not.toBe(text)
    expect(() => fastGuards(changed, f)).toThrow(/holds 0 copies of `const isJSONRPCResultResponse/)
  })
})

describe('the built main bundle', () => {
  it('holds every guard it uses with its test, none without', () => {
    assertBuilt()
    const dir = path.join(ROOT, 'out/main/chunks')
    const bundle = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.js'))
      .map((f) => fs.readFileSync(path.join(dir, f), 'utf8'))
      .join('\n')
    const copies = new Map<string, number>()
    for (const g of FAST_GUARDS) {
      // printed without whitespace (scripts/statement-lines.mts); the client's copy renamed `NAME$1`
      const defs = bundle.match(new RegExp(`\\b${g.guard}(\\$\\d+)?=value=>[^\\n]*?\\b${g.schema}\\.safeParse\\(value\\)\\.success`, 'g')) ?? []
      for (const d of defs) expect(d, g.guard).toMatch(/=value=>typeof value===(["'`])object\1&&value!==null&&value\./)
      copies.set(g.guard, defs.length)
    }
    // the Protocol's guards, in the client's and the server's copy (a guard nothing uses is left out of the bundle)
    for (const g of ['isJSONRPCRequest', 'isJSONRPCNotification', 'isJSONRPCResultResponse', 'isJSONRPCErrorResponse']) expect(copies.get(g), g).toBe(2)
  })
})
