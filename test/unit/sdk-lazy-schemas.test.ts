// The main build builds the MCP SDK core package's neutral and OAuth schemas on first use (scripts/sdk-lazy-schemas.mts):
// the rewritten modules must build nothing at load, build one schema and what it is made of when
// it is first touched, and answer every parse exactly as the published modules do; the step must
// refuse module shapes it is not sound for; the built bundle carries it.
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { LAZY_SCHEMA_SOURCE, lazySchemaFiles, lazySchemas, lazyWireBuilders } from '../../scripts/sdk-lazy-schemas.mjs'
import { memoReturn, regionStatements, topLevel, WIRE_BUILDERS, wireFile } from '../../scripts/sdk-dedupe.mjs'
import { assertBuilt, cleanupTemp, ROOT, tempDir } from '../helpers/cli'

const CORE = fs.realpathSync(path.join(ROOT, 'node_modules/@modelcontextprotocol/core/dist'))
const ZOD_V4 = createRequire(path.join(ROOT, 'package.json')).resolve('zod/v4')
const ZOD = createRequire(path.join(ROOT, 'package.json'))('zod/v4') as Record<string, unknown>

afterAll(cleanupTemp)

type Loaded = { exports: Record<string, unknown>; calls: () => number }

/** A module re-exporting zod whose lower-case builders (z.object, z.string, …) count their calls (`__calls()`). */
function countingZod(): string {
  const names = Object.keys(ZOD).filter((k) => /^[A-Za-z_$][\w$]*$/.test(k) && k !== 'default')
  return [
    `import * as real from ${JSON.stringify(pathToFileURL(ZOD_V4).href)};`,
    'let n = 0; export const __calls = () => n;',
    // local names, exported under zod's (some are reserved words: null, undefined, void)
    ...names.map((k, i) =>
      typeof ZOD[k] === 'function' && /^[a-z]/.test(k)
        ? `const e${i} = (...a) => (n++, real[${JSON.stringify(k)}](...a));`
        : `const e${i} = real[${JSON.stringify(k)}];`,
    ),
    `export { ${names.map((k, i) => `e${i} as ${k}`).join(', ')} };`,
  ].join('\n')
}

/**
 * Loads the published module (`lazy` false) or the rewritten one from a temp dir, on a zod whose
 * lower-case builders (z.object, z.string, …) count their calls: the count says how many schema
 * parts were built. Each load gets its own counter (a fresh copy of the counting module).
 */
let loads = 0
async function load(file: string, lazy: boolean): Promise<Loaded> {
  const dir = tempDir('toolgate-sdk-lazy-')
  fs.writeFileSync(path.join(dir, 'zod.mjs'), countingZod())
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
  // harder shapes (session 10's attack): own __proto__ keys as JSON.parse makes them, recursion,
  // unions of every member, refinements, unknown keys a loose object keeps
  JSON.parse('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t","__proto__":{"x":1},"arguments":{"__proto__":{"polluted":true}}}}'),
  JSON.parse('{"__proto__":{"jsonrpc":"2.0"},"id":1,"method":"x"}'),
  JSON.parse('{"name":"read","inputSchema":{"type":"object","__proto__":{"type":"string"}}}'),
  { jsonrpc: '2.0', id: null, error: { code: 1.5, message: 'x', data: { deep: [[[[[{ a: [null] }]]]]] } } },
  { jsonrpc: '2.0', id: 1, result: {}, error: { code: 1, message: 'x' } },
  { type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'array', items: { type: 'object', properties: { c: { $ref: '#' } } } } } } } },
  { type: 'string', oneOf: [{ const: 'a', title: 'A' }], default: 1 },
  { action: 'accept', content: { a: ['x', 1], b: { c: 1 } } },
  {
    content: [
      { type: 'resource_link', uri: 'file:///a', name: 'a' },
      { type: 'audio', data: 'x', mimeType: 'audio/wav' },
    ],
    extra: { k: 1 },
    _meta: { 'a/b': 1 },
  },
  { content: [{ type: 'resource', resource: { uri: 'file:///a', blob: 'AAAA', text: 'both' } }] },
  { issuer: 'https://as.example', authorization_endpoint: 'http://as.example/a', token_endpoint: 'file:///t', response_types_supported: [] },
  { redirect_uris: ['javascript:alert(1)'], client_uri: 'javascript:alert(1)', logo_uri: 'data:x' },
  { access_token: 'tok', token_type: 'Bearer', expires_in: '3600', scope: 1 },
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

