#!/usr/bin/env node
// The tuning sweep of docs/retrieval.md: scores a grid of ToolIndex options and ranks them by the
// dev objective only (mean of R@5, MRR and nDCG@10 over the dev queries on both corpora, `dev` and
// `dev@live`). The held-out columns are printed for the record, after the choice; they never
// choose anything. Needs the build (out/main/core.js).
//
//   node bench/retrieval-tune.mjs GRID.mjs [--heldout] [--against '{"feedback":{"docs":0,"terms":0,"weight":0}}']
//
// GRID.mjs exports `configs`: an array of [name, options] (options merged over the shipped ones),
// for example the BM25F sweep of issue 19:
//   export const configs = []
//   for (const k of [1.2, 2, 3, 5, 8, 12]) for (const b of [0.7, 0.9, 1])
//     configs.push([`bm25f k${k} b${b}`, { fieldModel: 'bm25f', bm25: { k, b, d: 0.5 } }])
// --against OPTIONS (issue 30's veto): also list, per configuration, the held-out runs on which it
// loses against those options (one query fewer in the top 5, or MRR 0.01 lower), the rule a
// feature must pass to be kept; the ranking stays the dev objective's.
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { ROOT, requireRoot } from './lib/util.mjs'
import { evaluate, loadAll, HELD_OUT, ISSUE_30 } from './lib/retrieval-eval.mjs'

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
const data = loadAll()
const f = (x) => x.toFixed(3)
const JUDGED = [...HELD_OUT, ...ISSUE_30]
const n = (r) => data.runs.find((x) => x.name === r).queries.length
const against = opt('--against') ? await evaluate(ToolIndex, JSON.parse(opt('--against')), data) : null
/** The held-out runs on which `res` loses against `base` (issue 30's rule). */
const losses = (res, base) => JUDGED.filter((r) => (res[r].recall_at[5] - base[r].recall_at[5]) * n(r) <= -1 + 1e-9 || res[r].mrr - base[r].mrr <= -0.01 + 1e-9)

const rows = []
for (const [name, options] of configs) {
  const res = await evaluate(ToolIndex, options, data)
  const dev = (r) => (res[r].recall_at[5] + res[r].mrr + res[r].ndcg_at_10) / 3
  rows.push({ name, objective: (dev('dev') + dev('dev@live')) / 2, res })
}
rows.sort((a, b) => b.objective - a.objective)
const showHeldOut = argv.includes('--heldout')
console.log(
  `dev objective | dev R@5/MRR | dev@live R@5/MRR | livemcpbench-seen R@5/MRR (tuned on)${showHeldOut ? ` | held-out mean R@5 / MRR | ${JUDGED.join(' ')}` : ''}${against ? ' | loses on' : ''} | configuration`,
)
for (const { name, objective, res } of rows) {
  const cells = [
    f(objective),
    `${f(res.dev.recall_at[5])}/${f(res.dev.mrr)}`,
    `${f(res['dev@live'].recall_at[5])}/${f(res['dev@live'].mrr)}`,
    `${f(res['livemcpbench-seen'].recall_at[5])}/${f(res['livemcpbench-seen'].mrr)}`,
  ]
  if (showHeldOut) {
    const mean = (m) => HELD_OUT.reduce((s, r) => s + m(res[r]), 0) / HELD_OUT.length
    cells.push(`${f(mean((a) => a.recall_at[5]))} / ${f(mean((a) => a.mrr))}`, JUDGED.map((r) => f(res[r].recall_at[5])).join(' '))
  }
  if (against) cells.push(losses(res, against).join(' ') || '—')
  console.log(`${cells.join(' | ')} | ${name}`)
}
