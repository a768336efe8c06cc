#!/usr/bin/env node
// `node bench/compare.mjs --baseline DIR`: this build against another build of Toolgate in ONE run.
// Both builds' `toolgate stdio` run side by side on the same catalog (fixture upstreams), and every
// request goes to both, alternating which one goes first, so load and drift on a shared machine hit
// both alike. Prints retrieve_tools (section 4's path) per catalog size and call_tool_read
// (section 5's path) for each build: p50/p95, the median paired difference, and CPU per request of
// each toolgate process (from /proc/<pid>/task/*/schedstat, nanoseconds, all its threads: the
// compiler's and the GC's too; "main" is the JavaScript thread alone).
//
//   node bench/compare.mjs --baseline /tmp/v1            DIR: a checkout of another commit, built (npm run build), node_modules installed
//   node bench/compare.mjs --baseline /tmp/v1 --sizes 527,5000 --queries 1000 --warm 100 --rounds 3
//   node bench/compare.mjs --baseline /tmp/v1 --only search|call
//   node bench/compare.mjs --baseline /tmp/v1 --only call --call-warm 100 --calls 1000   warm-up calls per build before the measured ones
//   --node-args "--cpu-prof --cpu-prof-dir /tmp/p"   node flags for both toolgate processes
//
// The bench scripts and the client are this tree's; only `bin/toolgate.js` comes from each build.
// docs/benchmarks.md ("SDK v2 against SDK v1") has the figures and how the baseline was made.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {
  ROOT,
  tmpDir,
  now,
  stats,
  median,
  ms,
  table,
  stopAll,
  removeTmpDirs,
  track,
  noiseFloor,
  noiseText,
  FIXTURE,
  benchCompileCache,
  threadCpuMs,
  requireBaseline,
} from './lib/util.mjs'
import { StdioMcpClient, jsonOf, textOf, writeFixtureConfig, waitReady, stopToolgate, BENCH_KEY } from './lib/procs.mjs'
import { specFor } from './lib/stdio-bench.mjs'
import { syntheticCatalog, queries } from './lib/synthetic.mjs'

const argv = process.argv.slice(2)
const opt = (f, d) => (argv.includes(f) ? argv[argv.indexOf(f) + 1] : d)
const baseline = requireBaseline(opt('--baseline'))
const sizes = opt('--sizes', '527,5000').split(',').map(Number)
const nq = Number(opt('--queries', 1000))
const warm = Number(opt('--warm', 100))
const rounds = Number(opt('--rounds', 1))
const calls = Number(opt('--calls', 300))
const callWarm = Number(opt('--call-warm', 100))
const nodeArgs = opt('--node-args', '').split(' ').filter(Boolean)
const only = opt('--only', 'search,call').split(',')
const builds = [
  { label: 'baseline', root: path.resolve(baseline) },
  { label: 'this build', root: ROOT },
]

/** CPU of every thread of `pid` so far (or of its JavaScript thread alone), ms: schedstat's nanoseconds on CPU. */
/** `toolgate stdio` of one build on `config`, its own data dir. */
function start(build, config, dir) {
  const dataDir = path.join(dir, `data-${builds.indexOf(build)}`)
  const client = new StdioMcpClient(
    process.execPath,
    [...nodeArgs, path.join(build.root, 'bin/toolgate.js'), 'stdio', '--config', config, '--data-dir', dataDir],
    {
      stderr: 'ignore',
      env: { ...process.env, TOOLGATE_API_KEY: BENCH_KEY, TOOLGATE_COMPILE_CACHE_DIR: benchCompileCache(build.root) },
    },
  )
  track(client.child, `toolgate stdio (${build.label})`)
  return { build, client, dataDir }
}

/** Sends `request(i, side)` to both sides `n` times, alternating the order; latencies, paired differences, CPU per request. */
async function interleaved(sides, n, request) {
  const lat = sides.map(() => [])
  const diff = []
  const cpu0 = sides.map((s) => threadCpuMs(s.client.child.pid))
  const main0 = sides.map((s) => threadCpuMs(s.client.child.pid, true))
  for (let i = 0; i < n; i++) {
    const order = i % 2 ? [0, 1] : [1, 0]
    const t = []
    for (const k of order) {
      const s = now()
      await request(i, sides[k])
      t[k] = now() - s
      lat[k].push(t[k])
    }
    diff.push(t[1] - t[0])
  }
  return {
    sides: sides.map((s, k) => ({
      label: s.build.label,
      lat: stats(lat[k]),
      cpu: (threadCpuMs(s.client.child.pid) - cpu0[k]) / n,
      main: (threadCpuMs(s.client.child.pid, true) - main0[k]) / n,
    })),
    pairedDiffMedian: median(diff),
  }
}

