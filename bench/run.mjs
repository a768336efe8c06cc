#!/usr/bin/env node
// `npm run bench`: Toolgate's performance figures, printed as labeled tables. No assertions:
// targets are printed beside the numbers ("ok" / "MISS").
//
//   npm run bench                                   every section (≈ 5–10 min on 2 cores)
//   npm run bench -- --only retrieval,classify      some sections: retrieval quality locked classify incremental stdio call activity sandbox bridge soak owner flood lifecycle peers
//   npm run bench -- --skip soak
//   npm run bench -- --sizes 527,5000 --stdio-sizes 527,5000 --queries 2000
//   npm run bench -- --only lifecycle --lifecycle-servers 50   configured servers for section 10 (issue 29)
//   npm run bench -- --only peers --peer-sizes 1,10,50 --peer-rounds 3 [--peer-systems mcp-hub] [--peer-warm 300 --peer-calls 500]
//                                                   section 11: beside mcp-hub, mcp-proxy, supergateway
//                                                   (installs them pinned into bench/peers on first use; issue 29)
//   npm run bench -- --quick                        fewer queries/requests (smoke run, ≈ 2–3 min)
//   npm run bench -- --profile [--profile-out F]    CPU-profile the in-process queries at 5k, print the top functions
//                                                   (and keep the raw .cpuprofile in F for Chrome DevTools)
//   npm run bench -- --md FILE --json FILE          also write the tables (markdown) / raw results (JSON)
//
// Needs the build: `npm run build` (out/main/cli.js and out/main/core.js). See docs/benchmarks.md.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawn, execFileSync } from 'node:child_process'
import { ROOT, BENCH, ms, mb, table, verdict, stopAll, removeTmpDirs, machine, noiseFloor, noiseText } from './lib/util.mjs'

const argv = process.argv.slice(2)
const opt = (f, d) => {
  const i = argv.indexOf(f)
  return i >= 0 ? argv[i + 1] : d
}
const flag = (f) => argv.includes(f)
const ALL = [
  'retrieval',
  'quality',
  'locked',
  'classify',
  'incremental',
  'stdio',
  'call',
  'activity',
  'sandbox',
  'bridge',
  'soak',
  'owner',
  'flood',
  'lifecycle',
  'peers',
]
const only = opt('--only') ? opt('--only').split(',') : ALL
const skip = opt('--skip') ? opt('--skip').split(',') : []
for (const s of [...only, ...skip])
  if (!ALL.includes(s)) {
    console.error(`unknown section "${s}"; sections: ${ALL.join(', ')}`)
    process.exit(2)
  }
const want = (s) => only.includes(s) && !skip.includes(s)
const quick = flag('--quick')
const sizes = opt('--sizes', '527,5000,10000').split(',').map(Number)
const stdioSizes = opt('--stdio-sizes', '527,5000').split(',').map(Number)
const nq = Number(opt('--queries', quick ? 1000 : 2000))

for (const f of ['out/main/core.js', 'out/main/cli.js']) {
  if (!fs.existsSync(path.join(ROOT, f))) {
    console.error(`${f} is missing: build first (npm run build)`)
    process.exit(2)
  }
}

const md = []
const results = {}
const section = (key, text) => {
  md.push(text)
  return text
}
const loadNow = () => os.loadavg()[0].toFixed(1)
/** Notes the 1-minute load average when a section starts: on a shared 2-core machine, other work inflates tails. */
function startSection(name) {
  const line = `[${name}] load average (1 min) at start: ${loadNow()}; ${noiseText(noiseFloor())}`
  console.log(`\n${line}`)
  md.push(`_${line}_`)
}

/** Runs one in-process task in a fresh `node --expose-gc` process and returns its JSON. */
function worker(task, args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--expose-gc', path.join(BENCH, 'lib/inproc-worker.mjs'), task, JSON.stringify(args)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    child.stdout.on('data', (d) => {
      out += d
    })
    child.on('exit', (code) => {
      try {
        const r = JSON.parse(out.trim().split('\n').at(-1))
        if (r.error) reject(new Error(`${task} worker failed:\n${r.error}`))
        else resolve(r)
      } catch {
        reject(new Error(`${task} worker exited ${code} without a result: ${out.slice(0, 500)}`))
      }
    })
  })
}

