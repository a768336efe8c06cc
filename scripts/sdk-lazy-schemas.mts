// Build step of the main bundle: the MCP SDK core package's schema modules build each schema on first use instead of at load (docs/performance.md).
//
// @modelcontextprotocol/core 2.4.0 keeps its neutral protocol schemas (`src/schemas.ts`, ≈ 800 zod
// objects) and its OAuth schemas (`src/auth.ts`) as top-level `const`s of two modules that every
// entry point of the client and server packages imports: all of them were built when Toolgate's
// main chunk loaded, ≈ 1 MB of heap at rest, though a running Toolgate parses with a few of them
// (the JSON-RPC guards) and the OAuth ones only during a sign-in. The 2025-11-25 and 2026-07-28
// wire schemas that parse the traffic are built apart from these, on first use, by the SDK itself.
//
// The step rewrites those two modules, and refuses (fails the build, naming the statement) when
// their shape is not the one it is sound for:
// - every top-level statement is an import, the final `export { … }` list, or `const NAME = EXPR;`
//   with one declarator;
// - a `const` whose EXPR names `z` or a schema declared lazy before it is a schema: its EXPR,
//   unchanged but for references to other schemas of the module (read through their builders, so
//   schemas built from schemas hold the real objects, as before), runs on first use, once; the
//   name stays bound to a stand-in (`lazySchema`, a Proxy) that builds the schema when it is first
//   touched and forwards every operation to it; other `const`s (the protocol constants) stay as
//   they are and may not name a schema;
// - no binding inside an EXPR (a parameter, a local) shadows a module-level name it uses.
// The schemas are the same objects with the same checks; only the moment they are built moves.
import fs from 'node:fs'
import path from 'node:path'
import { parseSync, type Plugin } from 'vite'

/** The `//#region` markers of the core package's dist files rewritten by this step. */
export const LAZY_REGIONS = ['src/schemas.ts', 'src/auth.ts'] as const

const LAZY_MODULE = '\0toolgate:lazy-schema'
const LAZY_NAME = '__toolgateLazySchema'
const PREFIX = '__tgLazy_'
/** The stand-in: a Proxy over an empty object that builds the schema on the first operation and forwards every operation to it. */
export const LAZY_SCHEMA_SOURCE = `export function lazySchema(build) {
  let real
  const get = () => (real ??= build())
  return new Proxy({}, {
    get: (_t, key) => Reflect.get(get(), key),
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
`

type Node = { type: string; start: number; end: number; [key: string]: unknown }
type Named = Node & { name: string }

