// Everything the CLI prints goes through here: text for people with control characters, ESC
// sequences and bidi overrides shown as \u escapes (untrusted names, arguments and messages can
// neither drive the terminal nor reorder a line), JSON with those characters as \u escapes.
import { escapeJsonControls, escapeText } from '../../shared/text'

/** A message for people on stdout (a newline is added when missing). */
export function say(text: string): void {
  process.stdout.write(escapeText(text.endsWith('\n') ? text : text + '\n'))
}

/** A message for people on stderr. */
export function sayErr(text: string): void {
  process.stderr.write(escapeText(text.endsWith('\n') ? text : text + '\n'))
}

/** JSON text (already serialized) on stdout, with every unsafe character escaped. */
export function printJsonText(json: string): void {
  process.stdout.write(escapeJsonControls(json) + '\n')
}

export function printJson(value: unknown): void {
  printJsonText(JSON.stringify(value, null, 2))
}