function header() {
  let rev = 'unknown'
  try {
    rev = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim()
  } catch {}
  let dirty = ''
  try {
    dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim()
      ? ' + uncommitted src changes'
      : ''
  } catch {}
  const built = fs.statSync(path.join(ROOT, 'out/main/core.js')).mtime.toISOString()
  const line = `Toolgate benchmarks — ${new Date().toISOString()}\nmachine: ${machine()}\nload average at start: ${os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}; ${noiseText(noiseFloor())}\ncode: ${rev}${dirty}; out/main built ${built}`
  console.log(line)
  md.push('```\n' + line + '\n```')
}

async function retrievalSection() {
  const rows = []
  for (const size of sizes) {
    console.error(`  retrieval in process: ${size} tools …`)
    rows.push(await worker('retrieval', { size, queries: nq }))
  }
  results.retrieval = rows
  const target = (r, v, lim) => (r.size === 5000 ? `${verdict(v, lim)} ≤${lim}` : '')
  const row = (r, label, mode, st) => [
    r.tools,
    r.servers,
    label,
    mode,
    ms(st.p50),
    ms(st.p95),
    ms(st.p99),
    ms(st.max),
    ms(st.mean),
    r.size === 5000 ? `${verdict(st.p50, 0.5)} / ${verdict(st.p99, 5)}` : '',
  ]
  section(
    'retrieval',
    table(
      `1a. retrieve_tools in process (limit 10, ${nq} queries of 1–4 words after 200 warm-up; ms). "wall" = first pass as measured; "best of 3" = each query's fastest of 3 passes (scheduler noise removed)`,
      ['tools', 'servers', 'include_disabled', 'timing', 'p50', 'p95', 'p99', 'max', 'mean', 'target p50≤0.5 / p99≤5 (5k)'],
      rows.flatMap((r) => [
        row(r, 'absent', 'wall', r.lat.plain),
        row(r, 'absent', 'best of 3', r.lat.plainBest),
        row(r, 'true', 'wall', r.lat.incl),
        row(r, 'true', 'best of 3', r.lat.inclBest),
      ]),
    ),
  )
  section(
    'retrieval',
    table(
      '1b. Where the in-process time goes (p50 / p99 ms) and what drives the tail',
      ['tools', 'index.search', 'retrieve()', 'retrieveText() (JSON the agent gets)', 'mean hits per query', 'slowest query, best of 3 (ms, hits)'],
      rows.map((r) => [
        r.tools,
        `${ms(r.lat.search.p50)} / ${ms(r.lat.search.p99)}`,
        `${ms(r.lat.plain.p50)} / ${ms(r.lat.plain.p99)}`,
        `${ms(r.lat.text.p50)} / ${ms(r.lat.text.p99)}`,
        r.meanHits.toFixed(0),
        `"${r.slow[0].q}" ${ms(r.slow[0].ms)} ms, ${r.slow[0].hits}`,
      ]),
    ),
  )
  section(
    'retrieval',
    table(
      '1c. Index build and memory (in process; memory after a full GC, benchmark process)',
      [
        'tools',
        'ingest all servers, concurrent (as at startup) ms',
        'ingest one by one ms',
        'slowest single server ms',
        'index only ms (ToolIndex, no catalog)',
        'heap growth MB',
        'RSS MB',
        'target RSS≤150 MB (5k)',
      ],
      rows.map((r) => [
        r.tools,
        r.buildMs.toFixed(0),
        r.seqBuildMs.toFixed(0),
        r.maxServerIngestMs.toFixed(0),
        Number.isFinite(r.indexOnlyMs) ? r.indexOnlyMs.toFixed(0) : 'n/a',
        mb(r.mem.heapDelta),
        mb(r.mem.after.rss),
        target(r, r.mem.after.rss / 1048576, 150),
      ]),
    ),
  )
  if (flag('--profile')) {
    console.error('  profiling in-process queries at 5000 tools …')
    const keep = opt('--profile-out')
    const p = await worker('retrieval', { size: 5000, queries: nq, profile: keep ? path.resolve(keep) : true })
    results.profile = p.top
    section(
      'retrieval',
      table(
        `1d. CPU profile of the 5k query loop (self time, top functions${keep ? `; raw profile in ${keep}` : ''})`,
        ['function', 'self ms', '%'],
        p.top.map((t) => [t.fn, t.ms.toFixed(0), t.pct.toFixed(1)]),
      ),
    )
  }
}

