#!/usr/bin/env node
// locked_ahead on the retrieval sets (issue 28): does naming the locked tools that outrank the
// callable results cost the callable ranking anything, and how often does it tell an agent about
// the tool it was after when that tool is locked? Every run of bench/lib/retrieval-eval.mjs goes
// through retrieve() over a real Catalog (real StateStore on a temp dir, each corpus server
// approved, its tools the baseline), limit 10.
//
//   A. nothing locked: R@5 / MRR of retrieve()'s tools (the shipped numbers of retrieval-quality.mjs)
//   B. 10% of the tools switched off by the user (seeded): R@5 / MRR of the tools list of this build
//      against the ranking a build without locked_ahead returns (the index's hits with the locked
//      ones left out, or `--core OTHER/out/main/core.js`'s retrieve()); queries whose tools differ
//   C. each query's best-graded tool switched off: how often locked_ahead names it, overall and when
//      it would have been in the top 5 had it been callable
//
//   node bench/retrieval-locked.mjs [--core OTHER/out/main/core.js] [--json FILE]
// Needs the build (out/main/core.js).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ROOT, requireRoot } from './lib/util.mjs'
import { CORPORA, LIMIT, annotatedCorpus, loadAll, score } from './lib/retrieval-eval.mjs'

const argv = process.argv.slice(2)
const opt = (f, d) => {
  const i = argv.indexOf(f)
  return i >= 0 ? argv[i + 1] : d
}
const core = requireRoot(path.join(ROOT, 'out/main/core.js'))
const other = opt('--core') ? requireRoot(path.resolve(opt('--core'))) : null
const { Catalog, StateStore, parseConfig, ingestTools, setToolDisabled, retrieve, FULL_SCOPE } = core

const safeName = (s) => s.replace(/[^A-Za-z0-9._-]+/g, '-')

/** A catalog with every tool of the corpus approved (each server trusted, its tools its baseline). */
async function catalogOf(file, dir) {
  const tools = annotatedCorpus(file).tools
  const byServer = new Map()
  for (const t of tools) {
    const server = safeName(t.server)
    const schema = t.schema ?? t.inputSchema ?? {}
    const def = {
      name: t.tool,
      description: t.description ?? '',
      inputSchema: { type: 'object', properties: schema.properties ?? {} },
      ...(t.annotations ? { annotations: t.annotations } : {}),
    }
    byServer.set(server, [...(byServer.get(server) ?? []), def])
  }
  const mcpServers = Object.fromEntries([...byServer.keys()].map((s) => [s, { command: 'node', quarantined: false }]))
  const store = new StateStore(path.join(dir, 'state.json'))
  const catalog = new Catalog(parseConfig(path.join(dir, 'mcp_config.json'), { mcpServers }), store)
  for (const [server, defs] of byServer) await ingestTools(catalog, server, defs)
  return { catalog, ids: tools.map((t) => `${safeName(t.server)}:${t.tool}`) }
}

/** A build without locked_ahead: the index's hits, the locked ones left out, the first `limit`. */
function withoutFeature(catalog, query) {
  const byId = catalog.snapshot().byId
  const out = []
  for (const hit of catalog.index.search(query)) {
    if (byId.get(hit.id)?.status !== 'callable') continue
    out.push({ id: hit.id, score: Math.round(hit.score * 1000) / 1000 })
    if (out.length >= LIMIT) break
  }
  return out
}

const run = (catalog, q, retrieveFn = retrieve) => retrieveFn(catalog, { query: q, limit: LIMIT }, FULL_SCOPE)
const hitsOf = (r) => r.tools.map((t) => ({ id: t.name, score: t.score }))

/** mulberry32: a seeded PRNG, so the 10% are the same every run */
function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let t = seed
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

