// The test suite's own leftovers, from outside: a real vitest run of a test file that starts the
// real CLI, with a home and a temp dir of its own. The compiled code its toolgate children keep
// ($TOOLGATE_COMPILE_CACHE_DIR) went to ~/.toolgate/test-compile-cache/<checkout>, one folder per
// checkout, never removed. Now it lives in the temp dir for the run, and is gone after it.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { assertBuilt, ROOT, tempDir, track } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'

useCleanup()

describe("the test suite's compile cache", () => {
  it('a run leaves nothing in the home nor in the temp dir, and its toolgate children had a cache while it ran', async () => {
    assertBuilt()
    const home = tempDir('toolgate-test-cache-home-')
    const tmp = tempDir('toolgate-test-cache-tmp-')
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, TMPDIR: tmp }
    for (const k of Object.keys(env)) if (k.startsWith('TOOLGATE_') || k.startsWith('VITEST')) delete env[k]
    delete env.NODE_OPTIONS
    // cli-help runs the CLI a few times: children that each write compiled code at exit
    const child = spawn(process.execPath, [path.join(ROOT, 'node_modules/vitest/vitest.mjs'), 'run', 'test/integration/cli-help.test.ts'], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    track(child.pid)
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d))
    // while it runs: the cache is a folder of the run's temp dir, with compiled code in it
    const seen = new Set<string>()
    const look = setInterval(() => {
      for (const n of fs.readdirSync(tmp)) {
        if (!n.startsWith('toolgate-test-compile-cache-')) continue
        for (const c of fs.existsSync(path.join(tmp, n)) ? fs.readdirSync(path.join(tmp, n)) : []) seen.add(`${n}/${c}`)
      }
    }, 20)
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve))
    clearInterval(look)
    expect(code, out).toBe(0)
    expect(out).toMatch(/passed/)
    expect(
      [...seen].some((e) => /\/v\d+\./.test(e)),
      [...seen].join(' '),
    ).toBe(true)
    // before: <home>/.toolgate/test-compile-cache/<hash of the checkout>/v20...
    expect(fs.existsSync(path.join(home, '.toolgate')), fs.readdirSync(home).join(' ')).toBe(false)
    expect(fs.readdirSync(tmp).filter((n) => n.includes('compile-cache'))).toEqual([])
  })
})
