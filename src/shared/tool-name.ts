// Tool names an upstream chose that do not read as what they are: invisible characters, bidi
// controls (`list_notes\u202egnp.exe` renders as "list_notesexe.png"), or letters of several
// scripts mixed in one name (a Cyrillic "а" in "reаd_file"). The UI flags them and shows them
// escaped; pure, shared by the core (ToolInfo.name_warning) and the renderer.
import { BIDI_CHARS, INVISIBLE_CHARS } from './text'

/** Bidi embeddings, overrides, isolates and marks (the one list, in text.ts). */
const BIDI = new RegExp(`[${BIDI_CHARS}]`, 'u')
/** Invisible characters (text.ts), and in a name also the basic variation selectors. */
const INVISIBLE = new RegExp(`[${INVISIBLE_CHARS}\\ufe00-\\ufe0f]`, 'u')
/** Scripts whose letters imitate each other (homoglyphs); mixing any two in one name is flagged. */
const SCRIPTS: Array<[string, RegExp]> = [
  ['Latin', /\p{Script=Latin}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Armenian', /\p{Script=Armenian}/u],
  ['Cherokee', /\p{Script=Cherokee}/u],
]

/** Why a tool name is deceptive, or null when it reads as what it is. */
export function nameWarning(name: string): string | null {
  if (BIDI.test(name)) return 'the name contains bidirectional control characters that reorder how it is displayed'
  if (INVISIBLE.test(name)) return 'the name contains invisible characters'
  const used = SCRIPTS.filter(([, re]) => re.test(name)).map(([script]) => script)
  if (used.length > 1) return `the name mixes letters of several scripts (${used.join(', ')}), which can imitate another name`
  return null
}

/** The name with every character outside printable ASCII written as \u{…}, for showing a flagged name. */
export function escapedName(name: string): string {
  let out = ''
  for (const ch of name) {
    const cp = ch.codePointAt(0) as number
    out += cp >= 0x20 && cp < 0x7f ? ch : `\\u{${cp.toString(16)}}`
  }
  return out
}