async function classifySection() {
  console.error('  classification at 10000 tools …')
  const r = await worker('classify', { size: 10000, runs: 20 })
  results.classify = r
  const mix = Object.entries(r.counts)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ')
  section(
    'classify',
    table(
      `2. Classification of ${r.tools} tools inside one discovery call (median of ${r.runs} runs, ms). Mix: ${mix}`,
      ['step', 'median ms', 'p95 ms', 'target'],
      [
        ['one server changed (refresh(one) re-classifies it) + retrieve(include_disabled:true)', ms(r.medians.one), '', `${verdict(r.medians.one, 5)} <5`],
        ['config reload: catalog.refresh(all 50 servers) + retrieve(include_disabled:true)', ms(r.medians.total), ms(r.p95.total), 'informational'],
        ["  of which catalog.refresh(all): rebuilds every entry + status, re-checks each server's index", ms(r.medians.refresh), '', ''],
        ['  of which the first retrieve after it (rebuilds the snapshot maps, then searches)', ms(r.medians.discover), '', ''],
        ['snapshot rebuild alone after refresh(all) (maps over all entries, no search)', ms(r.medians.snapshot), ms(r.p95.snapshot), ''],
        ['same retrieve with a warm snapshot', ms(r.medians.warm), '', ''],
        ["classify() alone over every tool's facts (the pure status function)", ms(r.medians.pure), '', `${verdict(r.medians.pure, 5)} <5`],
      ],
    ),
  )
  section(
    'classify',
    table(
      '2b. retrieve_tools on the mixed 10k catalog, warm (1000 queries, ms)',
      ['include_disabled', 'p50', 'p95', 'p99', 'max'],
      [
        ['absent', ms(r.plainLat.p50), ms(r.plainLat.p95), ms(r.plainLat.p99), ms(r.plainLat.max)],
        ['true', ms(r.inclLat.p50), ms(r.inclLat.p95), ms(r.inclLat.p99), ms(r.inclLat.max)],
      ],
    ),
  )
}

async function incrementalSection() {
  console.error('  incremental update at 10000 tools …')
  const r = await worker('incremental', { size: 10000, reps: quick ? 5 : 10 })
  results.incremental = r
  section(
    'incremental',
    table(
      `3. Replacing one server's tools (${r.perServer} tools) at ${r.size} total (median of ${r.reps}; full ingest of all 50 servers took ${r.buildMs.toFixed(0)} ms; state.json ${mb(r.stateBytes)} MB)`,
      ['change', 'ingestTools median ms', 'max ms', 'first retrieve after ms'],
      Object.entries(r.cases).map(([k, v]) => [k, ms(v.ingest), ms(v.ingestMax), ms(v.firstQuery)]),
    ),
  )
}

async function stdioSection() {
  const { stdioRetrieval } = await import('./lib/stdio-bench.mjs')
  const rows = []
  for (const size of stdioSizes) {
    console.error(`  stdio: ${size} tools …`)
    rows.push(await stdioRetrieval(size, { nq: quick ? 500 : 1000 }))
  }
  results.stdio = rows
  section(
    'stdio',
    table(
      '4. retrieve_tools over `toolgate stdio` (embedded core, one fixture-server.mjs upstream per server; client = shared StdioMcpClient; ms)',
      [
        'tools',
        'upstreams',
        'initialize ms',
        'all callable ms',
        'p50',
        'p95',
        'p99',
        'include_disabled p50',
        'toolgate CPU ms/query',
        'toolgate VmRSS MB',
        'settled RSS / heap MB',
        'target RSS≤150 (5k)',
        'orphans after stop',
      ],
      rows.map((r) => [
        r.tools,
        r.servers,
        r.initMs.toFixed(0),
        r.readyMs.toFixed(0),
        ms(r.lat.p50),
        ms(r.lat.p95),
        ms(r.lat.p99),
        ms(r.incl.p50),
        ms(r.cpuPerQuery),
        mb(r.rss),
        `${mb(r.settled.vmrss)} / ${mb(r.settled.heapUsed)}`,
        r.tools === 5000 ? `${verdict(r.rss / 1048576, 150)} RSS≤150` : '',
        r.orphans,
      ]),
    ),
  )
}

