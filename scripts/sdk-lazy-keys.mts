// Build step of the main bundle: the tables the MCP SDK reads from its schemas at load (its elicitation keys) are computed at their first read (docs/performance.md).
//
// The client and server packages of @modelcontextprotocol 2.4.0 each carry a copy of the core's
// elicitation code, which computes three tables from the core's schemas when the module loads
// (`ROOT_KEYS`, `PROPERTY_KEYS_BY_TYPE`, `SUPPORTED_STRING_FORMATS`: `Object.keys(Schema.shape…)`,
// `Schema.shape.format.unwrap().options`). Reading them builds the elicitation form's schemas, which
// sdk-lazy-schemas.mts otherwise leaves unbuilt until first use, though the tables are read only
// when an elicitation form is given as a Standard Schema (Toolgate relays JSON Schema forms).
//
// This step makes each top-level `const NAME = EXPR;` of LAZY_KEY_REGIONS whose EXPR reads a
// schema imported from the core (a name ending in `Schema`), or a value so made, a derived value
// (`derived(() => (EXPR))`, the same expression, computed once at the first read) and every
// reference to NAME in the file a call `NAME()`. It runs after sdk-lazy-schemas.mts on the same
// files (whose import of `derived` it uses) and refuses, failing the build with what it found:
// a region missing or holding no such table, a table the file exports, a binding of the same
// name anywhere else in the file, a write to it.
import fs from 'node:fs'
import { parseSync, type Plugin } from 'vite'
import { regionStatements, wireFile, type Node } from './sdk-dedupe.mjs'
import { DERIVED, references } from './sdk-lazy-schemas.mjs'

/** The `//#region` markers (in the client's and the server's wire file) whose tables this step defers. */
export const LAZY_KEY_REGIONS = ['../core-internal/src/shared/elicitation.ts'] as const
const CORE = '@modelcontextprotocol/core/internal'

type Named = Node & { name: string }

const fail =
  (file: string) =>
  (what: string): never => {
    throw new Error(`sdk-lazy-keys: ${file}: ${what}; read the SDK's new code before deferring its tables (scripts/sdk-lazy-keys.mts)`)
  }

/** Rewrites one wire file (as sdk-lazy-schemas.mts left it); answers the code and the names of the deferred tables. */
export function lazyKeys(code: string, file: string): { code: string; deferred: string[] } {
  const no = fail(file)
  if (!new RegExp(`\\bderived as ${DERIVED}\\b`).test(code)) no(`does not import derived as ${DERIVED} (sdk-lazy-schemas.mts runs first)`)
  const parsed = parseSync(file, code, { sourceType: 'module' })
  if (parsed.errors.length > 0) no(`does not parse: ${parsed.errors[0]?.message}`)
  const body = parsed.program.body as unknown as Node[]
  const schemas = new Set<string>()
  for (const stmt of body)
    if (stmt.type === 'ImportDeclaration' && (stmt.source as Node & { value: string }).value === CORE)
      for (const sp of stmt.specifiers as Node[]) if (/Schema$/.test((sp.local as Named).name)) schemas.add((sp.local as Named).name)
  if (schemas.size === 0) no(`imports no schema from ${CORE}`)
  // the tables: a region's `const NAME = EXPR;` reading a core schema or a table, to a fixed point
  const candidates: { name: string; init: Node; reads: Set<string> }[] = []
  for (const region of LAZY_KEY_REGIONS)
    for (const stmt of regionStatements(code, body, region, file)) {
      const d = (stmt.declarations as Node[] | undefined)?.[0]
      if (stmt.type !== 'VariableDeclaration' || stmt.kind !== 'const' || (stmt.declarations as Node[]).length !== 1 || (d?.id as Node).type !== 'Identifier')
        continue
      const refs: { id: Named; shorthand: Node | null }[] = []
      references(d?.init, refs, new Set())
      candidates.push({ name: ((d as Node).id as Named).name, init: (d as Node).init as Node, reads: new Set(refs.map((r) => r.id.name)) })
    }
  const deferred = new Set<string>()
  for (let changed = true; changed;) {
    changed = false
    for (const c of candidates)
      if (!deferred.has(c.name) && [...c.reads].some((n) => schemas.has(n) || deferred.has(n))) {
        deferred.add(c.name)
        changed = true
      }
  }
  if (deferred.size === 0) no(`the regions ${LAZY_KEY_REGIONS.join(', ')} hold no table read from a schema`)
  // every reference in the file, and every binding but the tables' own declarations
  const refs: { id: Named; shorthand: Node | null }[] = []
  const bindings: string[] = []
  for (const stmt of body) {
    if (stmt.type === 'ImportDeclaration') {
      for (const sp of stmt.specifiers as Node[]) bindings.push((sp.local as Named).name)
      continue
    }
    const own = candidates.find((c) => stmt.type === 'VariableDeclaration' && (stmt.declarations as Node[])[0]?.init === c.init && deferred.has(c.name))
    const seen = new Set<string>()
    references(own ? own.init : stmt, refs, seen)
    // a top-level declaration binds its names once; references() collects bindings into a set, so count nested ones apart
    bindings.push(...seen)
  }
  for (const name of deferred) if (bindings.includes(name)) no(`\`${name}\` is bound again in the file (a parameter, a local or an import of that name)`)
  const edits: { start: number; end: number; text: string }[] = []
  for (const c of candidates)
    if (deferred.has(c.name))
      edits.push({ start: c.init.start, end: c.init.start, text: `${DERIVED}(() => (` }, { start: c.init.end, end: c.init.end, text: '))' })
  for (const r of refs) {
    if (!deferred.has(r.id.name)) continue
    const parent = findParent(body, r.id)
    if (parent && ((parent.type === 'AssignmentExpression' && parent.left === r.id) || parent.type === 'UpdateExpression')) no(`writes \`${r.id.name}\``)
    if (parent && parent.type === 'ExportSpecifier') no(`exports \`${r.id.name}\``)
    const node = r.shorthand ?? r.id
    edits.push({ start: node.start, end: node.end, text: r.shorthand ? `${r.id.name}: ${r.id.name}()` : `${r.id.name}()` })
  }
  let out = code
  for (const e of edits.sort((a, b) => b.start - a.start || b.end - a.end)) out = `${out.slice(0, e.start)}${e.text}${out.slice(e.end)}`
  return { code: out, deferred: [...deferred] }
}

/** The node whose child is `target` (a linear search: only for the few references rewritten). */
function findParent(node: unknown, target: Node, parent: Node | null = null): Node | null {
  if (node === target) return parent
  if (Array.isArray(node)) {
    for (const n of node) {
      const p = findParent(n, target, parent)
      if (p) return p
    }
    return null
  }
  if (node === null || typeof node !== 'object') return null
  const n = node as Node
  if (typeof n.start === 'number' && (target.start < n.start || target.end > n.end)) return null
  for (const v of Object.values(n)) {
    const p = findParent(v, target, n)
    if (p) return p
  }
  return null
}

/** The vite plugin (main build), after sdkLazySchemas: the client's and the server's wire file. */
export function sdkLazyKeys(nodeModules: string): Plugin {
  const dist = (pkg: string) => fs.realpathSync(`${nodeModules}/@modelcontextprotocol/${pkg}/dist`)
  const wires = new Set([wireFile(dist('client')), wireFile(dist('server'))])
  return {
    name: 'toolgate-sdk-lazy-keys',
    enforce: 'pre',
    transform(code, id) {
      const file = id.split('?')[0] as string
      return wires.has(file) ? { code: lazyKeys(code, file).code, map: null } : null
    },
  }
}
