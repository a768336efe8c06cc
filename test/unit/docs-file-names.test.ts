// The docs name files that exist: every `folder/file.ts` (or .tsx, .mjs, .mts) a page of docs/ or
// the README names in code marks is a file of the repository, read from the root or from the folder
// the pages shorten it to (src/main/core/ for the core, src/ or src/main/ for the other layers,
// test/ and test/fixtures/). A file moved without its docs fails here. The checker is tried on
// small examples first, so that it is known to catch a stale name.
// (docs/architecture.md is also held to the code more closely, its names of functions and the
// folder of a bare file name included, by architecture-paths.test.ts.)
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = path.resolve(__dirname, '../..')

/** Where a name in the docs may be read from, in the order tried. */
const BASES = ['', 'src/main/core/', 'src/main/', 'src/', 'test/', 'test/fixtures/']
/** A file name with at least one folder, in code marks: `agent-server/mcp-server.ts`. */
const FILE_NAME = /`((?:[A-Za-z0-9_.-]+\/)+[A-Za-z0-9_.-]+\.(?:ts|tsx|mjs|mts))`/g

/** The names in `markdown` that no base turns into an existing file. */
function staleNames(markdown: string, exists: (relative: string) => boolean): string[] {
  const names = new Set([...markdown.matchAll(FILE_NAME)].map((m) => m[1]))
  return [...names].filter((n) => !BASES.some((base) => exists(base + n)))
}

const inRepo = (relative: string): boolean => fs.existsSync(path.join(ROOT, relative))

function docPages(): string[] {
  const docs = fs
    .readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join('docs', f))
  return ['README.md', ...docs.sort()]
}

describe('the checker', () => {
  it('finds a name whose file moved, and passes a name read from a base', () => {
    const page = 'The gate (`agent/call-gate.ts`) then `access/call-gate.ts`, `cli/bridge.ts`, `bench/fixture-server.mjs`, `store.ts`.'
    expect(staleNames(page, inRepo)).toEqual(['agent/call-gate.ts'])
  })

  it('reads only names in code marks with a folder', () => {
    expect(staleNames('a bare store.ts, `nofolder.ts`, and (gone/file.ts) outside code marks', inRepo)).toEqual([])
    expect(staleNames('`gone/file.ts` and `gone/deeper/file.tsx`', () => false)).toEqual(['gone/file.ts', 'gone/deeper/file.tsx'])
  })
})

describe('the docs', () => {
  it('has pages to check, docs/architecture.md among them', () => {
    expect(docPages()).toContain(path.join('docs', 'architecture.md'))
  })

  it.each(docPages())('%s names only files that exist', (page) => {
    expect(staleNames(fs.readFileSync(path.join(ROOT, page), 'utf8'), inRepo)).toEqual([])
  })
})