async function sandboxSection() {
  const { sandboxOverhead } = await import('./lib/sandbox-bench.mjs')
  console.error('  sandbox start and call overhead …')
  const r = await sandboxOverhead({ starts: quick ? 10 : 20, calls: quick ? 150 : 300 })
  results.sandbox = r
  if (!r.available) {
    section('sandbox', `5b. sandbox: not available on this machine (${r.reason}); nothing to measure`)
    console.log(`\n5b. sandbox: not available (${r.reason})`)
    return
  }
  const startAdded = r.start.sandboxed.p50 - r.start.direct.p50
  const callAdded = r.call.sandboxed.p50 - r.call.direct.p50
  section(
    'sandbox',
    table(
      `5b. sandbox (${r.mechanism}) per upstream vs the direct path, same run: start = spawn → initialize → tools/list (${r.starts} starts each), call = one tools/call (${r.calls} each), interleaved (ms)`,
      ['path', 'start p50', 'start p95', 'call p50', 'call p95', 'call p99'],
      [
        ['direct (unsandboxed)', ms(r.start.direct.p50), ms(r.start.direct.p95), ms(r.call.direct.p50), ms(r.call.direct.p95), ms(r.call.direct.p99)],
        [
          `sandboxed, network on (${r.mechanism}${r.network?.available ? ' in pasta' : ', host network'})`,
          ms(r.start.sandboxed.p50),
          ms(r.start.sandboxed.p95),
          ms(r.call.sandboxed.p50),
          ms(r.call.sandboxed.p95),
          ms(r.call.sandboxed.p99),
        ],
        [`sandboxed, network off (${r.mechanism} alone)`, ms(r.start.offline.p50), ms(r.start.offline.p95), '', '', ''],
        [`sandboxed, an allowlist (${r.mechanism} in pasta, the egress proxy's port only)`, ms(r.start.allow.p50), ms(r.start.allow.p95), '', '', ''],
        [
          `added start p50: network on ${ms(startAdded)} ms (median paired ${ms(r.start.pairedDiffMedian)} ms), network off ${ms(r.start.offline.p50 - r.start.direct.p50)} ms (paired ${ms(r.start.offlinePairedDiffMedian)} ms), allowlist paired ${ms(r.start.allowPairedDiffMedian)} ms; building the plan and argv p50 ${ms(r.plan.p50)} ms ${verdict(r.start.offlinePairedDiffMedian, 20)} ≤20 ms without network`,
          '',
          '',
          `added call p50: ${ms(callAdded)} ms (median paired ${ms(r.call.pairedDiffMedian)} ms)`,
          '',
          '',
        ],
      ],
    ),
  )
}

async function callSection() {
  const { callOverhead } = await import('./lib/stdio-bench.mjs')
  console.error('  call_tool_read overhead …')
  const r = await callOverhead({ calls: 300 })
  results.call = r
  const over = r.proxied.p50 - r.direct.p50
  section(
    'call',
    table(
      `5. call_tool_read overhead: ${r.tool} (fixture-server.mjs), ${r.calls} calls each, interleaved (ms)`,
      ['path', 'p50', 'p95', 'p99', 'max'],
      [
        ['direct (StdioMcpClient → fixture)', ms(r.direct.p50), ms(r.direct.p95), ms(r.direct.p99), ms(r.direct.max)],
        ['through toolgate stdio (call_tool_read)', ms(r.proxied.p50), ms(r.proxied.p95), ms(r.proxied.p99), ms(r.proxied.max)],
        [
          `overhead p50: ${ms(over)} ms (median paired difference ${ms(r.pairedDiffMedian)} ms), ratio ${(r.proxied.p50 / r.direct.p50).toFixed(2)}×`,
          '',
          '',
          '',
          `${verdict(over, 1)} ≤1 ms`,
        ],
      ],
    ),
  )
  if (r.errors) console.log(`  ${r.errors} call(s) returned isError`)
}