/** Identifier references of a subtree (not property names, not bindings) with their nodes; shorthand properties reported as such. */
function references(node: unknown, out: { id: Named; shorthand: Node | null }[], bindings: Set<string>, parent: Node | null = null): void {
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
    if (k === 'property' && n.type === 'MemberExpression' && n.computed === false) continue
    if (
      k === 'key' &&
      (n.type === 'Property' || n.type === 'PropertyDefinition' || n.type === 'MethodDefinition') &&
      n.computed === false &&
      n.shorthand !== true
    )
      continue
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

/** Rewrites one schema module (the text of a core dist file holding one of LAZY_REGIONS); throws when its shape is not the one described above. */
export function lazySchemas(code: string, file: string): { code: string; lazy: string[]; eager: string[] } {
  const fail = (what: string): never => {
    throw new Error(`sdk-lazy-schemas: ${file}: ${what}; read the SDK's new code before building its schemas lazily (scripts/sdk-lazy-schemas.mts)`)
  }
  if (code.includes(PREFIX) || code.includes(LAZY_NAME)) fail(`already names ${PREFIX} or ${LAZY_NAME}`)
  const parsed = parseSync(file, code, { sourceType: 'module' })
  if (parsed.errors.length > 0) fail(`does not parse: ${parsed.errors[0]?.message}`)
  const body = parsed.program.body as unknown as Node[]
  const imports = new Set<string>()
  const lazy = new Set<string>()
  const eager = new Set<string>()
  let zod = false
  const edits: { start: number; end: number; text: string }[] = []
  const consts: { name: string; stmt: Node; init: Node; refs: { id: Named; shorthand: Node | null }[]; bindings: Set<string> }[] = []
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
    const decls = stmt.declarations as Node[] | undefined
    const d = decls?.[0]
    const id = d?.id as Named | undefined
    if (stmt.type !== 'VariableDeclaration' || stmt.kind !== 'const' || decls?.length !== 1 || id?.type !== 'Identifier' || !d?.init)
      fail(`a top-level statement is not \`const NAME = EXPR;\` (${code.slice(stmt.start, Math.min(stmt.end, stmt.start + 80))})`)
    const refs: { id: Named; shorthand: Node | null }[] = []
    const bindings = new Set<string>()
    references(d?.init, refs, bindings)
    consts.push({ name: (id as Named).name, stmt, init: d?.init as Node, refs, bindings })
  }
  if (!zod) fail('does not import zod as `import * as z from "zod/v4"`')
  const topNames = new Set([...imports, ...consts.map((c) => c.name)])
  for (const c of consts) {
    const names = new Set(c.refs.map((r) => r.id.name))
    for (const b of c.bindings) if (topNames.has(b)) fail(`\`${c.name}\` binds \`${b}\`, a module-level name, inside its value`)
    if (names.has('z') || [...names].some((n) => lazy.has(n))) lazy.add(c.name)
    else eager.add(c.name)
  }
  if (lazy.size === 0) fail('declares no schema')
  for (const c of consts) {
    if (!lazy.has(c.name)) continue
    let init = ''
    let at = c.init.start
    for (const r of c.refs.filter((x) => lazy.has(x.id.name)).sort((a, b) => a.id.start - b.id.start)) {
      const real = `${PREFIX}${r.id.name}()`
      if (r.shorthand) {
        init += `${code.slice(at, r.shorthand.start)}${r.id.name}: ${real}`
        at = r.shorthand.end
      } else {
        init += `${code.slice(at, r.id.start)}${real}`
        at = r.id.end
      }
    }
    init += code.slice(at, c.init.end)
    edits.push({
      start: c.stmt.start,
      end: c.stmt.end,
      text: `let ${PREFIX}${c.name}$built;\nfunction ${PREFIX}${c.name}() {\n\treturn ${PREFIX}${c.name}$built ??= ${init};\n}\nconst ${c.name} = ${LAZY_NAME}(${PREFIX}${c.name});`,
    })
  }
  let out = code
  for (const e of edits.sort((a, b) => b.start - a.start)) out = `${out.slice(0, e.start)}${e.text}${out.slice(e.end)}`
  return { code: `import { lazySchema as ${LAZY_NAME} } from ${JSON.stringify(LAZY_MODULE)};\n${out}`, lazy: [...lazy], eager: [...eager] }
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

/** The vite plugin (main build). `nodeModules`: the folder holding @modelcontextprotocol/core. */
export function sdkLazySchemas(nodeModules: string): Plugin {
  const files = new Set(lazySchemaFiles(fs.realpathSync(path.join(nodeModules, '@modelcontextprotocol', 'core', 'dist'))))
  // checked once at the start of the build, on the files as published
  for (const f of files) lazySchemas(fs.readFileSync(f, 'utf8'), f)
  return {
    name: 'toolgate-sdk-lazy-schemas',
    enforce: 'pre',
    resolveId: (source) => (source === LAZY_MODULE ? LAZY_MODULE : null),
    load: (id) => (id === LAZY_MODULE ? LAZY_SCHEMA_SOURCE : null),
    transform(code, id) {
      const file = id.split('?')[0] as string
      if (!files.has(file)) return null
      if (code !== fs.readFileSync(file, 'utf8'))
        throw new Error(`sdk-lazy-schemas: ${file} reached this step changed by another plugin; the check ran on the file as published`)
      return { code: lazySchemas(code, file).code, map: null }
    },
  }
}
