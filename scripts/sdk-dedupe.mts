// Build step of the main bundle: one copy of what the MCP SDK's client and server packages each ship alike, proven alike at every build (docs/performance.md).
//
// @modelcontextprotocol/client and /server 2.4.0 each bundle the SDK's private core into their own
// dist: ajv and its provider, rolldown's runtime helpers and the JSON Schema dialect table as
// separate files that are byte for byte the same but for their file names, and, inside each
// package's `src-*.mjs`, the same 2025-11-25 and 2026-07-28 wire-schema builders. Bundled as they
// are, Toolgate's main chunk held both copies and built both wire-schema sets at its first 2025
// message (≈ 0.77 MB of heap each, built from the same code).
//
// Two steps, both refused loudly when the SDK changes under them:
// 1. Files of the server package whose text equals a client package file (apart from the
//    trailing source-map comment and the names of the files they import, which must map the same
//    way) resolve to the client's file: the bundle holds one module, evaluated once.
// 2. Each package's memo of an era's wire schemas (`return memo ??= build();`) asks one shared
//    memo instead, so the era's set is built once, by whichever package needs it first. Sound
//    only while both packages build the same thing: at every build the region that builds them
//    and every top-level declaration it reaches (helpers, imports) must be the same text in both
//    packages, or the build fails and says which declaration differs. The schemas are only read
//    after they are built (safeParse, registry lookups), never changed.
import fs from 'node:fs'
import path from 'node:path'
import { parseSync, type Plugin } from 'vite'

/** The wire-schema builders shared between the packages: the region of the SDK's source that holds each and its memo function. */
export const WIRE_BUILDERS = [
  { era: '2025-11-25', region: '../core-internal/src/wire/rev2025-11-25/buildSchemas.ts', memo: 'buildSchemas2025' },
  { era: '2026-07-28', region: '../core-internal/src/wire/rev2026-07-28/buildSchemas.ts', memo: 'buildSchemas2026' },
] as const

const SHARED_MEMO_MODULE = '\0toolgate:sdk-wire-schemas'
const SHARED_MEMO_NAME = '__toolgateSharedWireSchemas'
const SHARED_MEMO_SOURCE = `const built = new Map()
export function sharedWireSchemas(era, build) {
  let schemas = built.get(era)
  if (schemas === undefined) {
    schemas = build()
    built.set(era, schemas)
  }
  return schemas
}
`

const SOURCE_MAP_COMMENT = /\n?\/\/# sourceMappingURL=[^\n]*\s*$/
const RELATIVE_IMPORT = /"\.\/([\w.-]+\.mjs)"/g

const readModules = (dist: string): Map<string, string> =>
  new Map(
    fs
      .readdirSync(dist)
      .filter((f) => f.endsWith('.mjs'))
      .map((f) => [f, fs.readFileSync(path.join(dist, f), 'utf8').replace(SOURCE_MAP_COMMENT, '')]),
  )

/**
 * Files of `serverDist` that are the same module as a file of `clientDist`: the same text once the
 * source-map comment is dropped and each `./file.mjs` it imports is replaced by the client file it
 * maps to (an import of a server file that maps to nothing never matches). Server name → client name.
 */
export function sameModules(serverDist: string, clientDist: string): Map<string, string> {
  const server = readModules(serverDist)
  const client = readModules(clientDist)
  const same = new Map<string, string>()
  for (let changed = true; changed;) {
    changed = false
    for (const [name, text] of server) {
      if (same.has(name)) continue
      const asClient = text.replace(RELATIVE_IMPORT, (_m, f: string) => `"${same.has(f) ? `./${same.get(f)}` : `server-only:${f}`}"`)
      for (const [clientName, clientText] of client)
        if (asClient === clientText) {
          same.set(name, clientName)
          changed = true
          break
        }
    }
  }
  return same
}

export type Node = { type: string; start: number; end: number; [key: string]: unknown }
type Declaration = { text: string; uses: Set<string> }

/** Whether child `k` of `n` is a property's name (`a.b`, `{ b: 1 }`, a class member's key), not a reference to a binding. */
export function isPropertyName(n: Node, k: string): boolean {
  if (k === 'property') return n.type === 'MemberExpression' && n.computed === false
  return (
    k === 'key' && (n.type === 'Property' || n.type === 'PropertyDefinition' || n.type === 'MethodDefinition') && n.computed === false && n.shorthand !== true
  )
}

/** Every identifier a subtree names, but property names (`a.b`, `{ b: 1 }`): an over-approximation of what it uses. */
function identifiers(node: unknown, out: Set<string>): Set<string> {
  if (Array.isArray(node)) {
    for (const n of node) identifiers(n, out)
    return out
  }
  if (node === null || typeof node !== 'object') return out
  const n = node as Node
  if (n.type === 'Identifier' && typeof n.name === 'string') out.add(n.name)
  for (const [k, v] of Object.entries(n)) {
    if (isPropertyName(n, k)) continue
    identifiers(v, out)
  }
  return out
}

