// JSON file helpers for the files Toolgate rewrites (mcp_config.json, MCP clients' configs):
// tolerant reading (BOM, JSONC for read-only use), writing that keeps the file's own
// indentation / line endings, atomically.
import fs from 'node:fs'
import path from 'node:path'
import writeFileAtomic from 'write-file-atomic'

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

/**
 * Removes `//` and `/* *\/` comments and trailing commas outside strings (VS Code's JSONC).
 * Only for reading: a file with comments is never rewritten (the comments would be lost).
 */
export function stripJsonc(text: string): string {
  let out = ''
  let i = 0
  while (i < text.length) {
    const c = text[i]
    if (c === '"') {
      let j = i + 1
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1
      out += text.slice(i, j + 1)
      i = j + 1
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2)
      i = end < 0 ? text.length : end + 2
      out += ' '
    } else {
      out += c
      i++
    }
  }
  // trailing commas: a comma followed only by whitespace before } or ] (strings copied verbatim)
  let result = ''
  for (let k = 0; k < out.length; k++) {
    const c = out[k]
    if (c === '"') {
      let j = k + 1
      while (j < out.length && out[j] !== '"') j += out[j] === '\\' ? 2 : 1
      result += out.slice(k, j + 1)
      k = j
    } else if (c === ',') {
      let n = k + 1
      while (n < out.length && /\s/.test(out[n])) n++
      if (out[n] !== '}' && out[n] !== ']') result += c
    } else {
      result += c
    }
  }
  return result
}

export type ReadJson = { exists: false } | { exists: true; text: string; value: unknown; layout: JsonLayout; jsonc: boolean }

/**
 * Reads a JSON file. Missing → `{exists:false}`; empty → `{}`. With `allowJsonc`, comments and
 * trailing commas are accepted (and reported by `jsonc: true`). Errors name the file.
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
    let jsoncValue: unknown
    let jsoncOk = false
    try {
      jsoncValue = JSON.parse(stripJsonc(body)) as unknown
      jsoncOk = true
    } catch {
      // not JSONC either
    }
    if (jsoncOk && opts.allowJsonc) return { exists: true, text, value: jsoncValue, layout, jsonc: true }
    const what = opts.what ? `${opts.what} ` : ''
    const detail = jsoncOk ? 'it contains comments or trailing commas' : (strictError as Error).message
    throw new JsonFileError(file, `${what}${file} is not valid JSON (${detail})`)
  }
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
  fs.mkdirSync(path.dirname(file), { recursive: true })
  const exists = fs.existsSync(file)
  // an existing file keeps its mode and owner (write-file-atomic copies them)
  writeFileAtomic.sync(file, formatJson(value, layout), exists ? { fsync: true } : { fsync: true, mode: 0o600 })
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
