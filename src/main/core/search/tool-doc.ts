// A tool as the search index reads it: the text of each field (field-scoring.ts FIELDS), cut to
// what is indexed, with English glosses of its Chinese (gloss.ts), and what the tool does (intent.ts).
import type { Variant } from '../../../shared/call-variant'
import { FIELDS, type Field } from './field-scoring'
import { glossOf } from './gloss'
import { effectCode, type IntentOptions } from './intent'
import { firstSentence } from './tokenize'

export interface IndexedTool {
  /** "server:tool" */
  id: string
  server: string
  name: string
  description: string
  paramNames: string[]
  /** parameter descriptions, optional */
  paramText?: string
  /** the call variant the tool needs (the call gate's), for ranking by what a request means to do */
  variant?: Variant
  /** false when the variant is the MCP spec's default for a tool without hints */
  hinted?: boolean
}

export interface Doc {
  id: string
  server: string
  /** the text of each field, in FIELDS order; compared to skip unchanged tools on update */
  fields: string[]
  /** what the tool does (intent.ts EFFECT_*), from its call variant */
  effect: number
}

const DESC = FIELDS.indexOf('desc')
const PARAMS = FIELDS.indexOf('params')
const GLOSS = FIELDS.indexOf('gloss')

/**
 * The most of a tool's description, and of its parameters' text, that is indexed. An upstream's
 * text is untrusted and its parameters' descriptions have no cap of their own (a description has
 * limits.max_description_chars, which the user may raise): a run of letters millions long
 * overflowed V8's regular-expression stack in the tokenizer and the glosses (RangeError, the whole
 * server left out of search) and cost a second of the main thread. Real tools stay far below.
 */
export const MAX_INDEXED_CHARS = 65_536

/** `text` cut to MAX_INDEXED_CHARS (never inside a surrogate pair). */
function indexable(text: string): string {
  if (text.length <= MAX_INDEXED_CHARS) return text
  const last = text.charCodeAt(MAX_INDEXED_CHARS - 1)
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? MAX_INDEXED_CHARS - 1 : MAX_INDEXED_CHARS)
}

/** `before`: the tool's document as indexed until now; its glosses are kept when its text is the same (a server re-sends its list unchanged). */
export function toDoc(server: string, t: IndexedTool, intent: IntentOptions, gloss: boolean, before?: Doc): Doc {
  const params = indexable(t.paramText ? `${t.paramNames.join(' ')} ${t.paramText}` : t.paramNames.join(' '))
  const desc = indexable(t.description ?? '')
  const same = before !== undefined && before.fields[DESC] === desc && before.fields[PARAMS] === params
  const glosses = !gloss ? '' : same ? before.fields[GLOSS] : `${glossOf(desc)} ${glossOf(params)}`.trim()
  const byField: Record<Field, string> = { name: t.name, summary: firstSentence(desc), desc, params, server, gloss: glosses }
  return { id: t.id, server, fields: FIELDS.map((f) => byField[f]), effect: effectCode(t.variant, t.hinted !== false, intent) }
}

export function sameDoc(a: Doc, b: Doc): boolean {
  return a.server === b.server && a.effect === b.effect && a.fields.every((v, i) => v === b.fields[i])
}
