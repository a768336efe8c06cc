// Text that reaches a terminal or a reviewer: control characters (C0, DEL, C1, so also ESC
// sequences such as OSC 52), bidi controls and invisible characters (zero-width, fillers, tag
// characters and supplementary variation selectors, which smuggle text a model reads and a person
// does not see), lookalikes of ASCII letters, runs of variation selectors and floods of combining
// marks are shown as \u escapes, so untrusted text can neither drive the terminal, nor reorder what
// is shown, nor hide part of itself, nor pose as Toolgate's own words. The one list of such
// characters: tools, prompts, resources and templates all pass through it. Pure.

/** Bidi embeddings, overrides, isolates and marks (regex class body, `u` flag). */
export const BIDI_CHARS = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069'
/**
 * Characters that show as nothing: soft hyphen, combining grapheme joiner, Hangul and Khmer fillers,
 * Mongolian selectors, zero-width space/joiners, word joiner and invisible operators, BOM, tag
 * characters, supplementary variation selectors (regex class body, `u` flag). The basic variation
 * selectors (U+FE00–FE0F) are not in it: one follows most emoji (a run of them is: CROWDS below);
 * tool names flag them separately.
 */
export const INVISIBLE_CHARS =
  '\\u00ad\\u034f\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u200b-\\u200d\\u2060-\\u2065\\u3164\\ufeff\\uffa0\\u{e0000}-\\u{e007f}\\u{e0100}-\\u{e01ef}'
/** Line and paragraph separators: they break a line where a reader does not expect one. */
const SEPARATORS = '\\u2028\\u2029'
/**
 * Lookalikes of ASCII letters (NFKC folds nearly each to an ASCII letter or digit): fullwidth Latin
 * letters, mathematical alphanumerics, letterlike (double-struck, script, fraktur), circled,
 * parenthesized and squared letters, Roman numerals, modifier (superscript and subscript) letters.
 * They let a server's text spell Toolgate's own words (`TOOL_BLOCKED`, `TOOLGATE NOTICE`) in
 * characters a filter or a reader takes for other ones. Left out: Latin-1 (`ª`, `º`, `²`),
 * fullwidth digits and punctuation (ordinary in CJK text), `™`, and those that are emoji (ℹ️, Ⓜ️).
 */
export const LOOKALIKE_CHARS =
  '\\u02b0-\\u02b8\\u1d2c-\\u1d6a\\u2071\\u207f\\u2090-\\u209c\\u2102\\u210a-\\u2113\\u2115\\u2119-\\u211d\\u2124\\u2128\\u212a\\u212c\\u212d\\u212f-\\u2131\\u2133\\u2134\\u2145-\\u2149\\u2160-\\u217f\\u249c-\\u24c1\\u24c3-\\u24e9\\uff21-\\uff3a\\uff41-\\uff5a\\u{1d400}-\\u{1d6a3}\\u{1d7ce}-\\u{1d7ff}\\u{1f110}-\\u{1f12a}\\u{1f130}-\\u{1f149}'
const FORMAT = `${BIDI_CHARS}${INVISIBLE_CHARS}${SEPARATORS}${LOOKALIKE_CHARS}`
/** The most combining marks kept on one character: accented letters, Vietnamese, Indic and pointed Hebrew need no more. */
export const MAX_COMBINING_MARKS = 4
/**
 * Characters harmless alone but not in a crowd (regex alternatives, `u` flag): a basic variation
 * selector (U+FE00–FE0F) right after another one (one follows most emoji; a run only carries what
 * a reader does not see), and a combining mark past the first MAX_COMBINING_MARKS on one character
 * (a flood that piles over the lines around it).
 */
const CROWDS = `[\\ufe00-\\ufe0f](?<=[\\ufe00-\\ufe0f]{2})|\\p{M}(?<=\\p{M}{${MAX_COMBINING_MARKS + 1}})`

/** Every C0 (newline and tab too), DEL, C1, the format characters and lookalikes above, and the crowds. */
const UNSAFE_ONE_LINE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${FORMAT}]|${CROWDS}`, 'gu')
/** The same, but newline and tab pass (whole messages). */
const UNSAFE_TEXT = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${FORMAT}]|${CROWDS}`, 'gu')
/** What JSON.stringify leaves raw (it escapes C0 itself): controls and format characters (log lines: no lookalikes or crowds). */
const UNSAFE_IN_JSON = new RegExp(`[\\u007f-\\u009f${BIDI_CHARS}${INVISIBLE_CHARS}${SEPARATORS}]`, 'gu')
/**
 * Plain ASCII holds no lookalike, mark or format character: its controls alone are looked for, with
 * a plain class V8 scans several times faster than the list above (most text is plain ASCII).
 */
const NON_ASCII = /[^\u0000-\u007f]/
const ASCII_ONE_LINE = /[\u0000-\u001f\u007f]/g
const ASCII_TEXT = /[\u0000-\u0008\u000b-\u001f\u007f]/g
const oneLineRe = (s: string): RegExp => (NON_ASCII.test(s) ? UNSAFE_ONE_LINE : ASCII_ONE_LINE)
const textRe = (s: string): RegExp => (NON_ASCII.test(s) ? UNSAFE_TEXT : ASCII_TEXT)

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
  return s.replace(oneLineRe(s), u)
}

/** A whole message for a terminal: like escapeControls, but newlines and tabs stay. */
export function escapeText(s: string): string {
  return s.replace(textRe(s), u)
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
  return s.match(textRe(s))?.length ?? 0
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
  for (const m of s.matchAll(textRe(s))) {
    if (m.index > last) out.push({ text: s.slice(last, m.index), hidden: false })
    out.push({ text: u(m[0]), hidden: true })
    last = m.index + m[0].length
  }
  if (last < s.length || out.length === 0) out.push({ text: s.slice(last), hidden: false })
  return out
}
