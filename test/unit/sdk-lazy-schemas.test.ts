// The main build builds the MCP SDK core package's neutral and OAuth schemas on first use (scripts/sdk-lazy-schemas.mts):
// the rewritten modules must build nothing at load, build one schema and what it is made of when
// it is first touched, and answer every parse exactly as the published modules do; the step must
// refuse module shapes it is not sound for; the built bundle carries it.
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { LAZY_SCHEMA_SOURCE, lazySchemaFiles, lazySchemas } from '../../scripts/sdk-lazy-schemas.mjs'
import { assertBuilt, cleanupTemp, ROOT, tempDir } from '../helpers/cli'

const CORE = fs.realpathSync(path.join(ROOT, 'node_modules/@modelcontextprotocol/core/dist'))
const ZOD_V4 = createRequire(path.join(ROOT, 'package.json')).resolve('zod/v4')

afterAll(cleanupTemp)

type Zod = Record<string, unknown>
type Loaded = { exports: Record<string, unknown>; calls: () => number }

/**
 * Loads the published module (`lazy` false) or the rewritten one from a temp dir, on a zod whose
 * lower-case builders (z.object, z.string, …) count their calls: the count says how many schema
 * parts were built. Each load gets its own counter (a fresh copy of the counting module).
 */
let loads = 0
async function load(file: string, lazy: boolean): Promise<Loaded> {
  const dir = tempDir('toolgate-sdk-lazy-')
  const real = (await import(pathToFileURL(ZOD_V4).href)) as Zod
  const names = Object.keys(real).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k) && k !== 'default')
  const counting = [
    `import * as real from ${JSON.stringify(pathToFileURL(ZOD_V4).href)};`,
    'let n = 0; export const __calls = () => n;',
    // local names, exported under zod's (some are reserved words: null, undefined, void)
    ...names.map((k, i) =>
      typeof real[k] === 'function' && /^[a-z]/.test(k)
        ? `const e${i} = (...a) => (n++, real[${JSON.stringify(k)}](...a));`
        : `const e${i} = real[${JSON.stringify(k)}];`,
    ),
    `export { ${names.map((k, i) => `e${i} as ${k}`).join(', ')} };`,
  ].join('\n')
  fs.writeFileSync(path.join(dir, 'zod.mjs'), counting)
  fs.writeFileSync(path.join(dir, 'lazy-schema.mjs'), LAZY_SCHEMA_SOURCE)
  const text = fs.readFileSync(file, 'utf8')
  const code = (lazy ? lazySchemas(text, file).code : text)
    .replace('"\\u0000toolgate:lazy-schema"', '"./lazy-schema.mjs"')
    .replace('from "zod/v4"', 'from "./zod.mjs"')
    .replace(/\n\/\/# sourceMappingURL=.*$/, '')
  const out = path.join(dir, `m${++loads}.mjs`)
  fs.writeFileSync(out, code)
  const byAlias = (await import(pathToFileURL(out).href)) as Record<string, unknown>
  // the dist exports under short aliases (`ToolSchema as $n`): read them back by their names
  const list = /export \{([^}]*)\};?\s*$/.exec(code.trimEnd())?.[1] ?? ''
  const exports = Object.fromEntries(
    list.split(',').map((e) => {
      const [local, alias] = e.trim().split(/\s+as\s+/) as [string, string | undefined]
      return [local, byAlias[alias ?? local]]
    }),
  )
  const zod = (await import(pathToFileURL(path.join(dir, 'zod.mjs')).href)) as { __calls: () => number }
  return { exports, calls: zod.__calls }
}

const [NEUTRAL, AUTH] = lazySchemaFiles(CORE) as [string, string]

