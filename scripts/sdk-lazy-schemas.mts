// Build step of the main bundle: the MCP SDK's schemas are built on first use instead of at load or all at once (docs/performance.md).
//
// @modelcontextprotocol/core 2.4.0 keeps its neutral protocol schemas (`src/schemas.ts`, ≈ 800 zod
// objects) and its OAuth schemas (`src/auth.ts`) as top-level `const`s of two modules that every
// entry point of the client and server packages imports: all of them were built when Toolgate's
// main chunk loaded, though a running Toolgate parses with a few of them (the JSON-RPC guards) and
// the OAuth ones only during a sign-in. The wire schemas of each era (2025-11-25, 2026-07-28:
// ≈ 750 zod objects each) are built by one function per era (the client's and the server's copies
// share one memo: sdk-dedupe.mts) at the first message of that era, all at once, though a session
// uses a few methods of them.
//
// This step rewrites both: each schema `const` of those modules and of those builder functions
// runs its same expression once, when the schema is first touched; the name stays bound to a
// stand-in (`lazySchema`, a Proxy) that builds it then and forwards every operation to it, and
// references between schemas of one block read the real objects through their builders, so
// schemas built from schemas hold what they held before. The schemas are the same objects with
// the same checks; only the moment they are built moves. It refuses (fails the build, naming the
// statement) what it is not sound for:
// - a module's top-level statement other than an import, the final `export { … }` or
//   `const NAME = EXPR;` with one declarator; a builder that takes parameters, holds other
//   statements than such `const`s and function declarations, or does not end in `return { … };`;
// A value made from schemas that is not itself one (`Schema.shape`, an object of schemas) gets a
// builder but no stand-in, and is read only by the block's schemas; one that the export list or the
// builder's `return` names is computed where it stood, from the real schemas, as before.
// - a binding inside a value that shadows a name of its block;
// - a builder changed by another step before this one.
// A stand-in that builds something other than a zod schema throws (and the test builds them all).
import fs from 'node:fs'
import path from 'node:path'
import { parseSync, type Plugin } from 'vite'
import { isPropertyName, memoReturn, type Node, regionStatements, topLevel, WIRE_BUILDERS, wireFile } from './sdk-dedupe.mjs'

/** The `//#region` markers of the core package's dist files rewritten by this step. */
export const LAZY_REGIONS = ['src/schemas.ts', 'src/auth.ts'] as const

const LAZY_MODULE = '\0toolgate:lazy-schema'
/** What the rewritten code names (short: each schema's text grows by them, and V8 keeps module source in the heap). */
const LAZY = '__tgL' // lazySchema: a schema's stand-in
const REAL = '__tgR' // the key that reads a stand-in's schema itself: `Schema[__tgR]`
export const DERIVED = '__tgD' // derived: a value made from schemas, computed on its first read, `value()`
const NAMES = [LAZY, REAL, DERIVED]
/**
 * The stand-in: a Proxy over an empty object that builds the schema on the first operation and
 * forwards every operation to it; `[REAL]` answers the schema itself (what schemas built from it hold).
 */
export const LAZY_SCHEMA_SOURCE = `export const REAL = Symbol('lazy schema')
export function lazySchema(build) {
  let real
  const get = () => {
    if (real === undefined) {
      const built = build()
      if (typeof built !== 'object' || built === null || !('_zod' in built)) throw new Error('sdk-lazy-schemas: a lazily built SDK value is not a zod schema')
      real = built
    }
    return real
  }
  return new Proxy({}, {
    get: (_t, key) => (key === REAL ? get() : Reflect.get(get(), key)),
    set: (_t, key, value) => Reflect.set(get(), key, value),
    has: (_t, key) => Reflect.has(get(), key),
    deleteProperty: (_t, key) => Reflect.deleteProperty(get(), key),
    defineProperty: (_t, key, desc) => Reflect.defineProperty(get(), key, desc),
    ownKeys: () => Reflect.ownKeys(get()),
    getOwnPropertyDescriptor: (t, key) => {
      const desc = Reflect.getOwnPropertyDescriptor(get(), key)
      // a proxy may report a property non-configurable only if its target holds it so
      if (desc && !desc.configurable && !Reflect.getOwnPropertyDescriptor(t, key)) Reflect.defineProperty(t, key, desc)
      return desc
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(get()),
    setPrototypeOf: (_t, proto) => Reflect.setPrototypeOf(get(), proto),
    preventExtensions: () => false,
  })
}
export function derived(compute) {
  let done = false
  let value
  return () => {
    if (!done) {
      value = compute()
      done = true
    }
    return value
  }
}
`
const IMPORT = `import { lazySchema as ${LAZY}, REAL as ${REAL}, derived as ${DERIVED} } from ${JSON.stringify(LAZY_MODULE)};\n`