/** The names a top-level statement declares. */
function declared(stmt: Node): string[] {
  const s = stmt.type === 'ExportNamedDeclaration' && stmt.declaration ? (stmt.declaration as Node) : stmt
  if (s.type === 'FunctionDeclaration' || s.type === 'ClassDeclaration') return s.id ? [(s.id as Node & { name: string }).name] : []
  if (s.type === 'VariableDeclaration')
    return [
      ...identifiers(
        (s.declarations as Node[]).map((d) => d.id),
        new Set(),
      ),
    ]
  return []
}

/** A module's top-level declarations by name (an import binding reads as its source and imported name), its text and AST. */
export function topLevel(file: string, text: string): { body: Node[]; decls: Map<string, Declaration> } {
  const parsed = parseSync(file, text, { sourceType: 'module' })
  if (parsed.errors.length > 0) throw new Error(`sdk-dedupe: ${file} does not parse: ${parsed.errors[0]?.message}`)
  const body = parsed.program.body as unknown as Node[]
  const decls = new Map<string, Declaration>()
  for (const stmt of body) {
    if (stmt.type === 'ImportDeclaration') {
      const source = (stmt.source as Node & { value: string }).value
      for (const sp of stmt.specifiers as Node[]) {
        const local = (sp.local as Node & { name: string }).name
        const imported =
          sp.type === 'ImportSpecifier'
            ? String((sp.imported as Node & { name?: string; value?: string }).name ?? (sp.imported as Node & { value?: string }).value)
            : sp.type
        decls.set(local, { text: `import ${imported} from ${source}`, uses: new Set() })
      }
      continue
    }
    for (const name of declared(stmt)) decls.set(name, { text: text.slice(stmt.start, stmt.end), uses: identifiers(stmt, new Set()) })
  }
  return { body, decls }
}

/** The top-level statements of the `//#region <region>` block of an SDK dist file. */
export function regionStatements(text: string, body: Node[], region: string, file: string): Node[] {
  const marker = `//#region ${region}\n`
  const from = text.indexOf(marker)
  if (from < 0 || text.indexOf(marker, from + 1) >= 0) throw new Error(`sdk-dedupe: ${file} does not hold exactly one region ${region}`)
  const to = text.indexOf('//#endregion', from)
  return body.filter((s) => s.start > from && s.end <= to)
}

/** `function <memo>() { return <cache> ??= <build>(); }` in the region: where its return statement is and the names in it. */
export function memoReturn(stmts: Node[], memo: string, file: string): { start: number; end: number; cache: string; build: string } {
  const fn = stmts.find((s) => s.type === 'FunctionDeclaration' && (s.id as (Node & { name: string }) | null)?.name === memo)
  const ret = ((fn?.body as Node | undefined)?.body as Node[] | undefined) ?? []
  const arg = ret.length === 1 && ret[0]?.type === 'ReturnStatement' ? (ret[0].argument as Node | null) : null
  const left = arg?.left as (Node & { name?: string }) | undefined
  const right = arg?.right as (Node & { callee?: Node & { name?: string }; arguments?: unknown[] }) | undefined
  if (
    !ret[0] ||
    arg?.type !== 'AssignmentExpression' ||
    arg.operator !== '??=' ||
    left?.type !== 'Identifier' ||
    right?.type !== 'CallExpression' ||
    right.callee?.type !== 'Identifier' ||
    right.arguments?.length !== 0
  )
    throw new Error(
      `sdk-dedupe: ${file}: ${memo}() is no longer \`return memo ??= build();\`; read the SDK's new code before sharing it (scripts/sdk-dedupe.mts)`,
    )
  return { start: ret[0].start, end: ret[0].end, cache: String(left.name), build: String(right.callee.name) }
}

/**
 * Throws unless the client's and the server's copies of each wire-schema builder are the same: the
 * region's statements and every top-level declaration they reach, by name, the same text in both
 * (imports: the same source and imported name; relative imports through `same`). Returns the
 * top-level names compared, by era.
 */