/**
 * A module holding one wire builder of `file` (as published, or as this step rewrites it) and the
 * module-level declarations it reaches, its imports made absolute, on the counting zod; exports it as `build`.
 */
async function builderModule(
  file: string,
  era: (typeof WIRE_BUILDERS)[number],
  lazy: boolean,
): Promise<{ build: () => Record<string, unknown>; calls: () => number }> {
  const dir = tempDir('toolgate-sdk-lazy-wire-')
  const published = fs.readFileSync(file, 'utf8')
  const text = lazy ? lazyWireBuilders(published, published, file).code : published
  const { body, decls } = topLevel(file, published)
  const name = memoReturn(regionStatements(published, body, era.region, file), era.memo, file).build
  const builder = topLevel(file, text).decls.get(name)
  if (!builder) throw new Error(`no ${name} in ${file}`)
  const lines = [`import { lazySchema as __tgL, REAL as __tgR, derived as __tgD } from "./lazy-schema.mjs";`]
  const seen = new Set<string>([name])
  const todo = [...builder.uses]
  while (todo.length > 0) {
    const n = todo.pop() as string
    const d = decls.get(n)
    if (seen.has(n) || !d) continue
    seen.add(n)
    const imp = /^import (\S+) from (.+)$/.exec(d.text)
    if (!imp) {
      lines.push(d.text)
      todo.push(...d.uses)
      continue
    }
    const [, imported, source] = imp as unknown as [string, string, string]
    const from =
      source === 'zod/v4'
        ? './zod.mjs'
        : source === '@modelcontextprotocol/core/internal'
          ? pathToFileURL(path.join(CORE, 'internal.mjs')).href
          : pathToFileURL(path.join(path.dirname(file), source)).href
    lines.unshift(
      imported === 'ImportNamespaceSpecifier'
        ? `import * as ${n} from ${JSON.stringify(from)};`
        : `import { ${imported} as ${n} } from ${JSON.stringify(from)};`,
    )
  }
  lines.push(builder.text, `export { ${name} as build };`)
  fs.writeFileSync(path.join(dir, 'zod.mjs'), countingZod())
  fs.writeFileSync(path.join(dir, 'lazy-schema.mjs'), LAZY_SCHEMA_SOURCE)
  fs.writeFileSync(path.join(dir, 'm.mjs'), lines.join('\n'))
  const m = (await import(pathToFileURL(path.join(dir, 'm.mjs')).href)) as { build: () => Record<string, unknown> }
  const zod = (await import(pathToFileURL(path.join(dir, 'zod.mjs')).href)) as { __calls: () => number }
  return { build: m.build, calls: zod.__calls }
}

/** Messages of both eras, right and wrong. */
const WIRE_SAMPLES: unknown[] = [
  ...SAMPLES,
  { method: 'tools/call', params: { name: 't', arguments: { a: 1 } } },
  { method: 'tools/call', params: { name: 't', arguments: { a: 1 }, _meta: { progressToken: 1 } } },
  { method: 'tools/call', params: { arguments: {} } },
  { method: 'tools/list', params: {} },
  { method: 'tools/list', params: { cursor: 'c' } },
  { method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'c', version: '1' } } },
  { protocolVersion: '2025-11-25', capabilities: { tools: { listChanged: true } }, serverInfo: { name: 's', version: '1' } },
  { tools: [{ name: 'read', inputSchema: { type: 'object' } }], nextCursor: 'n' },
  { tools: [{ name: 'read', inputSchema: { type: 'object' } }], ttlMs: 1000, cacheScope: 'private', resultType: 'complete' },
  { content: [{ type: 'text', text: 'hi' }], structuredContent: { a: 1 } },
  { content: [{ type: 'text', text: 'hi' }], resultType: 'complete', _meta: {} },
  { content: [{ type: 'text' }] },
  { method: 'notifications/progress', params: { progressToken: 1, progress: 0.5 } },
  { method: 'notifications/tools/list_changed' },
  { method: 'elicitation/create', params: { message: 'm', requestedSchema: { type: 'object', properties: { a: { type: 'string' } } } } },
  { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'x' } }], maxTokens: 5 } },
]

