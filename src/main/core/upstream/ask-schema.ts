// A server's question made safe for a person (docs/passthrough.md#requests-of-servers-elicitation-sampling-roots):
// the text a person reads (the message, titles, descriptions, enum names) masked, escaped and cut
// to a length a person can read, with a mark that says so; the values a form answers with (`enum`,
// `const`, `default`, and `required`'s field names) masked only, never escaped or cut, so that the
// choice the user picks is one the server accepts. A value that would show differently than it is
// (control, bidi or invisible characters) gets a title that shows it escaped. A requested schema
// too large for a person (too many fields or choices, a huge value, deep nesting) is refused.
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/client'
import {
  MAX_DESCRIPTION_CHARS,
  MAX_FIELDS,
  MAX_MESSAGE_CHARS,
  MAX_OPTIONS,
  MAX_SCHEMA_CHARS,
  MAX_TITLE_CHARS,
  MAX_VALUE_CHARS,
} from '../../../shared/elicit-form'
import { escapeControls } from '../../../shared/text'

/** A server's text for a person: masked, escaped; one line for a title, whole for a message. */
export type Clean = (s: string, oneLine?: boolean) => string

/**
 * `s` cut to `max` characters with a mark that says how long it was. The server's text is cut
 * before it is escaped (the cost stays bounded) and again after (escapes take more room).
 */
export function capText(s: string, max: number, clean: (t: string) => string): string {
  if (s.length <= max) {
    const shown = clean(s)
    if (shown.length <= max) return shown
    return `${shown.slice(0, max)}… [cut by Toolgate: the server's text was ${s.length} characters]`
  }
  return `${clean(s.slice(0, max)).slice(0, max)}… [cut by Toolgate: the server's text was ${s.length} characters]`
}

/** The server's message of a question: at most MAX_MESSAGE_CHARS, marked where cut. */
export function cleanMessage(s: string, clean: Clean): string {
  return capText(s, MAX_MESSAGE_CHARS, (t) => clean(t))
}

const refuse = (server: string, why: string): ProtocolError =>
  new ProtocolError(ProtocolErrorCode.InvalidRequest, `Toolgate does not show this elicitation of server "${server}": ${why}; nobody was asked.`)

/** Keys whose strings are values the answer carries (masked only), not text a person reads. */
const VALUE_KEYS = new Set(['enum', 'const', 'default', 'required'])
/** Keys whose arrays are choices (at most MAX_OPTIONS). */
const CHOICE_KEYS = new Set(['enum', 'enumNames', 'oneOf', 'anyOf'])
/** MCP keeps a requested schema flat: object → field → items → choice. */
const MAX_DEPTH = 6

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const needsTitle = (v: unknown): v is string => typeof v === 'string' && escapeControls(v) !== v

/**
 * A field whose choices would show differently than they are gets titles that show them escaped
 * (single-select `enum`: `enumNames`; `oneOf`/`anyOf` choices: `title`; multi-select `items.enum`:
 * `items.anyOf`). The values stay as the server sent them.
 */
function withShownTitles(field: Record<string, unknown>, title: (v: string) => string): Record<string, unknown> {
  const out = { ...field }
  const titled = (list: unknown): unknown =>
    Array.isArray(list) ? list.map((o) => (isRecord(o) && o.title === undefined && needsTitle(o.const) ? { ...o, title: title(o.const) } : o)) : list
  if (Array.isArray(out.enum) && out.enumNames === undefined && out.enum.some(needsTitle))
    out.enumNames = out.enum.map((v) => (typeof v === 'string' ? title(v) : v))
  if (out.oneOf !== undefined) out.oneOf = titled(out.oneOf)
  if (isRecord(out.items)) {
    const items = { ...out.items }
    if (Array.isArray(items.enum) && items.enum.some(needsTitle)) {
      const values = items.enum
      delete items.enum
      if (items.type === 'string') delete items.type
      items.anyOf = values.map((v) => (typeof v === 'string' ? { const: v, title: title(v) } : { const: v }))
    }
    if (items.anyOf !== undefined) items.anyOf = titled(items.anyOf)
    out.items = items
  }
  return out
}

/**
 * The requested schema of a form question as a person sees it and the server reads the answer:
 * texts masked, escaped and cut; values masked only. Throws the refusal the server gets when the
 * schema is more than a person can answer.
 */
export function cleanRequestedSchema(server: string, schema: unknown, clean: Clean, mask: (s: string) => string): unknown {
  let size: number
  try {
    size = JSON.stringify(schema ?? null).length
  } catch {
    throw refuse(server, 'its requested schema is not JSON')
  }
  if (size > MAX_SCHEMA_CHARS) throw refuse(server, `its requested schema is ${size} characters long (at most ${MAX_SCHEMA_CHARS})`)
  const title = (v: string): string => capText(v, MAX_TITLE_CHARS, (t) => clean(t, true))
  const walk = (v: unknown, key: string, depth: number): unknown => {
    if (depth > MAX_DEPTH) throw refuse(server, `its requested schema nests deeper than ${MAX_DEPTH} levels (MCP asks for a flat form)`)
    if (typeof v === 'string') {
      if (VALUE_KEYS.has(key)) {
        if (v.length > MAX_VALUE_CHARS)
          throw refuse(server, `a value of "${key}" in its requested schema is ${v.length} characters long (at most ${MAX_VALUE_CHARS})`)
        return mask(v)
      }
      return capText(v, key === 'description' ? MAX_DESCRIPTION_CHARS : MAX_TITLE_CHARS, (t) => clean(t, true))
    }
    if (Array.isArray(v)) {
      if (CHOICE_KEYS.has(key) && v.length > MAX_OPTIONS)
        throw refuse(server, `"${escapeControls(key)}" in its requested schema offers ${v.length} choices (at most ${MAX_OPTIONS})`)
      return v.map((x) => walk(x, key, depth + 1))
    }
    if (isRecord(v)) {
      if (key === 'properties') {
        const names = Object.keys(v)
        if (names.length > MAX_FIELDS) throw refuse(server, `its requested schema has ${names.length} fields (at most ${MAX_FIELDS})`)
        // field names are keys the answer carries: kept as they are (the form refuses hidden characters in them);
        // one that would show differently than it is, and has no title a client would show instead, gets one
        return Object.fromEntries(
          names.map((n) => {
            const field = walk(v[n], '', depth + 1)
            if (!isRecord(field)) return [n, field]
            const shown = withShownTitles(field, title)
            return [n, needsTitle(n) && shown.title === undefined ? { ...shown, title: title(n) } : shown]
          }),
        )
      }
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, k, depth + 1)]))
    }
    return v
  }
  return walk(schema, '', 0)
}