export function assertSameWireBuilders(clientFile: string, serverFile: string, same: Map<string, string>): Map<string, string[]> {
  const compared = new Map<string, string[]>()
  const texts = [fs.readFileSync(clientFile, 'utf8'), fs.readFileSync(serverFile, 'utf8')] as const
  const [client, server] = [topLevel(clientFile, texts[0]), topLevel(serverFile, texts[1])]
  const serverImport = (t: string) => t.replace(/from \.\/([\w.-]+\.mjs)$/, (m, f: string) => (same.has(f) ? `from ./${same.get(f)}` : `from server-only:${f}`))
  for (const w of WIRE_BUILDERS) {
    const stmts = [regionStatements(texts[0], client.body, w.region, clientFile), regionStatements(texts[1], server.body, w.region, serverFile)]
    memoReturn(stmts[0], w.memo, clientFile)
    memoReturn(stmts[1], w.memo, serverFile)
    const regionText = stmts.map((ss, i) => ss.map((s) => texts[i].slice(s.start, s.end)).join('\n'))
    if (regionText[0] !== regionText[1])
      throw new Error(`sdk-dedupe: the ${w.era} wire schemas (${w.region}) differ between the client and server packages; they cannot share one copy`)
    const todo = [...new Set(stmts[0].flatMap((s) => [...identifiers(s, new Set())]))]
    const seen = new Set<string>()
    while (todo.length > 0) {
      const name = todo.pop() as string
      if (seen.has(name)) continue
      seen.add(name)
      const a = client.decls.get(name)
      const b = server.decls.get(name)
      if (!a && !b) continue // a local or a global: its text is in the statements compared
      if (!a || !b || a.text !== serverImport(b.text))
        throw new Error(
          `sdk-dedupe: the ${w.era} wire schemas use \`${name}\`, which differs between the client and server packages; they cannot share one copy`,
        )
      todo.push(...a.uses)
    }
    compared.set(w.era, [...seen].filter((n) => client.decls.has(n)).sort())
  }
  return compared
}

/** The file of a package's dist that holds the wire-schema builders (its `src-*.mjs`). */
export function wireFile(dist: string): string {
  const marker = `//#region ${WIRE_BUILDERS[0].region}\n`
  const files = fs
    .readdirSync(dist)
    .filter((f) => f.endsWith('.mjs'))
    .filter((f) => fs.readFileSync(path.join(dist, f), 'utf8').includes(marker))
  if (files.length !== 1) throw new Error(`sdk-dedupe: expected one file with the wire schemas in ${dist}, found ${files.length}`)
  return path.join(dist, files[0] as string)
}

/** Replaces each era's `return memo ??= build();` of a package's wire file by a call of the shared memo. */
export function shareWireMemos(code: string, file: string): string {
  if (code.includes(SHARED_MEMO_NAME)) throw new Error(`sdk-dedupe: ${file} already names ${SHARED_MEMO_NAME}`)
  const { body } = topLevel(file, code)
  const edits = WIRE_BUILDERS.map((w) => ({ w, ...memoReturn(regionStatements(code, body, w.region, file), w.memo, file) })).sort((a, b) => b.start - a.start)
  let out = code
  for (const e of edits) out = `${out.slice(0, e.start)}return ${e.cache} ??= ${SHARED_MEMO_NAME}(${JSON.stringify(e.w.era)}, ${e.build});${out.slice(e.end)}`
  return `import { sharedWireSchemas as ${SHARED_MEMO_NAME} } from ${JSON.stringify(SHARED_MEMO_MODULE)};\n${out}`
}

/** The vite plugin (main build). `nodeModules`: the folder holding @modelcontextprotocol/client and /server. */
export function sdkDedupe(nodeModules: string): Plugin {
  const dist = (pkg: string) => fs.realpathSync(path.join(nodeModules, '@modelcontextprotocol', pkg, 'dist'))
  const clientDist = dist('client')
  const serverDist = dist('server')
  // bare imports of both packages resolve alike only if neither has its own node_modules
  for (const pkg of ['client', 'server'])
    if (fs.existsSync(path.join(nodeModules, '@modelcontextprotocol', pkg, 'node_modules')))
      throw new Error(`sdk-dedupe: @modelcontextprotocol/${pkg} has its own node_modules; its imports may resolve elsewhere than the other package's`)
  const same = sameModules(serverDist, clientDist)
  const wire = new Set([wireFile(clientDist), wireFile(serverDist)])
  assertSameWireBuilders(wireFile(clientDist), wireFile(serverDist), same)
  return {
    name: 'toolgate-sdk-dedupe',
    enforce: 'pre',
    resolveId(source, importer) {
      if (source === SHARED_MEMO_MODULE) return SHARED_MEMO_MODULE
      if (!importer || !source.startsWith('./') || path.dirname(importer) !== serverDist) return null
      const to = same.get(path.basename(source))
      return to ? path.join(clientDist, to) : null
    },
    load(id) {
      return id === SHARED_MEMO_MODULE ? SHARED_MEMO_SOURCE : null
    },
    transform(code, id) {
      const file = id.split('?')[0] as string
      if (!wire.has(file)) return null
      if (code !== fs.readFileSync(file, 'utf8'))
        throw new Error(`sdk-dedupe: ${file} reached this step changed by another plugin; the check ran on the file as published`)
      return { code: shareWireMemos(code, file), map: null }
    },
  }
}
