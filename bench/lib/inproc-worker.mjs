#!/usr/bin/env node
// One in-process benchmark task in a fresh Node process (so heap/RSS figures belong to that
// task alone). Run as: node --expose-gc bench/lib/inproc-worker.mjs TASK '{"size":5000,...}'
// Prints one JSON line (the result) on stdout; progress goes to stderr.
//   retrieval    index build + retrieve_tools latency + memory at `size` tools (527 = livemcptool)
//   classify     classification of `size` tools inside one discovery call, mixed statuses
//   incremental  replacing one server's tools at `size` total
import path from 'node:path'
import { syntheticCatalog, liveCorpus, queries } from './synthetic.mjs'
import { buildCatalog, loadCore } from './inproc.mjs'
import { profiled } from './profile.mjs'
import { tmpDir, removeTmpDirs, stats, median, now } from './util.mjs'

const task = process.argv[2]
const opts = JSON.parse(process.argv[3] ?? '{}')
const log = (...a) => process.stderr.write(`  [${task}] ${a.join(' ')}\n`)

function gc() {
  if (global.gc) {
    global.gc()
    global.gc()
  }
}
function mem() {
  gc()
  const m = process.memoryUsage()
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external + (m.arrayBuffers ?? 0) }
}
function timeQueries(fn, qs, keep) {
  const lat = new Array(qs.length)
  for (let i = 0; i < qs.length; i++) {
    const t = now()
    fn(qs[i])
    lat[i] = now() - t
  }
  if (keep) keep.push(...lat)
  return stats(lat)
}

async function retrieval() {
  const { retrieve, retrieveText, FULL_SCOPE, ToolIndex } = loadCore()
  const size = opts.size
  const nq = opts.queries ?? 2000
  const base = mem()
  const spec = size === 527 ? liveCorpus() : syntheticCatalog(size, { servers: 50, seed: 42 })
  const tools = spec.servers.reduce((n, s) => n + s.tools.length, 0)
  const dir = tmpDir()
  log(`ingesting ${tools} tools over ${spec.servers.length} servers`)
  const { catalog, buildMs } = await buildCatalog(spec, dir)
  // the same ingest one server after another (no coalescing of state.json writes)
  const { seqBuildMs, maxServerIngestMs } = await (async () => {
    const seq = await buildCatalog(spec, tmpDir(), { concurrent: false })
    return { seqBuildMs: seq.buildMs, maxServerIngestMs: Math.max(...seq.perServerMs) }
  })() // the second catalog is garbage after this

  // The index alone (no catalog, no state writes), for comparison with the full ingest.
  let indexOnlyMs = NaN
  try {
    const idx = new ToolIndex()
    const t = now()
    for (const s of spec.servers) {
      idx.setServerTools(
        s.name,
        s.tools.map((tl) => ({
          id: `${s.name}:${tl.name}`,
          server: s.name,
          name: tl.name,
          description: tl.description,
          paramNames: Object.keys(tl.inputSchema?.properties ?? {}),
          paramText: Object.values(tl.inputSchema?.properties ?? {})
            .map((p) => p?.description ?? '')
            .filter(Boolean)
            .join(' '),
        })),
      )
    }
    indexOnlyMs = now() - t
  } catch (e) {
    log(`index-only build skipped: ${e.message}`)
  }
  gc()

  const qs = queries(nq + 200, { seed: 7, catalog: spec })
  const warm = qs.slice(0, 200)
  const measured = qs.slice(200)
  for (const q of warm) retrieve(catalog, { query: q, limit: 10 }, FULL_SCOPE)
  let plainLat = []
  // Three passes over the same queries: pass 1 is the wall-clock figure; the per-query minimum
  // over the passes is the query's intrinsic cost with scheduler noise (other processes on the
  // same cores) mostly removed.
  const passes = (fn) => {
    const runs = []
    for (let p = 0; p < 3; p++) {
      const keep = []
      timeQueries(fn, measured, keep)
      runs.push(keep)
    }
    return { first: runs[0], best: runs[0].map((_, i) => Math.min(runs[0][i], runs[1][i], runs[2][i])) }
  }
  const run = () => {
    const plain = passes((q) => retrieve(catalog, { query: q, limit: 10 }, FULL_SCOPE))
    const incl = passes((q) => retrieve(catalog, { query: q, limit: 10, include_disabled: true }, FULL_SCOPE))
    plainLat = plain.best
    return {
      plain: stats(plain.first),
      plainBest: stats(plain.best),
      incl: stats(incl.first),
      inclBest: stats(incl.best),
      text: timeQueries((q) => retrieveText(catalog, { query: q, limit: 10 }, FULL_SCOPE), measured),
      search: timeQueries((q) => catalog.index.search(q), measured),
    }
  }
  let lat
  let top = null
  if (opts.profile) {
    const p = await profiled(async () => run(), { keep: opts.profile === true ? undefined : opts.profile })
    lat = p.result
    top = p.top
  } else lat = run()
  // slowest queries (plain), to see what drives p99
  const slow = measured
    .map((q, i) => ({ q, ms: plainLat[i] }))
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 5)
    .map((x) => ({ ...x, hits: catalog.index.search(x.q).length }))
  const meanHits = measured.slice(0, 300).reduce((n, q) => n + catalog.index.search(q).length, 0) / Math.min(300, measured.length)
  const after = mem()
  removeTmpDirs()
  return {
    size,
    tools,
    servers: spec.servers.length,
    queries: measured.length,
    buildMs,
    seqBuildMs,
    indexOnlyMs,
    maxServerIngestMs,
    lat,
    slow,
    meanHits,
    mem: { base, after, heapDelta: after.heapUsed - base.heapUsed },
    top,
  }
}

