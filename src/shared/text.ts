// Text that reaches a terminal or a reviewer: control characters (C0, DEL, C1, so also ESC
// sequences such as OSC 52) and bidi or invisible format characters are shown as \u escapes,
// so untrusted text can neither drive the terminal nor reorder what is shown. Pure.

const FORMAT = '\\u061c\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2069\\ufeff'
/** Every C0 (newline and tab too), DEL, C1, line/paragraph separators, bidi controls, zero-width and BOM. */
const UNSAFE_ONE_LINE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${FORMAT}]`, 'g')
/** The same, but newline and tab pass (whole messages). */
const UNSAFE_TEXT = new RegExp(`[\\u0000-\\u0008\\u000b-\\u001f\\u007f-\\u009f${FORMAT}]`, 'g')
/** What JSON.stringify leaves raw (it escapes C0 itself). */
const UNSAFE_IN_JSON = new RegExp(`[\\u007f-\\u009f${FORMAT}]`, 'g')

const u = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`

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
  return json.replace(UNSAFE_IN_JSON, u)
}