type Named = Node & { name: string }

/** Identifier references of a subtree (not property names, not bindings) with their nodes; shorthand properties reported as such. */
export function references(node: unknown, out: { id: Named; shorthand: Node | null }[], bindings: Set<string>, parent: Node | null = null): void {
  if (Array.isArray(node)) {
    for (const n of node) references(n, out, bindings, parent)
    return
  }
  if (node === null || typeof node !== 'object') return
  const n = node as Node
  if (n.type === 'Identifier') {
    out.push({ id: n as Named, shorthand: parent?.type === 'Property' && parent.shorthand === true ? parent : null })
    return
  }
  for (const [k, v] of Object.entries(n)) {
    if (isPropertyName(n, k)) continue
    // what a function, a declaration or a catch clause binds is no reference: noted, checked by the caller
    if (
      (k === 'params' && /Function/.test(n.type)) ||
      (k === 'id' && (n.type === 'VariableDeclarator' || /Function|Class/.test(n.type))) ||
      (k === 'param' && n.type === 'CatchClause')
    ) {
      const bound: { id: Named; shorthand: Node | null }[] = []
      references(v, bound, bindings)
      for (const b of bound) bindings.add(b.id.name)
      continue
    }
    references(v, out, bindings, n)
  }
}

type Ref = { id: Named; shorthand: Node | null }
type Item = { kind: 'const' | 'function'; name: string; stmt: Node; value: Node; refs: Ref[]; bindings: Set<string> }

/** zod's functions and schema methods that answer something other than a schema: a value built with one is not rewritten. */
const NOT_SCHEMA = new Set([
  'parse',
  'safeParse',
  'parseAsync',
  'safeParseAsync',
  'spa',
  'encode',
  'decode',
  'safeEncode',
  'safeDecode',
  'isOptional',
  'isNullable',
  'toJSONSchema',
  'registry',
  'prettifyError',
  'treeifyError',
  'flattenError',
  'formatError',
  'config',
])

/** Whether `node` is a schema built by zod, by a schema of the block (`lazy`) or by a function of the block that builds them (`fns`). */
function isSchemaExpression(node: Node, lazy: Set<string>, fns: Set<string>): boolean {
  if (node.type === 'Identifier') return lazy.has((node as Named).name)
  if (node.type !== 'CallExpression') return false
  const callee = node.callee as Node
  if (callee.type === 'Identifier') return fns.has((callee as Named).name)
  if (callee.type !== 'MemberExpression' || callee.computed !== false) return false
  const method = (callee.property as Named).name
  if (NOT_SCHEMA.has(method)) return false
  const object = callee.object as Node
  if (object.type === 'Identifier' && (object as Named).name === 'z') return true
  return isSchemaExpression(object, lazy, fns)
}

/**
 * The edits that build a block's schemas on first use: `stmts` are `const NAME = EXPR;` (and, where
 * `functions` is set, function declarations); `outer` the names the block's values may not rebind;
 * `tail` the rest of the block (a module's export list, a builder's `return { … }`), which reads
 * the schemas' stand-ins.
 */
