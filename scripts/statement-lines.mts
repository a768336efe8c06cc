// Build step of the main bundle: the code as the minifier prints it without whitespace, one statement a line (docs/performance.md).
//
// V8 keeps each loaded module's source in the heap; the main chunk is ≈ 1.9 MB of it, ≈ 0.3 MB of
// which is indentation and the spaces around operators. Printed without whitespace, a chunk is a
// few lines tens of KB long, and Node prints the whole source line of an uncaught error to
// stderr. So the chunk is printed without whitespace (identifiers kept: stack traces name their
// functions) and a line break is put back after each statement of a statement list (a program,
// a block, a function body, a switch case) and each member of a class: an error's line is one
// statement again. A break goes only after a statement that ends in `;` or `}`, outside any
// string, template or regular expression (a statement never ends inside one), so no automatic
// semicolon insertion can change what the code means.
import { parseSync, type Plugin } from 'vite'

type Node = { type: string; start: number; end: number; [key: string]: unknown }

/** Every position just after a statement of a statement list or a class member of `node`'s subtree. */
function statementEnds(node: unknown, out: number[]): void {
  if (Array.isArray(node)) {
    for (const n of node) statementEnds(n, out)
    return
  }
  if (node === null || typeof node !== 'object') return
  const n = node as Node
  const list =
    n.type === 'Program' || n.type === 'BlockStatement' || n.type === 'FunctionBody' || n.type === 'StaticBlock' || n.type === 'ClassBody'
      ? (n.body as Node[])
      : n.type === 'SwitchCase'
        ? (n.consequent as Node[])
        : null
  if (list) for (const s of list) out.push(s.end)
  for (const v of Object.values(n)) if (v !== null && typeof v === 'object') statementEnds(v, out)
}

/** `code` (printed without whitespace) with a line break after each statement and class member; throws when it does not parse. */
export function oneStatementPerLine(code: string, file: string): string {
  const parsed = parseSync(file, code, { sourceType: 'script', lang: 'js' })
  if (parsed.errors.length > 0) throw new Error(`statement-lines: ${file} does not parse: ${parsed.errors[0]?.message}`)
  const ends: number[] = []
  statementEnds(parsed.program, ends)
  // a class field's end may leave out its `;`
  const after = ends.map((e) => (code[e] === ';' ? e + 1 : e))
  const at = [...new Set(after)].filter((e) => (code[e - 1] === ';' || code[e - 1] === '}') && e < code.length && code[e] !== '\n').sort((a, b) => a - b)
  let out = ''
  let from = 0
  for (const e of at) {
    out += `${code.slice(from, e)}\n`
    from = e
  }
  return out + code.slice(from)
}

/** The vite plugin (main build): rewrites every JavaScript chunk the build emits. */
export function statementLines(): Plugin {
  return {
    name: 'toolgate-statement-lines',
    generateBundle(_options, bundle) {
      for (const out of Object.values(bundle)) if (out.type === 'chunk') out.code = oneStatementPerLine(out.code, out.fileName)
    },
  }
}