describe('the wire-schema builders, rewritten', () => {
  for (const pkg of ['client', 'server'])
    for (const era of WIRE_BUILDERS)
      it(`build nothing when called and parse as published: the ${pkg} package's ${era.era} set`, async () => {
        const file = wireFile(fs.realpathSync(path.join(ROOT, 'node_modules/@modelcontextprotocol', pkg, 'dist')))
        const [published, lazy] = [await builderModule(file, era, false), await builderModule(file, era, true)]
        const want = published.build()
        expect(published.calls()).toBeGreaterThan(300)
        const got = lazy.build()
        const atBuild = lazy.calls()
        expect(atBuild).toBe(0) // tables of schemas the builder returns hold stand-ins too
        expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort())
        // one schema built on first touch, and only what it is made of
        const call = got.CallToolRequestSchema
        expect(lazy.calls()).toBe(atBuild) // reading it builds nothing; touching it (below) builds it
        if (!isSchema(call)) throw new Error('CallToolRequestSchema is no schema')
        call.safeParse(WIRE_SAMPLES[SAMPLES.length])
        expect(lazy.calls()).toBeGreaterThan(atBuild)
        expect(lazy.calls()).toBeLessThan(published.calls() / 3) // tools/call of 2026 is ≈ 150 of ≈ 600: its _meta envelope
        let compared = 0
        const compare = (label: string, a: unknown, b: unknown): void => {
          if (!isSchema(a)) {
            if (typeof a === 'object' && a !== null) for (const [k, v] of Object.entries(a)) compare(`${label}.${k}`, v, (b as Record<string, unknown>)[k])
            else expect(b, label).toEqual(a)
            return
          }
          if (!isSchema(b)) throw new Error(`${label} is no schema in the rewritten builder`)
          expect(b._zod.def.type, label).toBe(a._zod.def.type)
          for (const v of WIRE_SAMPLES) {
            expect(JSON.stringify(b.safeParse(v)), `${label} on ${JSON.stringify(v)}`).toBe(JSON.stringify(a.safeParse(v)))
            compared++
          }
        }
        for (const k of Object.keys(want)) compare(k, want[k], got[k])
        expect(compared).toBeGreaterThan(100 * WIRE_SAMPLES.length)
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
  it('a wire builder with another shape, or changed before this step', () => {
    const file = wireFile(fs.realpathSync(path.join(ROOT, 'node_modules/@modelcontextprotocol/client/dist')))
    const published = fs.readFileSync(file, 'utf8')
    const name = memoReturn(regionStatements(published, topLevel(file, published).body, WIRE_BUILDERS[0].region, file), WIRE_BUILDERS[0].memo, file).build
    const head = `function ${name}() {\n`
    expect(published.split(head).length - 1).toBe(1)
    const changed = (to: string) => published.replace(head, to)
    expect(() => lazyWireBuilders(changed(`${head}\tlet counter = 0;\n`), changed(`${head}\tlet counter = 0;\n`), file)).toThrow(/not `const NAME = EXPR;`/)
    expect(() => lazyWireBuilders(changed(`function ${name}(x) {\n`), changed(`function ${name}(x) {\n`), file)).toThrow(/does not take no parameter/)
    expect(() => lazyWireBuilders(changed(`${head}\tconst n = 1;\n`), published, file)).toThrow(/was changed before this step/)
  })
  it('nothing else: values made from schemas that are not schemas get a builder, or stay where they stood when exported', () => {
    const header = 'import * as z from "zod/v4";\n'
    const inner = lazySchemas(`${header}const A = z.object({ a: z.string() });\nconst K = A.shape;\nconst B = z.object(K);\nexport { A, B };`, 'x.mjs')
    expect(inner.lazy.sort()).toEqual(['A', 'B'])
    expect(inner.code).toContain('const K = __tgD(() => (A[__tgR].shape));')
    expect(inner.code).toContain('const B = __tgL(() => (z.object(K())));')
    const exported = lazySchemas(`${header}const A = z.object({ a: z.string() });\nconst K = A.shape;\nexport { A, K };`, 'x.mjs')
    expect(exported.eager).toEqual(['K'])
    expect(exported.code).toContain('const K = A[__tgR].shape;')
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
    // the neutral layer's and the OAuth layer's schemas, and the wire builders' (both eras, one copy: sdk-dedupe), each a stand-in
    expect(/\bJSONRPCRequestSchema\s*=\s*lazySchema\(\(\)\s*=>/.test(text)).toBe(true)
    expect(/\bOAuthTokensSchema\s*=\s*lazySchema\(\(\)\s*=>/.test(text)).toBe(true)
    expect(/\bOAuthTokensSchema\s*=\s*z\.object/.test(text)).toBe(false)
    expect(text.split(/lazySchema\(\(\)\s*=>/).length - 1).toBeGreaterThan(180 + 14 + 2 * (140 + 120))
  })
})