async function setLocked(catalog, ids, disabled) {
  for (const id of ids) {
    const at = id.indexOf(':')
    await setToolDisabled(catalog, id.slice(0, at), id.slice(at + 1), disabled)
  }
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-locked-ahead-'))
const results = {}
try {
  const data = loadAll()
  const catalogs = {}
  for (const [name, file] of Object.entries(CORPORA)) {
    fs.mkdirSync(path.join(tmp, name))
    catalogs[name] = await catalogOf(file, path.join(tmp, name))
  }
  const f = (x) => x.toFixed(3)
  const cell = (m) => `${f(m.recall_at[5])} / ${f(m.mrr)}`

  // A: nothing locked
  console.log('A. nothing locked: R@5 / MRR of retrieve_tools (limit 10)\n| run | queries | R@5 / MRR | with locked_ahead |\n|---|---|---|---|')
  for (const r of data.runs) {
    const { catalog } = catalogs[r.corpus]
    const m = await score((q) => hitsOf(run(catalog, q)), r.queries, { nameLevel: r.nameLevel === true })
    const withAhead = r.queries.filter((q) => run(catalog, q.query).locked_ahead).length
    results[r.name] = { none: m }
    console.log(`| ${r.name} | ${r.queries.length} | ${cell(m)} | ${withAhead} |`)
  }

  // B: 10% locked at random
  for (const [name, { catalog, ids }] of Object.entries(catalogs)) {
    const next = rng(28)
    catalogs[name].locked = ids.filter(() => next() < 0.1)
    await setLocked(catalog, catalogs[name].locked, true)
  }
  console.log(
    `\nB. 10% of the tools switched off (v2 ${catalogs.v2.locked.length} of ${catalogs.v2.ids.length}, live ${catalogs.live.locked.length} of ${catalogs.live.ids.length}): R@5 / MRR of the callable results\n` +
      `| run | without locked_ahead${other ? ' (--core)' : ''} | this build | queries whose tools differ | answers with locked_ahead | mean entries |\n|---|---|---|---|---|---|`,
  )
  for (const r of data.runs) {
    const { catalog } = catalogs[r.corpus]
    const before = (q) => (other ? hitsOf(run(catalog, q, other.retrieve)) : withoutFeature(catalog, q))
    const mBefore = await score(before, r.queries, { nameLevel: r.nameLevel === true })
    const mNow = await score((q) => hitsOf(run(catalog, q)), r.queries, { nameLevel: r.nameLevel === true })
    let differ = 0
    let answers = 0
    let entries = 0
    for (const q of r.queries) {
      const now = run(catalog, q.query)
      if (JSON.stringify(hitsOf(now)) !== JSON.stringify(before(q.query))) differ++
      if (now.locked_ahead) {
        answers++
        entries += now.locked_ahead.length
      }
    }
    Object.assign(results[r.name], { random10: { before: mBefore, now: mNow, differ, answers, entries } })
    console.log(
      `| ${r.name} | ${cell(mBefore)} | ${cell(mNow)} | ${differ} | ${answers} of ${r.queries.length} | ${answers ? (entries / answers).toFixed(1) : '0'} |`,
    )
  }
  for (const { catalog, locked } of Object.values(catalogs)) await setLocked(catalog, locked, false)

  // C: the tool the query is after, switched off
  console.log(
    "\nC. each query's best-graded tool switched off (one at a time): locked_ahead names it\n| run | queries | named | would have been in the top 5 | named of those | named before issue 28 (exact-name hint) |\n|---|---|---|---|---|---|",
  )
  for (const r of data.runs) {
    if (r.nameLevel) continue // labels are tool names there, not one tool
    const { catalog } = catalogs[r.corpus]
    const byTarget = new Map()
    for (const q of r.queries) {
      const best = Math.max(...q.labels.map((l) => l.relevance))
      const target = q.labels.find((l) => l.relevance === best).tool_id
      byTarget.set(target, [...(byTarget.get(target) ?? []), q])
    }
    let named = 0
    let top5 = 0
    let namedTop5 = 0
    let hinted = 0
    for (const [target, qs] of byTarget) {
      const wasTop5 = new Map(
        qs.map((q) => [
          q.id,
          run(catalog, q.query)
            .tools.slice(0, 5)
            .some((t) => t.name === target),
        ]),
      )
      await setLocked(catalog, [target], true)
      for (const q of qs) {
        const now = run(catalog, q.query)
        const isNamed = (now.locked_ahead ?? []).some((e) => e.name === target)
        if (isNamed) named++
        if (wasTop5.get(q.id)) {
          top5++
          if (isNamed) namedTop5++
        }
        if (now.notice?.includes(`\`${target}\``)) hinted++
      }
      await setLocked(catalog, [target], false)
    }
    const n = r.queries.length
    Object.assign(results[r.name], { lockedTarget: { n, named, top5, namedTop5, hinted } })
    const pct = (a, b) => (b ? `${((100 * a) / b).toFixed(1)}%` : 'n/a')
    console.log(`| ${r.name} | ${n} | ${named} (${pct(named, n)}) | ${top5} | ${namedTop5} (${pct(namedTop5, top5)}) | ${hinted} |`)
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true })
}
const out = opt('--json')
if (out) fs.writeFileSync(out, JSON.stringify(results, null, 1))