function rewriteBlock(
  code: string,
  stmts: Node[],
  functions: boolean,
  outer: Set<string>,
  tail: Node | null,
  fail: (what: string) => never,
): { edits: { start: number; end: number; text: string }[]; lazy: Set<string>; eager: Set<string> } {
  const items: Item[] = []
  for (const stmt of stmts) {
    const refs: Ref[] = []
    const bindings = new Set<string>()
    if (functions && stmt.type === 'FunctionDeclaration') {
      // its parameters and locals are bindings, its own name is the block's
      references({ type: 'FunctionExpression', start: stmt.start, end: stmt.end, params: stmt.params, body: stmt.body }, refs, bindings)
      items.push({ kind: 'function', name: (stmt.id as Named).name, stmt, value: stmt, refs, bindings })
      continue
    }
    const fnInit = (stmt.declarations as Node[] | undefined)?.[0]?.init as Node | undefined
    if (
      functions &&
      stmt.type === 'VariableDeclaration' &&
      (stmt.declarations as Node[]).length === 1 &&
      fnInit &&
      /^(Arrow)?FunctionExpression$/.test(fnInit.type)
    ) {
      // `const f = (…) => …`: a function of the block like a declaration (called only after it stands)
      references({ type: 'FunctionExpression', start: fnInit.start, end: fnInit.end, params: fnInit.params, body: fnInit.body }, refs, bindings)
      items.push({ kind: 'function', name: ((stmt.declarations as Node[])[0]?.id as Named).name, stmt, value: fnInit, refs, bindings })
      continue
    }
    const decls = stmt.declarations as Node[] | undefined
    const d = decls?.[0]
    const id = d?.id as Named | undefined
    if (stmt.type !== 'VariableDeclaration' || stmt.kind !== 'const' || decls?.length !== 1 || id?.type !== 'Identifier' || !d?.init)
      fail(`a statement is not \`const NAME = EXPR;\`${functions ? ' nor a function' : ''} (${code.slice(stmt.start, Math.min(stmt.end, stmt.start + 80))})`)
    references(d?.init, refs, bindings)
    items.push({ kind: 'const', name: (id as Named).name, stmt, value: d?.init as Node, refs, bindings })
  }
  // what is a schema (or builds them): zod's, or made with one, to a fixed point (functions are hoisted)
  const lazy = new Set<string>()
  const fns = new Set<string>()
  for (let changed = true; changed;) {
    changed = false
    for (const it of items) {
      const set = it.kind === 'const' ? lazy : fns
      if (set.has(it.name)) continue
      if (it.refs.some((r) => r.id.name === 'z' || lazy.has(r.id.name) || fns.has(r.id.name))) {
        set.add(it.name)
        changed = true
      }
    }
  }
  // of those, the schemas (a stand-in each) and values derived from them (`Schema.shape`: only their builder, read by the block's schemas)
  const schemas = new Set<string>()
  for (let changed = true; changed;) {
    changed = false
    for (const it of items)
      if (it.kind === 'const' && lazy.has(it.name) && !schemas.has(it.name) && isSchemaExpression(it.value, schemas, fns)) {
        schemas.add(it.name)
        changed = true
      }
  }
  // a derived value the export list or the `return` names is computed where it stood, from the real schemas
  const elsewhere: Ref[] = []
  if (tail) references(tail, elsewhere, new Set())
  const kept = new Set(elsewhere.map((r) => r.id.name).filter((n) => lazy.has(n) && !schemas.has(n)))
  const rewritten = new Set([...lazy].filter((n) => !kept.has(n)))
  const eager = new Set(items.filter((it) => it.kind === 'const' && !lazy.has(it.name)).map((it) => it.name))
  const names = new Set([...outer, ...items.map((it) => it.name), 'z'])
  /** The values of an object literal (a table of schemas) that are schemas built in place: each gets its own stand-in. */
  const wrapsOf = (node: Node): Node[] =>
    node.type !== 'ObjectExpression'
      ? []
      : (node.properties as Node[])
          .filter((p) => p.type === 'Property' && p.kind === 'init' && p.method !== true && p.shorthand !== true)
          .map((p) => p.value as Node)
          .filter((v) => v.type !== 'Identifier' && isSchemaExpression(v, schemas, fns))
  const isTable = (it: Item) => it.kind === 'const' && it.value.type === 'ObjectExpression'
  /** The text of [start, end) with references to rewritten names reading the real ones (`outside`: also those not in a wrap) and each wrap a stand-in. */
  const render = (start: number, end: number, refs: Ref[], wraps: Node[], outside: boolean): string => {
    const inWrap = (at: number) => wraps.some((w) => at >= w.start && at < w.end)
    const marks: { start: number; end: number; text: string; insert: boolean }[] = []
    for (const r of refs) {
      const node = r.shorthand ?? r.id
      // a schema outside a wrap stays its stand-in where `outside` is not set; a derived value has no binding but its builder
      if (!rewritten.has(r.id.name) || node.start < start || node.end > end || (!outside && schemas.has(r.id.name) && !inWrap(node.start))) continue
      const real = schemas.has(r.id.name) ? `${r.id.name}[${REAL}]` : `${r.id.name}()`
      marks.push({ start: node.start, end: node.end, text: r.shorthand ? `${r.id.name}: ${real}` : real, insert: false })
    }
    for (const w of wraps)
      marks.push({ start: w.start, end: w.start, text: `${LAZY}(() => `, insert: true }, { start: w.end, end: w.end, text: ')', insert: true })
    marks.sort((x, y) => x.start - y.start || (x.insert === y.insert ? 0 : x.insert ? -1 : 1))
    let text = ''
    let at = start
    for (const m of marks) {
      text += code.slice(at, m.start) + m.text
      at = m.end
    }
    return text + code.slice(at, end)
  }
  const edits: { start: number; end: number; text: string }[] = []
  for (const it of items) {
    for (const b of it.bindings) if (names.has(b)) fail(`\`${it.name}\` binds \`${b}\`, a name of its block or module, inside it`)
    if (it.kind === 'function' ? !fns.has(it.name) : !lazy.has(it.name)) continue
    // references to the block's schemas and derived values read the real ones through their builders
    if (it.kind === 'function' || kept.has(it.name)) {
      edits.push({
        start: it.value.start,
        end: it.value.end,
        text: render(it.value.start, it.value.end, it.refs, isTable(it) ? wrapsOf(it.value) : [], !isTable(it)),
      })
      continue
    }
    edits.push({
      start: it.value.start,
      end: it.value.end,
      text: `${schemas.has(it.name) ? LAZY : DERIVED}(() => (${render(it.value.start, it.value.end, it.refs, [], true)}))`,
    })
  }
  // a builder's `return { … }`: schemas built in it get a stand-in each, the rest stays as it was
  const returned = tail?.type === 'ReturnStatement' ? (tail.argument as Node) : null
  if (returned && wrapsOf(returned).length > 0)
    edits.push({ start: returned.start, end: returned.end, text: render(returned.start, returned.end, elsewhere, wrapsOf(returned), false) })
  return { edits, lazy: schemas, eager: new Set([...eager, ...kept]) }
}