/** The classify/incremental catalog: `size` tools, 50 servers, then a realistic mix of locks. */
async function mixedCatalog(size) {
  const core = loadCore()
  const spec = syntheticCatalog(size, { servers: 50, seed: 42 })
  const dir = tmpDir()
  const trust = (i) => (i === 49 ? { trust: 'auto' } : {})
  const { catalog, buildMs } = await buildCatalog(spec, dir, { extra: (_, i) => trust(i) })
  // Operator policy after the fact: 2 servers off, 3 with deny lists, 2 held in quarantine.
  const raw = {}
  spec.servers.forEach((s, i) => {
    raw[s.name] = { command: 'node', args: ['fixture.mjs'], quarantined: false, ...trust(i) }
    if (i < 2) raw[s.name].enabled = false
    else if (i < 5) raw[s.name].disabled_tools = s.tools.filter((_, j) => j % 5 === 0).map((t) => t.name)
    else if (i < 7) raw[s.name].quarantined = true
  })
  catalog.setConfig(core.parseConfig('bench.json', { mcpServers: raw }))
  // Tool changes awaiting review on 3 servers: 10 new tools each and 10 changed descriptions.
  for (let i = 7; i < 10; i++) {
    const s = spec.servers[i]
    const changed = s.tools.map((t, j) => (j < 10 ? { ...t, description: `${t.description} Now also sends telemetry.` } : t))
    for (let j = 0; j < 10; j++)
      changed.push({
        name: `new_tool_${j}_${s.name.replace(/-/g, '_')}`,
        description: `Newly listed tool number ${j} that exports reports`,
        inputSchema: { type: 'object', properties: {} },
      })
    await core.ingestTools(catalog, s.name, changed)
  }
  // User decisions: 1 % of the tools disabled by the user. One through setToolDisabled (the API),
  // the rest in one state write (setToolDisabled writes state.json once per call).
  let userDisabled = 0
  const ids = []
  for (let i = 10; i < 50; i++) {
    const s = spec.servers[i]
    for (let j = 0; j < s.tools.length; j += 40) ids.push([s.name, s.tools[j].name])
  }
  await core.setToolDisabled(catalog, ids[0][0], ids[0][1], true)
  await catalog.decide([...new Set(ids.map(([srv]) => srv))], (st) => {
    for (const [srv, tool] of ids.slice(1)) st.tools[`${srv}:${tool}`] = { ...st.tools[`${srv}:${tool}`], user_disabled: true }
  })
  userDisabled = ids.length
  await catalog.store.settle()
  return { spec, catalog, buildMs, dir, userDisabled }
}

function allEntries(catalog) {
  const out = []
  for (const s of catalog.currentConfig.servers) out.push(...catalog.entries(s.name))
  return out
}