async function activitySection() {
  const { activityQueryBench, recordingOverheadBench } = await import('./lib/activity-bench.mjs')
  console.error('  activity: 100,000 records, filtered pages …')
  const q = await activityQueryBench({ events: 100_000, reps: quick ? 50 : 200 })
  results.activityQuery = q
  section(
    'activity',
    table(
      `7a. Activity record: a filtered page (limit 50) over ${q.events.toLocaleString('en')} recorded events (${mb(q.bytes)} MB of JSONL; appending them took ${(q.appendMs / 1000).toFixed(1)} s, the index load on the first query ${ms(q.loadMs)} ms); ms`,
      ['query', 'events', 'p50', 'p95', 'max', 'target'],
      q.rows.map((r) => [r.label, String(r.events), ms(r.p50), ms(r.p95), ms(r.max), `${verdict(r.p95, 50)} ≤50 ms`]),
    ),
  )
  console.error('  activity: recording overhead per call …')
  const o = await recordingOverheadBench({ calls: quick ? 500 : 2000 })
  results.activityOverhead = o
  section(
    'activity',
    table(
      `7b. What recording adds to a call: the same call_tool_read (fixture-server.mjs over stdio) through two in-process agent sessions of one core, recording on / off, interleaved, ${o.calls} calls each (ms)`,
      ['path', 'p50', 'p95', 'p99', 'max'],
      [
        ['recording off', ms(o.off.p50), ms(o.off.p95), ms(o.off.p99), ms(o.off.max)],
        ['recording on', ms(o.on.p50), ms(o.on.p95), ms(o.on.p99), ms(o.on.max)],
        ['the recorder alone (one record: redact, digest, write(2))', ms(o.recorder.p50), ms(o.recorder.p95), ms(o.recorder.p99), ms(o.recorder.max)],
        [
          `added p50: ${ms(o.on.p50 - o.off.p50)} ms (median paired difference ${ms(o.pairedDiffMedian)} ms)`,
          '',
          '',
          '',
          `${verdict(o.on.p50 - o.off.p50, 0.1)} ≤0.1 ms`,
        ],
      ],
    ),
  )
}

async function serveSections() {
  const { startServeFixture, bridgeOverhead } = await import('./lib/serve-bench.mjs')
  const { runSoak, printSoak } = await import('./soak.mjs')
  console.error('  starting toolgate serve with 5000 tools on 50 upstreams …')
  const fx = await startServeFixture(5000)
  try {
    if (want('bridge')) {
      startSection('bridge')
      console.error('  bridge overhead …')
      const r = await bridgeOverhead(fx, { nq: quick ? 500 : 1000, calls: quick ? 150 : 300 })
      results.bridge = r
      const k = Object.keys(r.retrieve)
      const [br, sdk, raw, control] = k
      section(
        'bridge',
        table(
          `6. Bridge overhead: \`toolgate stdio\` bridged to \`toolgate serve\` vs HTTP /mcp directly (${r.tools} tools; ${r.queries} retrieve_tools and ${r.calls} call_tool_read per path, interleaved; ms)`,
          ['path', 'retrieve p50', 'p95', 'p99', 'call_tool_read p50', 'p95'],
          [
            ...k.map((p) => [
              p,
              ms(r.retrieve[p].p50),
              ms(r.retrieve[p].p95),
              ms(r.retrieve[p].p99),
              r.call[p] ? ms(r.call[p].p50) : '-',
              r.call[p] ? ms(r.call[p].p95) : '-',
            ]),
            [
              `bridge − SDK HTTP (p50)`,
              ms(r.retrieve[br].p50 - r.retrieve[sdk].p50),
              `${verdict(r.retrieve[br].p50 - r.retrieve[sdk].p50, 1)} ≤1 ms`,
              '',
              ms(r.call[br].p50 - r.call[sdk].p50),
              '',
            ],
            [
              `bridge − raw HTTP (p50)`,
              ms(r.retrieve[br].p50 - r.retrieve[raw].p50),
              `${verdict(r.retrieve[br].p50 - r.retrieve[raw].p50, 1)} ≤1 ms`,
              '',
              ms(r.call[br].p50 - r.call[raw].p50),
              '',
            ],
            [`MCP framing: raw HTTP /mcp − control API (p50)`, ms(r.retrieve[raw].p50 - r.retrieve[control].p50), '', '', '', ''],
          ],
        ),
      )
      if (r.errors) console.log(`  ${r.errors} request(s) failed`)
      if (!r.sameBytes) console.log('  NOTE: bridge and HTTP returned different bytes for the same retrieve_tools call')
    }
    if (want('soak')) {
      startSection('soak')
      console.error('  soak …')
      const s = await runSoak(fx, { agents: 8, requests: quick ? 100 : 500 })
      results.soak = s
      md.push(printSoak(s))
    }
  } finally {
    const orphans = await fx.stop()
    if (orphans) console.log(`  WARNING: ${orphans} upstream process(es) outlived toolgate serve (killed by pid)`)
  }
}

