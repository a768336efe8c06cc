// JSON file helpers for the files Toolgate rewrites (mcp_config.json, MCP clients' configs):
// tolerant reading (BOM; JSONC, with jsonc-parser, where asked), writing that keeps the file's
// own indentation / line endings, atomically, and edits in place that keep a client file's
// comments and formatting.
import fs from 'node:fs'
import path from 'node:path'
import { createRequire } from 'node:module'
import writeFileAtomic from 'write-file-atomic'
import type * as JsoncModule from 'jsonc-parser'
import type { ParseError } from 'jsonc-parser'

type JsoncParser = typeof JsoncModule
let jsoncParser: JsoncParser | null = null

/**
 * jsonc-parser, loaded when a file first needs it (a JSONC read, an edit in place): most starts
 * read strict JSON only. Loaded at start it held ≈ 0.3 MB of heap for good, most of it the
 * formatter's table of 1,200 prebuilt indentation strings (docs/performance.md). Required, not
 * import()-ed: on Node 20 the launcher compiles the built main code with V8's code cache
 * (bin/toolgate.js), where a dynamic import() cannot run.
 */
function jsonc(): JsoncParser {
  jsoncParser ??= createRequire(__filename)('jsonc-parser') as JsoncParser
  return jsoncParser
}

export type JsonObject = Record<string, unknown>

export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/** How a JSON file is laid out, so a rewrite looks like the original. */
export interface JsonLayout {
  indent: string
  eol: '\n' | '\r\n'
  finalNewline: boolean
  bom: boolean
}

export const DEFAULT_LAYOUT: JsonLayout = { indent: '  ', eol: '\n', finalNewline: true, bom: false }

export function detectLayout(text: string): JsonLayout {
  const bom = text.startsWith('\uFEFF')
  const body = bom ? text.slice(1) : text
  if (body.trim() === '') return { ...DEFAULT_LAYOUT, bom }
  const indent = /\n([ \t]+)\S/.exec(body)?.[1] ?? (body.includes('\n') ? DEFAULT_LAYOUT.indent : '')
  return {
    indent: indent.length > 10 ? DEFAULT_LAYOUT.indent : indent,
    eol: body.includes('\r\n') ? '\r\n' : '\n',
    finalNewline: /\n\s*$/.test(body),
    bom,
  }
}

export function formatJson(value: unknown, layout: JsonLayout): string {
  let text = layout.indent === '' ? JSON.stringify(value) : JSON.stringify(value, null, layout.indent)
  if (layout.eol === '\r\n') text = text.replace(/\n/g, '\r\n')
  if (layout.finalNewline) text += layout.eol
  return (layout.bom ? '\uFEFF' : '') + text
}

export function stripBom(text: string): string {
  return text.startsWith('\uFEFF') ? text.slice(1) : text
}

export type ReadJson = { exists: false } | { exists: true; text: string; value: unknown; layout: JsonLayout; jsonc: boolean }

/**
 * Reads a JSON file. Missing → `{exists:false}`; empty → `{}`. With `allowJsonc`, comments and
 * trailing commas are accepted (VS Code's JSONC, read by jsonc-parser, and reported by
 * `jsonc: true`). Errors name the file.
 */
export function readJsonFile(file: string, opts: { allowJsonc?: boolean; what?: string } = {}): ReadJson {
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { exists: false }
    throw new Error(`Cannot read ${file}: ${(e as Error).message}`)
  }
  const layout = detectLayout(text)
  const body = stripBom(text)
  if (body.trim() === '') return { exists: true, text, value: {}, layout, jsonc: false }
  try {
    return { exists: true, text, value: JSON.parse(body) as unknown, layout, jsonc: false }
  } catch (strictError) {
    const errors: ParseError[] = []
    const value: unknown = jsonc().parse(body, errors, { allowTrailingComma: true, disallowComments: false })
    const jsoncOk = errors.length === 0
    if (jsoncOk && opts.allowJsonc) return { exists: true, text, value, layout, jsonc: true }
    const what = opts.what ? `${opts.what} ` : ''
    const detail = jsoncOk ? 'it contains comments or trailing commas' : (strictError as Error).message
    throw new JsonFileError(file, `${what}${file} is not valid JSON (${detail})`)
  }
}

/** One change of a JSON document: the value at `path` set (inserted or replaced), or removed when `value` is undefined. */
export interface JsonEdit {
  path: Array<string | number>
  value: unknown
}

/**
 * The text with `edits` applied where they apply and nothing else touched: comments, trailing
 * commas, key order and the formatting of every other part stay (jsonc-parser's modify, as VS
 * Code edits its settings). New parts are indented like the file. A blank text starts as `{}`.
 */
export function editJsonText(text: string, edits: readonly JsonEdit[], layout: JsonLayout): string {
  const bom = text.startsWith('\uFEFF')
  let body = bom ? text.slice(1) : text
  if (body.trim() === '') body = formatJson({}, { ...layout, bom: false })
  const tabs = layout.indent.startsWith('\t')
  const formattingOptions = { insertSpaces: !tabs, tabSize: tabs ? 1 : Math.max(layout.indent.length, 1), eol: layout.eol }
  const { applyEdits, modify } = jsonc()
  for (const e of edits) body = applyEdits(body, modify(body, e.path, e.value, { formattingOptions }))
  return (bom ? '\uFEFF' : '') + body
}

export class JsonFileError extends Error {
  constructor(
    public readonly file: string,
    message: string,
  ) {
    super(message)
    this.name = 'JsonFileError'
  }
}

/** Atomic write (temp file + rename); creates parent dirs; new files are private (0600). */
export function writeJsonFile(file: string, value: unknown, layout: JsonLayout = DEFAULT_LAYOUT): void {
  writeTextFile(file, formatJson(value, layout))
}

/** Atomic write of a text as it is (an edited JSON document); creates parent dirs; new files are private (0600). */
export function writeTextFile(file: string, text: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  const exists = fs.existsSync(file)
  // an existing file keeps its mode and owner (write-file-atomic copies them)
  writeFileAtomic.sync(file, text, exists ? { fsync: true } : { fsync: true, mode: 0o600 })
}

/** JSON-semantic equality: object key order does not matter, array order does. */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    return a.every((v, i) => jsonEqual(v, b[i]))
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const ka = Object.keys(a).filter((k) => a[k] !== undefined)
    const kb = Object.keys(b).filter((k) => b[k] !== undefined)
    if (ka.length !== kb.length) return false
    return ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k], b[k]))
  }
  return false
}

/**
 * Sets an own property, keeping its position when it exists and appending it otherwise. Safe
 * for names like "__proto__" (a plain assignment would change the prototype instead).
 */
export function setOwn(obj: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true })
}

export function getOwn(obj: JsonObject, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined
}
