// A clone alone runs its tests: no file of the repository may point at a path outside it (a
// folder beside the clone such as ../shared, or an absolute path of the machine it was written
// on). The checker is tried on small examples first, so that it is known to catch what it must.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = path.resolve(__dirname, '../..')
const SELF = path.relative(ROOT, __filename)

/** Folders and root files that hold code, scripts, configs and docs (generated output excluded). */
const SCANNED_DIRS = ['src', 'test', 'bench', 'scripts', 'bin', '.ci', 'docs']
const SKIPPED_DIRS = new Set(['node_modules', 'out', 'dist', '.git', 'screenshots'])
const TEXT_FILE = /\.(ts|tsx|mts|cts|js|mjs|cjs|json|md|yml|yaml|html|css|sh)$|^run$/

/** Absolute paths of the workspace this project was built in (a clone elsewhere has none of them). */
const MACHINE_PATH = /(?<![\w/.~-])\/work\/(?:shared|main|wt|tools|\.library|\.mirror)(?![\w-])/g
/** A relative path climbing at least one folder: `../x`, `../../x/y.mjs`. */
const RELATIVE = /(?:\.\.\/)+[^\s'"`)\],;:*]*/g
/** A relative path joined to the repository root: `path.resolve(ROOT, '../x')`. */
const FROM_ROOT = /\b(?:ROOT|root|repoRoot|REPO_ROOT)\s*,\s*['"`]((?:\.\.\/)+[^'"`]*)['"`]/g
/** The folder that used to sit beside the repository, named by what it held. */
const SHARED_BESIDE = /\.\.\/shared(?:\/(?:bench|datasets|hooks|CONTRACT|DESIGN|STACK-NOTES|README)\b|(?![\w/-]))/g

interface OutsideRef {
  line: number
  ref: string
  why: string
}

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length
const isInside = (p: string) => {
  const rel = path.relative(ROOT, p)
  return rel !== '..' && !rel.startsWith('../') && !path.isAbsolute(rel)
}

/** Every reference in `text` (the content of `file`, relative to the root) to a path outside the repository. */
function outsideRefs(file: string, text: string): OutsideRef[] {
  const dir = path.join(ROOT, path.dirname(file))
  const found: OutsideRef[] = []
  for (const m of text.matchAll(MACHINE_PATH)) found.push({ line: lineOf(text, m.index), ref: m[0], why: 'an absolute path of the build machine' })
  for (const m of text.matchAll(RELATIVE)) {
    if (!isInside(path.resolve(dir, m[0])))
      found.push({ line: lineOf(text, m.index), ref: m[0], why: `climbs out of the repository from ${path.dirname(file)}/` })
  }
  for (const m of text.matchAll(FROM_ROOT)) {
    if (!isInside(path.resolve(ROOT, m[1]))) found.push({ line: lineOf(text, m.index), ref: m[1], why: 'climbs out of the repository root' })
  }
  for (const m of text.matchAll(SHARED_BESIDE)) {
    if (!fs.existsSync(path.resolve(dir, m[0]))) found.push({ line: lineOf(text, m.index), ref: m[0], why: 'names the folder beside the repository' })
  }
  return found
}

function scannedFiles(): string[] {
  const files: string[] = []
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
      const child = path.join(rel, e.name)
      if (e.isDirectory()) {
        if (!SKIPPED_DIRS.has(e.name)) walk(child)
      } else if (TEXT_FILE.test(e.name)) files.push(child)
    }
  }
  for (const d of SCANNED_DIRS) if (fs.existsSync(path.join(ROOT, d))) walk(d)
  for (const e of fs.readdirSync(ROOT, { withFileTypes: true })) if (e.isFile() && TEXT_FILE.test(e.name)) files.push(e.name)
  return files
}

describe('the checker', () => {
  it.each([
    ['test/helpers/cli.ts', "export const FIXTURE = path.resolve(ROOT, '../shared/bench/fixture-server.mjs')"],
    ['test/fixtures/retrieval/x.mjs', "path.resolve(here, '../../../../shared/datasets/livemcptool/tools.json')"],
    ['bench/lib/util.mjs', "const S = process.env.S ?? path.resolve(ROOT, '../other-folder')"],
    ['README.md', 'See [the contract](../shared/CONTRACT.md).'],
    ['docs/benchmarks.md', 'Needs `../shared` (datasets)'],
    ['docs/retrieval.md', 'The dev set (`../shared/datasets/retrieval_golden_dev.json`)'],
    ['bench/lib/synthetic.mjs', '// descriptions in /work/shared/datasets, ranked'],
    ['test/e2e/x.mjs', "const lib = '/work/main/test/fixtures/bench/lib/mcp-stdio.mjs'"],
  ])('flags %s: %s', (file, line) => {
    expect(outsideRefs(file, line)).not.toEqual([])
  })

  it.each([
    ['src/renderer/x.ts', "import { ApiError } from '../shared/api'"],
    ['src/main/core/x.ts', "import { classify } from '../../shared/classify'"],
    ['test/helpers/cli.ts', "export const ROOT = path.resolve(__dirname, '../..')"],
    ['test/helpers/cli.ts', "export const FIXTURE = path.join(ROOT, 'test/fixtures/bench/fixture-server.mjs')"],
    ['test/helpers/faults.ts', "const attack = '../../etc/passwd'"],
    ['test/integration/x.test.ts', "await serve.api('POST', '/api/v1/servers/work/tools/work_tool/disable')"],
    ['test/unit/x.test.ts', "resolveImportSource('configs/mcp.json', { cwd: '/work' })"],
    ['docs/config.md', 'See [the CLI](cli.md) and [the README](../README.md).'],
  ])('passes %s: %s', (file, line) => {
    expect(outsideRefs(file, line)).toEqual([])
  })
})

describe('the repository', () => {
  it('references no path outside itself', () => {
    const files = scannedFiles().filter((f) => f !== SELF)
    // the scan must really cover the places that used to point outside
    for (const f of [
      'test/helpers/cli.ts',
      'test/helpers/mcp-client.ts',
      'bench/lib/util.mjs',
      'test/e2e/browser/fixtures.ts',
      'README.md',
      'package.json',
      '.ci/run',
    ]) {
      expect(files).toContain(f)
    }
    const problems = files.flatMap((f) => outsideRefs(f, fs.readFileSync(path.join(ROOT, f), 'utf8')).map((r) => `${f}:${r.line}: ${r.ref} (${r.why})`))
    expect(problems).toEqual([])
  })

  it('holds the fixtures the tests run (with their licences beside the data)', () => {
    for (const f of [
      'test/fixtures/bench/fixture-server.mjs',
      'test/fixtures/bench/lib/mcp-stdio.mjs',
      'test/fixtures/bench/lib/metrics.mjs',
      'test/fixtures/bench/score-retrieval.mjs',
      'test/fixtures/datasets/corpus_v2.tools.json',
      'test/fixtures/datasets/retrieval_golden_dev.json',
      'test/fixtures/datasets/LICENSE.mcpproxy-go',
      'test/fixtures/datasets/livemcptool/tools.json',
      'test/fixtures/datasets/livemcptool/LICENSE',
      'test/fixtures/datasets/livemcptool/ATTRIBUTION.md',
    ]) {
      expect(fs.existsSync(path.join(ROOT, f)), f).toBe(true)
    }
  })
})