async function ownerSection() {
  const { initializeAt, takeover, parallelStart, heap } = await import('./lib/owner-bench.mjs')
  console.error('  initialize with 0 and 70 upstreams …')
  const init = await initializeAt([0, 70], quick ? 3 : 7)
  console.error('  takeover after SIGKILL of the owner …')
  const take = await takeover(quick ? 2 : 3)
  console.error('  parallel start of 50 upstreams …')
  const par = await parallelStart(50, quick ? 2 : 3)
  console.error('  heap over 3,000 requests on one session …')
  const h = await heap(3000)
  results.owner = { init, take, par, heap: h }
  const extra = init[70].median - init[0].median
  section(
    'owner',
    table(
      '8. One owner, always reachable (medians of the rounds; ms unless said otherwise)',
      ['what', 'figure', 'target'],
      [
        ['embedded `toolgate stdio`: listener up → initialize answered, 0 upstreams', ms(init[0].median), ''],
        ['same with 70 upstreams (initialize sent at spawn)', ms(init[70].median), `${verdict(init[70].median, 50)} ≤50`],
        ['initialize at 70 upstreams: extra time over 0 upstreams', ms(extra), ''],
        ['takeover: owner SIGKILLed → a bridge owns the data dir', ms(take.ownerMs), `${verdict(take.ownerMs, 2000)} ≤2000`],
        ['takeover: owner SIGKILLed → a call through a bridge succeeds (upstream restarted)', ms(take.callMs), ''],
        [`serve spawn → every tool of ${par.n} upstreams callable`, ms(par.allMs), ''],
        ['serve spawn → the tool of 1 upstream callable', ms(par.singleMs), ''],
        [`slowest upstream's own connect (spawn → tools listed), ${par.n} at once / 1 alone`, `${ms(par.slowestConnectMs)} / ${ms(par.singleConnectMs)}`, ''],
        [`heap growth after GC, ${h.requests} requests on one HTTP session (owner)`, `${mb(h.http)} MB`, `${verdict(h.http / 1048576, 4)} ≤4 MB`],
        [
          `heap growth after GC, ${h.requests} requests through the bridge (owner / bridge)`,
          `${mb(h.bridgeOwner)} / ${mb(h.bridgeProcess)} MB`,
          `${verdict(Math.max(h.bridgeOwner, h.bridgeProcess) / 1048576, 4)} ≤4 MB`,
        ],
      ],
    ),
  )
}

async function floodSectionRun() {
  const { floodSection } = await import('./lib/flood-bench.mjs')
  const r = await floodSection({ count: quick ? 100 : 200, overMs: quick ? 4000 : 8000 })
  results.flood = r
  section(
    'flood',
    table(
      `9. A burst of list_changed: ${r.count} tools/list_changed and ${r.count} prompts/list_changed per upstream over ${r.overMs / 1000} s (re-lists counted by the upstreams)`,
      ['upstream', 'notifications', 'tools/list', 'prompts/list', 'prompts/get', 'target', ''],
      r.rows,
    ) +
      '\n\n' +
      table(
        '9b. CPU of toolgate serve over the burst and the same time without it',
        ['run', 'wall ms', 'CPU ms'],
        [
          ['flood', ms(r.wallMs), ms(r.cpuMs)],
          ['idle', ms(r.idleWallMs), ms(r.idleCpuMs)],
          ['flood − idle', '', ms(r.cpuMs - r.idleCpuMs)],
        ],
      ),
  )
}