/** Rewrites one schema module (the text of a core dist file holding one of LAZY_REGIONS); throws when its shape is not the one described above. */
export function lazySchemas(code: string, file: string): { code: string; lazy: string[]; eager: string[] } {
  const fail = failFor(file)
  for (const n of NAMES) if (new RegExp(`\\b${n}\\b`).test(code)) fail(`already names ${n}`)
  const parsed = parseSync(file, code, { sourceType: 'module' })
  if (parsed.errors.length > 0) fail(`does not parse: ${parsed.errors[0]?.message}`)
  const body = parsed.program.body as unknown as Node[]
  const imports = new Set<string>()
  let zod = false
  const stmts: Node[] = []
  for (const [i, stmt] of body.entries()) {
    if (stmt.type === 'ImportDeclaration') {
      for (const sp of stmt.specifiers as Node[]) {
        const local = (sp.local as Named).name
        imports.add(local)
        if (local === 'z' && (stmt.source as Node & { value: string }).value === 'zod/v4' && sp.type === 'ImportNamespaceSpecifier') zod = true
      }
      continue
    }
    if (stmt.type === 'ExportNamedDeclaration' && !stmt.declaration && !stmt.source && i === body.length - 1) continue
    stmts.push(stmt)
  }
  if (!zod) fail('does not import zod as `import * as z from "zod/v4"`')
  const last = body[body.length - 1]
  const exported =
    last?.type === 'ExportNamedDeclaration'
      ? ({ type: 'ExportList', start: last.start, end: last.end, locals: (last.specifiers as Node[]).map((sp) => sp.local) } as Node)
      : null
  const { edits, lazy, eager } = rewriteBlock(code, stmts, false, imports, exported, fail)
  if (lazy.size === 0) fail('declares no schema')
  return { code: `${IMPORT}${applyEdits(code, edits)}`, lazy: [...lazy], eager: [...eager] }
}

const failFor =
  (file: string) =>
  (what: string): never => {
    throw new Error(`sdk-lazy-schemas: ${file}: ${what}; read the SDK's new code before building its schemas lazily (scripts/sdk-lazy-schemas.mts)`)
  }

const applyEdits = (code: string, edits: { start: number; end: number; text: string }[]): string => {
  let out = code
  for (const e of [...edits].sort((a, b) => b.start - a.start)) out = `${out.slice(0, e.start)}${e.text}${out.slice(e.end)}`
  return out
}

/** The function of a wire file's era region that builds the era's schemas (the one its memo calls), found in the published `published` text. */
function builderName(published: string, file: string, region: string, memo: string): string {
  const { body } = topLevel(file, published)
  return memoReturn(regionStatements(published, body, region, file), memo, file).build
}

