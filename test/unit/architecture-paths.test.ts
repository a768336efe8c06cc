// docs/architecture.md stays true to the code: every source file and folder it names exists (a
// path as written, from the root, src/, src/main/, src/main/core/ or test/; a bare file name in a
// row of the core's folders table inside that row's folder, elsewhere anywhere under src/), and
// every function, class or constant it names in code is defined or used somewhere in src/ or the
// lint config. The checker is tried on small broken examples first, so it is known to catch a
// moved file, a file named under the wrong folder and a renamed function.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = path.resolve(__dirname, '../..')
const DOC = 'docs/architecture.md'
/** where a path written relative to something is looked for, in order */
const BASES = ['', 'src', 'src/main', 'src/main/core', 'test']
const SOURCE = /\.(ts|tsx|mjs|js)$/

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .map((f) => path.join(dir, f))
    .filter((f) => fs.statSync(path.join(ROOT, f)).isFile())
}

interface Tree {
  exists(rel: string): boolean
  /** base names of every file under src/ */
  names: Set<string>
  /** identifiers (words) of src/ and the lint config */
  words: Set<string>
}

function realTree(): Tree {
  const files = [...filesUnder('src'), 'eslint.config.mjs']
  const words = new Set<string>()
  for (const f of files) for (const w of fs.readFileSync(path.join(ROOT, f), 'utf8').match(/[A-Za-z_$][\w$]*/g) ?? []) words.add(w)
  return {
    exists: (rel) => fs.existsSync(path.join(ROOT, rel)),
    names: new Set(files.map((f) => path.basename(f))),
    words,
  }
}

/** A path-like code span: a source file or a folder (ending in /), no globs, not the build output. */
function isPath(s: string): boolean {
  if (!/^[\w.@-]+(\/[\w.@-]+)*\/?$/.test(s) || s.startsWith('out/')) return false
  return s.endsWith('/') ? s.length > 1 : SOURCE.test(s)
}

/** An identifier in code: camelCase or PascalCase with a second capital, a call `x()`, a CONSTANT_NAME, or dotted parts of those. */
function isIdentifier(s: string): boolean {
  if (!/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*(\(\))?$/.test(s)) return false
  return s.endsWith('()') || /[a-z][A-Z]/.test(s) || /^[A-Z][A-Z0-9]*_[A-Z0-9_]+$/.test(s)
}

/** What the page names that is not in `tree`. */
function problems(markdown: string, tree: Tree, looked: { paths: number; identifiers: number } = { paths: 0, identifiers: 0 }): string[] {
  const out: string[] = []
  let section = ''
  let fenced = false
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) {
      fenced = !fenced
      continue
    }
    if (!fenced && line.startsWith('## ')) section = line.slice(3)
    const dataDir = section.startsWith('What lives in the data dir')
    // a row of the core's folders table: bare file names sit in that row's folder
    const row = dataDir ? null : /^\| `([\w-]+\/)` \|/.exec(line)
    const spans = fenced ? (line.match(/[\w.@-]+(?:\/[\w.@*-]+)*\/?/g) ?? []) : [...line.matchAll(/`([^`]+)`/g)].map((m) => m[1])
    for (const span of spans) {
      if (isPath(span)) {
        if (dataDir && !SOURCE.test(span)) continue // the data dir's own files and folders (logs/, activity/)
        if (fenced && !span.includes('/')) continue // a bare word in a diagram
        looked.paths++
        if (!span.includes('/')) {
          if (row) {
            if (!tree.exists(`src/main/core/${row[1]}${span}`)) out.push(`${span}: not in src/main/core/${row[1]}`)
          } else if (!tree.names.has(span)) out.push(`${span}: no such file under src/`)
          continue
        }
        const bases = row ? [`src/main/core/${row[1]}`, ...BASES] : BASES
        if (!bases.some((b) => tree.exists(path.posix.join(b, span)))) out.push(`${span}: not found from ${bases.map((b) => b || '.').join(', ')}`)
      } else if (!fenced && isIdentifier(span)) {
        looked.identifiers++
        for (const part of span.replace(/\(\)$/, '').split('.')) if (!tree.words.has(part)) out.push(`${span}: "${part}" appears nowhere in src/`)
      }
    }
  }
  return out
}

describe('docs/architecture.md names what exists', () => {
  it('the checker catches a moved file, a file under the wrong folder and a renamed function', () => {
    const tree: Tree = {
      exists: (rel) => ['src/main/core/access/call-gate.ts', 'src/main/core/config/load.ts', 'src/main/core/config/', 'src/main/core/upstream/'].includes(rel),
      names: new Set(['call-gate.ts', 'load.ts']),
      words: new Set(['decideAccess', 'catalog', 'serverLock']),
    }
    const page = [
      '## Walk',
      'the gate (`access/call-gate.ts`, `decideAccess`, `catalog.serverLock`) and `load.ts`',
      '| `config/` | loading (`load.ts`) |',
      '```',
      '  upstream/ ──► access/call-gate.ts',
      '```',
      '## What lives in the data dir',
      '| `logs/` | `log.ts` |',
    ].join('\n')
    expect(problems(page, tree)).toEqual(['log.ts: no such file under src/'])
    const moved = [
      'the gate (`agent/call-gate.ts`, `decideAccessOld`, `catalog.lockOf()`) and `upstream-manager.ts`',
      '| `upstream/` | loading (`load.ts`), its sandbox (`sandbox/`) |',
      '```',
      '  agent/ ──► agent/call-gate.ts',
      '```',
    ].join('\n')
    expect(problems(moved, tree)).toEqual([
      'agent/call-gate.ts: not found from ., src, src/main, src/main/core, test',
      'decideAccessOld: "decideAccessOld" appears nowhere in src/',
      'catalog.lockOf(): "lockOf" appears nowhere in src/',
      'upstream-manager.ts: no such file under src/',
      'load.ts: not in src/main/core/upstream/',
      'sandbox/: not found from src/main/core/upstream/, ., src, src/main, src/main/core, test',
      'agent/: not found from ., src, src/main, src/main/core, test',
      'agent/call-gate.ts: not found from ., src, src/main, src/main/core, test',
    ])
  })

  it('every file, folder and function the page names is in the code', () => {
    const page = fs.readFileSync(path.join(ROOT, DOC), 'utf8')
    const looked = { paths: 0, identifiers: 0 }
    expect(problems(page, realTree(), looked)).toEqual([])
    // the page names well over a hundred paths and dozens of functions: a checker that finds none looked at nothing
    expect(looked.paths).toBeGreaterThan(150)
    expect(looked.identifiers).toBeGreaterThan(40)
  })
})