async function search(size) {
  const spec = specFor(size)
  const tools = spec.servers.reduce((n, s) => n + s.tools.length, 0)
  const dir = tmpDir()
  const config = writeFixtureConfig(dir, spec, { mode: size === 527 ? 'corpus' : 'tools' })
  const sides = builds.map((b) => start(b, config, dir))
  try {
    for (const s of sides) await s.client.initialize(180000)
    for (const s of sides) await waitReady(s.dataDir, spec.servers.length, tools)
    const qs = queries(nq + warm, { seed: 7, catalog: spec })
    await interleaved(sides, warm, (i, s) => s.client.callTool('retrieve_tools', { query: qs[i], limit: 10 }))
    return await interleaved(sides, nq, async (i, s) => {
      const r = await s.client.callTool('retrieve_tools', { query: qs[warm + i], limit: 10 })
      if (r.isError || !jsonOf(r)) throw new Error(`retrieve_tools failed (${s.build.label}): ${textOf(r)}`)
    })
  } finally {
    for (const s of sides) await stopToolgate(s.client.child, { viaStdin: s.client })
  }
}

async function call() {
  const spec = syntheticCatalog(100, { servers: 1, seed: 5 })
  const server = spec.servers[0]
  const tool = server.tools.find((t) => t.annotations?.readOnlyHint === true)
  const dir = tmpDir()
  const config = writeFixtureConfig(dir, spec)
  const sides = builds.map((b) => start(b, config, dir))
  const direct = new StdioMcpClient(process.execPath, [FIXTURE, '--tools', path.join(dir, `tools-${server.name}.json`), '--name', server.name], {
    stderr: 'ignore',
  })
  track(direct.child, 'fixture (direct)')
  try {
    await direct.initialize()
    for (const s of sides) await s.client.initialize()
    for (const s of sides) await waitReady(s.dataDir, 1, server.tools.length)
    const args = { name: `${server.name}:${tool.name}`, args: { [Object.keys(tool.inputSchema.properties)[0]]: 'bench-value' } }
    const once = async (i, s) => {
      const r = await s.client.callTool('call_tool_read', args)
      if (r.isError) throw new Error(`call_tool_read failed (${s.build.label}): ${textOf(r)}`)
    }
    await interleaved(sides, callWarm, once)
    const r = await interleaved(sides, calls, once)
    const d = []
    for (let i = 0; i < calls; i++) {
      const t = now()
      await direct.callTool(tool.name, args.args)
      d.push(now() - t)
    }
    return { ...r, direct: stats(d) }
  } finally {
    for (const s of sides) await stopToolgate(s.client.child, { viaStdin: s.client })
    await direct.close().catch(() => {})
  }
}

const row = (what, r) => {
  const [a, b] = r.sides
  return [
    what,
    `${ms(a.lat.p50)} / ${ms(b.lat.p50)}`,
    `${((b.lat.p50 / a.lat.p50 - 1) * 100).toFixed(1)} %`,
    `${ms(a.lat.p95)} / ${ms(b.lat.p95)}`,
    ms(r.pairedDiffMedian),
    `${ms(a.cpu)} / ${ms(b.cpu)}`,
    `${((b.cpu / a.cpu - 1) * 100).toFixed(1)} %`,
    `${ms(a.main)} / ${ms(b.main)}`,
  ]
}

let interrupted = false
process.on('SIGINT', async () => {
  if (interrupted) process.exit(130)
  interrupted = true
  await stopAll()
  removeTmpDirs()
  process.exit(130)
})

try {
  console.log(`compare: baseline ${builds[0].root}, this build ${ROOT}; ${os.loadavg()[0].toFixed(1)} load at the start; ${noiseText(noiseFloor())}`)
  const rows = []
  for (let round = 1; round <= rounds; round++) {
    if (only.includes('search'))
      for (const size of sizes) {
        console.error(`  round ${round}: retrieve_tools at ${size} tools …`)
        rows.push(row(`retrieve_tools, ${size} tools (${warm} warm-up, ${nq} queries)`, await search(size)))
      }
    if (only.includes('call')) {
      console.error(`  round ${round}: call_tool_read …`)
      const r = await call()
      rows.push(row(`call_tool_read, one fixture upstream (${callWarm} warm-up, ${calls} calls; direct p50 ${ms(r.direct.p50)})`, r))
    }
  }
  table(
    'Baseline against this build over `toolgate stdio`, interleaved in one run (ms; CPU = the toolgate process, all threads, per request)',
    [
      'path',
      'p50 baseline / this',
      'p50 change',
      'p95 baseline / this',
      'median paired diff',
      'CPU baseline / this',
      'CPU change',
      'main thread baseline / this',
    ],
    rows,
  )
  console.log(`load at the end ${os.loadavg()[0].toFixed(1)}`)
} catch (e) {
  console.error(`compare failed: ${e.stack ?? e}`)
  process.exitCode = 1
} finally {
  await stopAll()
  removeTmpDirs()
}