async function classify() {
  const core = loadCore()
  const { retrieve, FULL_SCOPE, Catalog } = core
  const size = opts.size ?? 10000
  const runs = opts.runs ?? 20
  const { spec, catalog, buildMs } = await mixedCatalog(size)
  const names = catalog.currentConfig.servers.map((s) => s.name)
  const counts = Catalog.counts(allEntries(catalog), false)
  const qs = queries(runs + 50, { seed: 11, catalog: spec })
  for (const q of qs.slice(0, 50)) {
    catalog.refresh(names)
    retrieve(catalog, { query: q, limit: 10, include_disabled: true }, FULL_SCOPE)
  }
  const total = [],
    refresh = [],
    discover = [],
    warmCall = [],
    snapOnly = []
  for (const q of qs.slice(50)) {
    const t0 = now()
    catalog.refresh(names)
    const t1 = now()
    retrieve(catalog, { query: q, limit: 10, include_disabled: true }, FULL_SCOPE)
    const t2 = now()
    retrieve(catalog, { query: q, limit: 10, include_disabled: true }, FULL_SCOPE)
    const t3 = now()
    total.push(t2 - t0)
    refresh.push(t1 - t0)
    discover.push(t2 - t1)
    warmCall.push(t3 - t2)
    // the snapshot rebuild alone (classify every tool), without the search
    catalog.refresh(names)
    const t4 = now()
    catalog.snapshot()
    snapOnly.push(now() - t4)
  }
  // the usual case: one server changed (a tool disabled, a list_changed), then a discovery call
  const one = []
  for (let i = 0; i < runs * 5; i++) {
    const t = now()
    catalog.refresh([names[i % names.length]])
    retrieve(catalog, { query: qs[50 + (i % runs)], limit: 10, include_disabled: true }, FULL_SCOPE)
    one.push(now() - t)
  }
  // the pure classifier over every tool's facts (what "classification" costs by itself)
  const facts = allEntries(catalog).map((e) => e.facts)
  const pure = []
  for (let r = 0; r < runs; r++) {
    const t = now()
    let n = 0
    for (const f of facts) if (core.classify(f) === 'callable') n++
    pure.push(now() - t)
  }
  // warm include_disabled latency over many queries on the mixed catalog
  const many = queries(1000, { seed: 13, catalog: spec })
  for (const q of many.slice(0, 100)) retrieve(catalog, { query: q, limit: 10, include_disabled: true }, FULL_SCOPE)
  const inclLat = timeQueries((q) => retrieve(catalog, { query: q, limit: 10, include_disabled: true }, FULL_SCOPE), many)
  const plainLat = timeQueries((q) => retrieve(catalog, { query: q, limit: 10 }, FULL_SCOPE), many)
  removeTmpDirs()
  return {
    size,
    tools: allEntries(catalog).length,
    runs,
    buildMs,
    counts,
    medians: {
      total: median(total),
      refresh: median(refresh),
      discover: median(discover),
      warm: median(warmCall),
      snapshot: median(snapOnly),
      pure: median(pure),
      one: median(one),
    },
    p95: { total: stats(total).p95, snapshot: stats(snapOnly).p95 },
    inclLat,
    plainLat,
  }
}

async function incremental() {
  const core = loadCore()
  const { retrieve, FULL_SCOPE, ingestTools } = core
  const size = opts.size ?? 10000
  const reps = opts.reps ?? 10
  const spec = syntheticCatalog(size, { servers: 50, seed: 42 })
  const dir = tmpDir()
  const { catalog, buildMs } = await buildCatalog(spec, dir, { extra: (_, i) => (i === 49 ? { trust: 'auto' } : {}) })
  await catalog.store.settle()
  const change = (tools, round) => {
    const out = tools.slice(5).map((t, j) => (j < 10 ? { ...t, description: `${t.description} Revision ${round}.` } : t))
    for (let j = 0; j < 5; j++)
      out.push({
        name: `added_tool_${round}_${j}`,
        description: `Added in revision ${round}: exports the ${j} report`,
        inputSchema: { type: 'object', properties: { id: { type: 'string' } } },
      })
    return out
  }
  const measure = async (server, list) => {
    const t0 = now()
    await ingestTools(catalog, server, list)
    const t1 = now()
    retrieve(catalog, { query: 'export report', limit: 10 }, FULL_SCOPE)
    return [t1 - t0, now() - t1]
  }
  const cases = {}
  const add = (k, [a, b]) => {
    ;(cases[k] ??= { ingest: [], firstQuery: [] }).ingest.push(a)
    cases[k].firstQuery.push(b)
  }
  const manual = spec.servers[10]
  const auto = spec.servers[49]
  for (let r = 0; r < reps; r++) {
    add('manual-trust server, 10 changed + 5 added + 5 removed (→ pending, no state write)', await measure(manual.name, change(manual.tools, r)))
    add('manual-trust server, reverted to the approved list', await measure(manual.name, manual.tools))
    add('same list again (list_changed without a change)', await measure(manual.name, manual.tools))
    add('trust:auto server, 10 changed + 5 added + 5 removed (approved + state.json write)', await measure(auto.name, change(auto.tools, r)))
  }
  await catalog.store.settle()
  const stateBytes = (await import('node:fs')).statSync(path.join(dir, 'state.json')).size
  removeTmpDirs()
  return {
    size,
    perServer: manual.tools.length,
    buildMs,
    reps,
    stateBytes,
    cases: Object.fromEntries(
      Object.entries(cases).map(([k, v]) => [k, { ingest: median(v.ingest), ingestMax: Math.max(...v.ingest), firstQuery: median(v.firstQuery) }]),
    ),
  }
}

const tasks = { retrieval, classify, incremental }
try {
  if (!tasks[task]) throw new Error(`unknown task ${task}`)
  const result = await tasks[task]()
  process.stdout.write(JSON.stringify(result) + '\n')
} catch (e) {
  process.stdout.write(JSON.stringify({ error: String(e?.stack ?? e) }) + '\n')
  process.exitCode = 1
} finally {
  removeTmpDirs()
}
