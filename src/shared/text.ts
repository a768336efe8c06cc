// Text that reaches a terminal or a reviewer: control characters (C0, DEL, C1, so also ESC
// sequences such as OSC 52), bidi controls and invisible characters (zero-width, fillers, tag
// characters and supplementary variation selectors, which smuggle text a model reads and a person
// does not see) are shown as \u escapes, so untrusted text can neither drive the terminal, nor
// reorder what is shown, nor hide part of itself. The one list of such characters. Pure.

/** Bidi embeddings, overrides, isolates and marks (regex class body, `u` flag). */
export const BIDI_CHARS = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069'
/**
 * Characters that show as nothing: soft hyphen, combining grapheme joiner, Hangul and Khmer fillers,
 * Mongolian selectors, zero-width space/joiners, word joiner and invisible operators, BOM, tag
 * characters, supplementary variation selectors (regex class body, `u` flag). The basic variation
 * selectors (U+FE00–FE0F) are not in it: one follows most emoji; tool names flag them separately.
 */
export const INVISIBLE_CHARS =
  '\\u00ad\\u034f\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u200b-\\u200d\\u2060-\\u2065\\u3164\\ufeff\\uffa0\\u{e0000}-\\u{e007f}\\u{e0100}-\\u{e01ef}'
/** Line and paragraph separators: they break a line where a reader does not expect one. */
const SEPARATORS = '\\u2028\\u2029'
const FORMAT = `${BIDI_CHARS}${INVISIBLE_CHARS}${SEPARATORS}`

/** Every C0 (newline and tab too), DEL, C1, and the format characters above. */
const UNSAFE_ONE_LINE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${FORMAT}]`, 'gu')
/** The same, but newline and tab pass (whole messages). */
const UNSAFE_TEXT = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${FORMAT}]`, 'gu')
/** What JSON.stringify leaves raw (it escapes C0 itself). */
const UNSAFE_IN_JSON = new RegExp(`[\\u007f-\\u009f${FORMAT}]`, 'gu')

const hex4 = (n: number): string => `\\u${n.toString(16).padStart(4, '0')}`
/** `\u202e`, or `\u{e0041}` past the basic plane. */
const u = (c: string): string => {
  const cp = c.codePointAt(0) as number
  return cp > 0xffff ? `\\u{${cp.toString(16)}}` : hex4(cp)
}
/** JSON knows only 4-digit escapes: a character past the basic plane becomes its surrogate pair. */
const uJson = (c: string): string => [...Array(c.length).keys()].map((i) => hex4(c.charCodeAt(i))).join('')

/** One field on one line (a table cell, an argument): every unsafe character, newlines too, becomes `\uXXXX`. */
export function escapeControls(s: string): string {
  return s.replace(UNSAFE_ONE_LINE, u)
}

/** A whole message for a terminal: like escapeControls, but newlines and tabs stay. */
export function escapeText(s: string): string {
  return s.replace(UNSAFE_TEXT, u)
}

/**
 * JSON text for a terminal: the unsafe characters JSON.stringify leaves raw become `\uXXXX`
 * escapes. They can only occur inside strings, so the JSON value stays the same.
 */
export function escapeJsonControls(json: string): string {
  return json.replace(UNSAFE_IN_JSON, uJson)
}

/** How many characters of `s` escapeText would escape (newlines and tabs do not count). */
export function hiddenCount(s: string): number {
  return s.match(UNSAFE_TEXT)?.length ?? 0
}

export interface VisiblePart {
  /** shown as is, or the escape of one hidden character */
  text: string
  hidden: boolean
}

/** `s` as escapeText shows it, split so a window can mark each escape as one. */
export function visibleParts(s: string): VisiblePart[] {
  const out: VisiblePart[] = []
  let last = 0
  for (const m of s.matchAll(UNSAFE_TEXT)) {
    if (m.index > last) out.push({ text: s.slice(last, m.index), hidden: false })
    out.push({ text: u(m[0]), hidden: true })
    last = m.index + m[0].length
  }
  if (last < s.length || out.length === 0) out.push({ text: s.slice(last), hidden: false })
  return out
}