/**
 * Rewrites the wire-schema builders of a client or server package's wire file (`code`: the file as
 * the build has it, `published`: as installed): each builder's `const`s are built on first use,
 * the object it returns holds their stand-ins. Each builder must take no parameter, hold only
 * `const NAME = EXPR;` and function declarations and end in `return { … };`, and be the same text in
 * `code` as in `published`.
 */
export function lazyWireBuilders(code: string, published: string, file: string): { code: string; lazy: Map<string, string[]> } {
  const fail = failFor(file)
  for (const n of NAMES) if (new RegExp(`\\b${n}\\b`).test(code)) fail(`already names ${n}`)
  const parsed = parseSync(file, code, { sourceType: 'module' })
  if (parsed.errors.length > 0) fail(`does not parse: ${parsed.errors[0]?.message}`)
  const body = parsed.program.body as unknown as Node[]
  const publishedBody = topLevel(file, published).body
  const edits: { start: number; end: number; text: string }[] = []
  const lazy = new Map<string, string[]>()
  for (const w of WIRE_BUILDERS) {
    const name = builderName(published, file, w.region, w.memo)
    const find = (b: Node[]) => b.filter((s) => s.type === 'FunctionDeclaration' && (s.id as Named | null)?.name === name)
    const [fn, more] = find(body)
    const [was] = find(publishedBody)
    if (!fn || more || !was) fail(`the ${w.era} builder \`${name}\` is not one function declaration`)
    const f = fn as Node
    if (code.slice(f.start, f.end) !== published.slice((was as Node).start, (was as Node).end))
      fail(`the ${w.era} builder \`${name}\` was changed before this step`)
    const stmts = ((f.body as Node).body as Node[]).slice()
    const ret = stmts.pop()
    if ((f.params as Node[]).length !== 0 || ret?.type !== 'ReturnStatement' || (ret.argument as Node | null)?.type !== 'ObjectExpression')
      fail(`the ${w.era} builder \`${name}\` does not take no parameter and end in \`return { … };\``)
    const r = rewriteBlock(code, stmts, true, new Set(), ret as Node, fail)
    if (r.lazy.size === 0) fail(`the ${w.era} builder \`${name}\` builds no schema`)
    edits.push(...r.edits)
    lazy.set(w.era, [...r.lazy])
  }
  return { code: `${IMPORT}${applyEdits(code, edits)}`, lazy }
}

/** The dist files of the core package holding LAZY_REGIONS (one each). */
export function lazySchemaFiles(coreDist: string): string[] {
  const files = fs.readdirSync(coreDist).filter((f) => f.endsWith('.mjs'))
  return LAZY_REGIONS.map((region) => {
    const holding = files.filter((f) => fs.readFileSync(path.join(coreDist, f), 'utf8').includes(`//#region ${region}\n`))
    if (holding.length !== 1) throw new Error(`sdk-lazy-schemas: expected one file with the region ${region} in ${coreDist}, found ${holding.length}`)
    return path.join(coreDist, holding[0] as string)
  })
}

/** The vite plugin (main build). `nodeModules`: the folder holding the @modelcontextprotocol packages. Runs after sdkDedupe (its memo edit is outside the builders). */
export function sdkLazySchemas(nodeModules: string): Plugin {
  const dist = (pkg: string) => fs.realpathSync(path.join(nodeModules, '@modelcontextprotocol', pkg, 'dist'))
  const modules = new Set(lazySchemaFiles(dist('core')))
  const wires = new Set([wireFile(dist('client')), wireFile(dist('server'))])
  // checked once at the start of the build, on the files as published
  for (const f of modules) lazySchemas(fs.readFileSync(f, 'utf8'), f)
  for (const f of wires) lazyWireBuilders(fs.readFileSync(f, 'utf8'), fs.readFileSync(f, 'utf8'), f)
  return {
    name: 'toolgate-sdk-lazy-schemas',
    enforce: 'pre',
    resolveId: (source) => (source === LAZY_MODULE ? LAZY_MODULE : null),
    load: (id) => (id === LAZY_MODULE ? LAZY_SCHEMA_SOURCE : null),
    transform(code, id) {
      const file = id.split('?')[0] as string
      if (wires.has(file)) return { code: lazyWireBuilders(code, fs.readFileSync(file, 'utf8'), file).code, map: null }
      if (!modules.has(file)) return null
      if (code !== fs.readFileSync(file, 'utf8'))
        throw new Error(`sdk-lazy-schemas: ${file} reached this step changed by another plugin; the check ran on the file as published`)
      return { code: lazySchemas(code, file).code, map: null }
    },
  }
}