async function lifecycleSection() {
  const { memoryAtRest, restartToSearchable, firstCall } = await import('./lib/lifecycle-bench.mjs')
  const n = Number(opt('--lifecycle-servers', 50))
  console.error(`  memory with ${n} configured servers: always, on demand at rest, the proxy alone …`)
  const mem = await memoryAtRest(n)
  console.error('  first call to a stopped server …')
  const first = await firstCall(quick ? 5 : 10)
  console.error(`  restart with ${n} servers that ran before …`)
  const rs = await restartToSearchable(mem.dataDir, n, quick ? 2 : 3)
  results.lifecycle = { memory: { alone: mem.alone, always: mem.always, onDemand: mem.onDemand }, first, restart: rs }
  const MB = (b) => mb(b)
  section(
    'lifecycle',
    table(
      `10a. Memory with ${n} configured servers (fixture-server.mjs, default sandbox): \`toolgate serve\` and every process under it, settled (PSS: shared pages split between their users; MB)`,
      ['what', 'processes', 'tree PSS', 'tree RSS', 'toolgate PSS', 'toolgate heap', 'target'],
      [
        [
          'every server running (lifecycle "always")',
          String(mem.always.procs),
          MB(mem.always.treePss),
          MB(mem.always.treeRss),
          MB(mem.always.ownPss),
          MB(mem.always.heapUsed),
          '',
        ],
        [
          'on demand, at rest (each listed its tools once, then stopped after idle_stop_s)',
          String(mem.onDemand.procs),
          MB(mem.onDemand.treePss),
          MB(mem.onDemand.treeRss),
          MB(mem.onDemand.ownPss),
          MB(mem.onDemand.heapUsed),
          `${verdict(mem.onDemand.treePss - mem.alone.treePss, 10 * 1048576)} ≤ proxy alone + 10 MB`,
        ],
        [
          'the proxy alone (no server configured)',
          String(mem.alone.procs),
          MB(mem.alone.treePss),
          MB(mem.alone.treeRss),
          MB(mem.alone.ownPss),
          MB(mem.alone.heapUsed),
          '',
        ],
      ],
    ),
  )
  section(
    'lifecycle',
    table(
      `10b. First call to a stopped server: call_tool_read over HTTP /mcp to an on-demand fixture server (default sandbox), spawn → sandbox → initialize → tools/list → the gate → the call, against the same call to it running; ${first.rounds} rounds, interleaved (ms)`,
      ['call', 'p50', 'p95', 'max', 'target'],
      [
        ['to the stopped server (starts it)', ms(first.cold.p50), ms(first.cold.p95), ms(first.cold.max), `${verdict(first.cold.p50, 1000)} ≤1000 (p50)`],
        ['to it running', ms(first.warm.p50), ms(first.warm.p95), ms(first.warm.max), ''],
        [`added by the start (p50)`, ms(first.cold.p50 - first.warm.p50), '', '', first.errors ? `${first.errors} error(s)` : ''],
      ],
    ),
  )
  section(
    'lifecycle',
    table(
      `10c. Restart of \`toolgate serve\` with ${n} servers that ran before, until every tool is searchable and callable (on demand: nothing starts; always: every server starts and lists again); medians of ${rs.rounds} rounds (ms)`,
      ['lifecycle', 'spawn → listening', 'listening → every tool searchable', 'spawn → every tool searchable', 'processes started', 'target'],
      [
        [
          'on_demand',
          ms(rs.onDemand.spawnToListening),
          ms(rs.onDemand.listeningToReady),
          ms(rs.onDemand.spawnToReady),
          String(rs.onDemand.processes),
          `${verdict(rs.onDemand.listeningToReady, 100)} <100 after listening${rs.onDemand.found ? '' : '; search MISSED the last server'}`,
        ],
        ['always', ms(rs.always.spawnToListening), ms(rs.always.listeningToReady), ms(rs.always.spawnToReady), String(rs.always.processes), ''],
      ],
    ),
  )
}

async function peersSection() {
  const { ensurePeers, peersBench, systemLabel } = await import('./lib/peers-bench.mjs')
  const { QUIET_MS } = await import('./lib/procs.mjs')
  const have = ensurePeers()
  if (!have.ok) {
    section('peers', `11. peers: skipped: ${have.reason}`)
    console.log(`\n11. peers: skipped: ${have.reason}`)
    return
  }
  const sizes = opt('--peer-sizes', quick ? '1,10' : '1,10,50')
    .split(',')
    .map(Number)
  // Toolgate (both sandbox settings) and mcp-hub always run; --peer-systems mcp-proxy,supergateway adds the bridges (the default: all)
  const systems = opt('--peer-systems') ? [...new Set(['toolgate', 'toolgate-nosandbox', 'mcp-hub', ...opt('--peer-systems').split(',')])] : undefined
  const r = await peersBench({
    sizes,
    rounds: Number(opt('--peer-rounds', quick ? 1 : 3)),
    calls: Number(opt('--peer-calls', quick ? 200 : 500)),
    warm: Number(opt('--peer-warm', 300)),
    systems,
  })
  results.peers = r
  const TG = 'toolgate'
  const peers = r.systems.filter((k) => !k.startsWith('toolgate'))
  const METRICS = [
    ['readyMs', 'spawn → every tool callable'],
    ['startCpu', 'CPU of the proxy to get there'],
    ['callP50', 'call p50'],
    ['cpuPerCall', 'CPU of the proxy per call'],
    ['rss', 'RSS at rest'],
    ['heapUsed', 'heap at rest'],
  ]
  for (const n of r.sizes) {
    const row = r.bySize[n]
    section(
      'peers',
      table(
        `11a. ${n} fixture server(s), lifecycle "always": Toolgate beside the peers, same run, medians of ${r.rounds} round(s) (${r.calls} calls each after ${r.warm} to warm up; ms, MB; CPU of the proxy process(es) without what the readiness polls cost it, tree = with sandbox wrappers and servers; RSS and heap of the proxy after ${QUIET_MS / 1000} s quiet, first round)`,
        ['system', 'spawn → callable', 'CPU (proxy)', 'CPU (tree)', 'polls × CPU each', 'call p50', 'call p95', 'CPU/call', 'RSS', 'heap', 'errors'],
        r.systems.map((k) => {
          const x = row[k]
          return [
            systemLabel(k),
            ms(x.readyMs, 0),
            ms(x.startCpu, 0),
            ms(x.startTreeCpu, 0),
            `${x.polls} × ${ms(x.pollCpu)}`,
            ms(x.callP50),
            ms(x.callP95),
            ms(x.cpuPerCall),
            mb(x.rss),
            mb(x.heapUsed),
            String(x.errors),
          ]
        }),
      ),
    )
  }
  const best = (n, m) => peers.reduce((b, k) => (r.bySize[n][k][m] < r.bySize[n][b][m] ? k : b), peers[0])
  const ratio = (n, sys, m, peer) => (r.bySize[n][sys][m] / r.bySize[n][peer][m]).toFixed(2) + '×'
  section(
    'peers',
    table(
      '11b. Toolgate (default sandbox / "sandbox": false) ÷ mcp-hub and ÷ the best peer of each row, same run (goal: ≤ 1.00× of mcp-hub)',
      ['what', ...r.sizes.flatMap((n) => [`${n}: ÷ mcp-hub`, `${n}: ÷ best peer`])],
      METRICS.map(([m, what]) => [
        what,
        ...r.sizes.flatMap((n) => {
          const b = best(n, m)
          return [
            `${ratio(n, TG, m, 'mcp-hub')} / ${ratio(n, 'toolgate-nosandbox', m, 'mcp-hub')}`,
            `${ratio(n, TG, m, b)} / ${ratio(n, 'toolgate-nosandbox', m, b)} (${b})`,
          ]
        }),
      ]),
    ),
  )
}