/** Values to parse: shapes of the protocol and of OAuth, right and wrong. */
const SAMPLES: unknown[] = [
  undefined,
  null,
  0,
  'x',
  [],
  {},
  { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 't', arguments: { a: 1 } } },
  { jsonrpc: '2.0', id: 'a', result: { content: [{ type: 'text', text: 'hi' }] } },
  { jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'bad' } },
  { jsonrpc: '2.0', method: 'notifications/initialized' },
  { jsonrpc: '1.0', id: 1, method: 'x' },
  { name: 'read', inputSchema: { type: 'object', properties: { id: { type: 'string' } } }, annotations: { readOnlyHint: true } },
  { name: 'read', inputSchema: { type: 'string' } },
  { content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }], isError: false },
  { content: [{ type: 'resource', resource: { uri: 'file:///a', text: 't' } }] },
  { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } },
  { access_token: 'tok', token_type: 'Bearer', expires_in: 3600, refresh_token: 'r' },
  { access_token: 'tok' },
  { issuer: 'https://as.example', authorization_endpoint: 'https://as.example/a', token_endpoint: 'https://as.example/t', response_types_supported: ['code'] },
  { issuer: 'https://as.example', authorization_endpoint: 'javascript:alert(1)', token_endpoint: 'https://as.example/t', response_types_supported: ['code'] },
  { resource: 'https://mcp.example', authorization_servers: ['https://as.example'] },
  { resource: 'https://mcp.example', authorization_servers: ['data:text/html,x'] },
  { redirect_uris: ['http://127.0.0.1:1/cb'], client_name: 'Toolgate' },
  { client_id: 'abc', redirect_uris: ['http://127.0.0.1:1/cb'], client_id_issued_at: 1 },
  { error: 'invalid_grant', error_description: 'expired' },
  { type: 'string', minLength: 1 },
  { type: 'object', properties: { a: { type: 'string', enum: ['x', 'y'] } }, required: ['a'] },
  { action: 'accept', content: { a: 'x' } },
]

type Schema = { _zod: { def: { type: string } }; safeParse: (x: unknown) => { success: boolean; data?: unknown; error?: { issues: unknown } } }
const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && '_zod' in v

describe('the SDK core package’s schema modules, rewritten', () => {
  it('are the neutral and the OAuth schemas; every schema is built lazily, the protocol constants stay', () => {
    for (const file of [NEUTRAL, AUTH]) {
      const r = lazySchemas(fs.readFileSync(file, 'utf8'), file)
      expect(r.lazy.length).toBeGreaterThan(10)
      for (const name of r.lazy) expect(name).toMatch(/Schema$/)
      for (const name of r.eager) expect(name).not.toMatch(/Schema$/)
    }
    expect(lazySchemas(fs.readFileSync(NEUTRAL, 'utf8'), NEUTRAL).eager).toEqual(expect.arrayContaining(['LATEST_PROTOCOL_VERSION', 'JSONRPC_VERSION']))
  })

  it('build nothing at load, and one schema with only what it is made of when it is first touched', async () => {
    const published = await load(NEUTRAL, false)
    const atLoad = published.calls()
    expect(atLoad).toBeGreaterThan(300) // the published module builds all its schemas when it loads (z.* calls alone)
    const lazy = await load(NEUTRAL, true)
    expect(lazy.calls()).toBe(0)
    const request = lazy.exports.JSONRPCRequestSchema
    expect(lazy.calls()).toBe(0) // reading the binding builds nothing
    expect(isSchema(request) && request.safeParse(SAMPLES[6]).success).toBe(true)
    const one = lazy.calls()
    expect(one).toBeGreaterThan(0)
    expect(one).toBeLessThan(atLoad / 10)
    expect(isSchema(request) && request.safeParse(SAMPLES[7]).success).toBe(false)
    expect(lazy.calls()).toBe(one) // built once
  })

  it('answer every parse as the published modules do, for every exported schema', async () => {
    let compared = 0
    for (const file of [NEUTRAL, AUTH]) {
      const [published, lazy] = [await load(file, false), await load(file, true)]
      expect(Object.keys(lazy.exports).sort()).toEqual(Object.keys(published.exports).sort())
      const z = (await import(pathToFileURL(ZOD_V4).href)) as { ZodType: new () => unknown }
      for (const [name, want] of Object.entries(published.exports)) {
        const got = lazy.exports[name]
        if (!isSchema(want)) {
          expect(got, name).toEqual(want) // a protocol constant: the same value
          continue
        }
        if (!isSchema(got)) throw new Error(`${name} is no schema in the rewritten module`)
        expect(got instanceof z.ZodType, name).toBe(want instanceof z.ZodType)
        expect(got._zod.def.type, name).toBe(want._zod.def.type)
        for (const v of SAMPLES) {
          const [a, b] = [want.safeParse(v), got.safeParse(v)]
          expect(JSON.stringify(b), `${name} on ${JSON.stringify(v)}`).toBe(JSON.stringify(a))
          compared++
        }
      }
    }
    expect(compared).toBeGreaterThan(150 * SAMPLES.length)
  })

  it('compose with schemas built outside them, as the SDK and Toolgate do', async () => {
    const lazy = await load(NEUTRAL, true)
    const z = (await import(pathToFileURL(ZOD_V4).href)) as { object: (s: object) => { safeParse: (x: unknown) => { success: boolean } } }
    const outer = z.object({ tool: lazy.exports.ToolSchema as object })
    expect(outer.safeParse({ tool: SAMPLES[11] }).success).toBe(true)
    expect(outer.safeParse({ tool: SAMPLES[12] }).success).toBe(false)
    const extended = (lazy.exports.CallToolResultSchema as { extend: (s: object) => { safeParse: (x: unknown) => { success: boolean } } }).extend({})
    expect(extended.safeParse(SAMPLES[13]).success).toBe(true)
  })
})

