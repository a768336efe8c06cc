#!/usr/bin/env node
// The tuning sweep of docs/retrieval.md: scores a grid of ToolIndex options and ranks them by the
// dev objective only (mean of R@5, MRR and nDCG@10 over the dev queries on both corpora, `dev` and
// `dev@live`). The held-out columns are printed for the record, after the choice; they never
// choose anything. Needs the build (out/main/core.js).
//
//   node bench/retrieval-tune.mjs GRID.mjs [--heldout] [--against '{"feedback":{"docs":0,"terms":0,"weight":0}}'] [--objective tuning]
//
// GRID.mjs exports `configs`: an array of [name, options] (options merged over the shipped ones),
// for example the BM25F sweep of issue 19:
//   export const configs = []
//   for (const k of [1.2, 2, 3, 5, 8, 12]) for (const b of [0.7, 0.9, 1])
//     configs.push([`bm25f k${k} b${b}`, { fieldModel: 'bm25f', bm25: { k, b, d: 0.5 } }])
// --against OPTIONS (issue 30's veto): also list, per configuration, the held-out runs on which it
// loses against those options (one query fewer in the top 5, or MRR 0.01 lower), the rule a
// feature must pass to be kept; the ranking stays the dev objective's.
// --objective tuning (issue 30, fourth part): rank by the tuning objective instead, the
// query-weighted mean of (R@5 + MRR + nDCG@10) / 3 over TUNING (dev, dev@live, tune-v2,
// tune-v2@live, tune-live, livemcpbench-seen: 248 queries), and list per configuration the tuning
// runs on which it loses against the shipped options; only the tuning runs are scored unless
// --heldout or --against asks for more, so a grid can be run without seeing a held-out figure.
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { ROOT, requireRoot } from './lib/util.mjs'
import { evaluate, loadAll, HELD_OUT, ISSUE_30, TUNING } from './lib/retrieval-eval.mjs'

const argv = process.argv.slice(2)
const grid = argv[0]
if (!grid) {
  console.error('usage: node bench/retrieval-tune.mjs GRID.mjs [--heldout] [--against OPTIONS_JSON]')
  process.exit(2)
}
const opt = (f) => {
  const i = argv.indexOf(f)
  return i >= 0 ? argv[i + 1] : undefined
}
const { ToolIndex } = requireRoot(path.join(ROOT, 'out/main/core.js'))
const { configs } = await import(pathToFileURL(path.resolve(grid)).href)
const all = loadAll()
const showHeldOut = argv.includes('--heldout')
const byTuning = opt('--objective') === 'tuning'
// with the tuning objective and no held-out output asked for, only the tuning runs are scored
const data = byTuning && !showHeldOut && !opt('--against') ? { ...all, runs: all.runs.filter((r) => TUNING.includes(r.name)) } : all
const f = (x) => x.toFixed(3)
const JUDGED = [...HELD_OUT, ...ISSUE_30]
const n = (r) => data.runs.find((x) => x.name === r).queries.length
const against = opt('--against') ? await evaluate(ToolIndex, JSON.parse(opt('--against')), data) : null
/** The runs of `runs` on which `res` loses against `base` (issue 30's rule). */
const losses = (res, base, runs = JUDGED) =>
  runs.filter((r) => (res[r].recall_at[5] - base[r].recall_at[5]) * n(r) <= -1 + 1e-9 || res[r].mrr - base[r].mrr <= -0.01 + 1e-9)
const mean3 = (res, r) => (res[r].recall_at[5] + res[r].mrr + res[r].ndcg_at_10) / 3
const tuningN = TUNING.reduce((s, r) => s + n(r), 0)
const objectiveOf = byTuning
  ? (res) => TUNING.reduce((s, r) => s + mean3(res, r) * n(r), 0) / tuningN
  : (res) => (mean3(res, 'dev') + mean3(res, 'dev@live')) / 2
const shipped = byTuning ? await evaluate(ToolIndex, {}, data) : null

const rows = []
for (const [name, options] of configs) {
  const res = await evaluate(ToolIndex, options, data)
  rows.push({ name, objective: objectiveOf(res), res })
}
rows.sort((a, b) => b.objective - a.objective)
const tuningCols = byTuning ? TUNING.filter((r) => r !== 'dev' && r !== 'dev@live' && r !== 'livemcpbench-seen') : []
if (shipped) console.log(`shipped: tuning objective ${f(objectiveOf(shipped))}`)
console.log(
  `${byTuning ? 'tuning' : 'dev'} objective | dev R@5/MRR | dev@live R@5/MRR | livemcpbench-seen R@5/MRR (tuned on)${tuningCols.map((r) => ` | ${r} R@5/MRR`).join('')}${byTuning ? ' | loses on (tuning, against shipped)' : ''}${showHeldOut ? ` | held-out mean R@5 / MRR | ${JUDGED.join(' ')}` : ''}${against ? ' | loses on' : ''} | configuration`,
)
for (const { name, objective, res } of rows) {
  const cells = [
    f(objective),
    `${f(res.dev.recall_at[5])}/${f(res.dev.mrr)}`,
    `${f(res['dev@live'].recall_at[5])}/${f(res['dev@live'].mrr)}`,
    `${f(res['livemcpbench-seen'].recall_at[5])}/${f(res['livemcpbench-seen'].mrr)}`,
    ...tuningCols.map((r) => `${f(res[r].recall_at[5])}/${f(res[r].mrr)}`),
  ]
  if (shipped) cells.push(losses(res, shipped, TUNING).join(' ') || '—')
  if (showHeldOut) {
    const mean = (m) => HELD_OUT.reduce((s, r) => s + m(res[r]), 0) / HELD_OUT.length
    cells.push(`${f(mean((a) => a.recall_at[5]))} / ${f(mean((a) => a.mrr))}`, JUDGED.map((r) => f(res[r].recall_at[5])).join(' '))
  }
  if (against) cells.push(losses(res, against).join(' ') || '—')
  console.log(`${cells.join(' | ')} | ${name}`)
}