let interrupted = false
process.on('SIGINT', async () => {
  if (interrupted) process.exit(130)
  interrupted = true
  console.error('\ninterrupted: stopping the processes this run started …')
  await stopAll()
  removeTmpDirs()
  process.exit(130)
})

const t0 = Date.now()
try {
  header()
  if (want('retrieval')) {
    startSection('retrieval')
    await retrievalSection()
  }
  if (want('quality')) {
    // retrieval quality on the dev and held-out sets, ablations, learning-from-use replay (docs/retrieval.md)
    startSection('quality')
    const out = execFileSync(process.execPath, [path.join(BENCH, 'retrieval-quality.mjs'), '--ablations', '--replay'], { encoding: 'utf8' })
    console.log(out)
    section('quality', out)
  }
  if (want('locked')) {
    // locked_ahead on the retrieval sets: the callable ranking unchanged, how often the locked tool is named (docs/retrieval.md)
    startSection('locked')
    const out = execFileSync(process.execPath, [path.join(BENCH, 'retrieval-locked.mjs')], { encoding: 'utf8' })
    console.log(out)
    section('locked', out)
  }
  if (want('classify')) {
    startSection('classify')
    await classifySection()
  }
  if (want('incremental')) {
    startSection('incremental')
    await incrementalSection()
  }
  if (want('stdio')) {
    startSection('stdio')
    await stdioSection()
  }
  if (want('call')) {
    startSection('call')
    await callSection()
  }
  if (want('sandbox')) {
    startSection('sandbox')
    await sandboxSection()
  }
  if (want('activity')) {
    startSection('activity')
    await activitySection()
  }
  if (want('bridge') || want('soak')) await serveSections()
  if (want('owner')) {
    startSection('owner')
    await ownerSection()
  }
  if (want('flood')) {
    startSection('flood')
    await floodSectionRun()
  }
  if (want('lifecycle')) {
    startSection('lifecycle')
    await lifecycleSection()
  }
  if (want('peers')) {
    startSection('peers')
    await peersSection()
  }
  console.log(
    `\ntotal ${((Date.now() - t0) / 1000).toFixed(0)} s; load average at end: ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  )
} catch (e) {
  console.error(`\nbenchmark failed: ${e.stack ?? e}`)
  process.exitCode = 1
} finally {
  await stopAll()
  removeTmpDirs()
  if (opt('--md')) fs.writeFileSync(opt('--md'), md.join('\n\n') + '\n')
  if (opt('--json')) fs.writeFileSync(opt('--json'), JSON.stringify(results, null, 2))
}