describe('the rewrite refuses shapes it is not sound for', () => {
  const header = 'import * as z from "zod/v4";\n'
  const refuses = (body: string, what: RegExp) => expect(() => lazySchemas(header + body, 'x.mjs')).toThrow(what)
  it('a top-level statement other than `const NAME = EXPR`', () => {
    refuses('const A = z.string();\nfunction f() { return A; }\nexport { A };', /not `const NAME = EXPR;`/)
    refuses('let A = z.string();\nexport { A };', /not `const NAME = EXPR;`/)
    refuses('const A = z.string(), B = z.number();\nexport { A, B };', /not `const NAME = EXPR;`/)
    refuses('const A = z.string();\nA.describe("x");\nexport { A };', /not `const NAME = EXPR;`/)
  })
  it('a binding inside a value that shadows a module-level name', () => {
    refuses('const A = z.string();\nconst B = z.lazy(() => { const A = 1; return z.number(); });\nexport { A, B };', /binds `A`/)
    refuses('const A = z.string();\nconst B = z.string().refine((A) => true);\nexport { A, B };', /binds `A`/)
  })
  it('a module without zod or without schemas', () => {
    expect(() => lazySchemas('const A = 1;\nexport { A };', 'x.mjs')).toThrow(/does not import zod/)
    refuses('const A = 1;\nexport { A };', /declares no schema/)
  })
  it('a module already rewritten', () => {
    const once = lazySchemas(`${header}const A = z.string();\nexport { A };`, 'x.mjs').code
    expect(() => lazySchemas(once, 'x.mjs')).toThrow(/already names/)
  })
})

describe('the built bundle', () => {
  it('holds the stand-in and no schema of the core package built at load', () => {
    assertBuilt()
    const chunks = path.join(ROOT, 'out/main/chunks')
    const core = fs.readdirSync(chunks).find((f) => f.startsWith('core-'))
    const text = fs.readFileSync(path.join(chunks, core as string), 'utf8')
    // (booleans: a failure must not print the 1.9 MB chunk)
    expect(text.includes('function lazySchema(build)')).toBe(true)
    // the neutral layer's and the OAuth layer's schemas, each behind its builder
    expect(/function __tgLazy_JSONRPCRequestSchema\(\)/.test(text)).toBe(true)
    expect(/function __tgLazy_OAuthTokensSchema\(\)/.test(text)).toBe(true)
    expect(/\bconst OAuthTokensSchema = z\.object/.test(text)).toBe(false)
  })
})
