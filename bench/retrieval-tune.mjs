#!/usr/bin/env node
// The tuning sweep of docs/retrieval.md: scores a grid of ToolIndex options and ranks them by the
// dev objective only (mean of R@5, MRR and nDCG@10 over the dev queries on both corpora, `dev` and
// `dev@live`). The held-out columns are printed for the record, after the choice; they never
// choose anything. Needs the build (out/main/core.js).
//
//   node bench/retrieval-tune.mjs GRID.mjs [--heldout]
//
// GRID.mjs exports `configs`: an array of [name, options] (options merged over the shipped ones),
// for example the BM25F sweep of issue 19:
//   export const configs = []
//   for (const k of [1.2, 2, 3, 5, 8, 12]) for (const b of [0.7, 0.9, 1])
//     configs.push([`bm25f k${k} b${b}`, { fieldModel: 'bm25f', bm25: { k, b, d: 0.5 } }])
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { ROOT, requireRoot } from './lib/util.mjs'
import { evaluate, loadAll, HELD_OUT } from './lib/retrieval-eval.mjs'

const grid = process.argv[2]
if (!grid) {
  console.error('usage: node bench/retrieval-tune.mjs GRID.mjs [--heldout]')
  process.exit(2)
}
const { ToolIndex } = requireRoot(path.join(ROOT, 'out/main/core.js'))
const { configs } = await import(pathToFileURL(path.resolve(grid)).href)
const data = loadAll()
const f = (x) => x.toFixed(3)
const rows = []
for (const [name, options] of configs) {
  const res = await evaluate(ToolIndex, options, data)
  const dev = (r) => (res[r].recall_at[5] + res[r].mrr + res[r].ndcg_at_10) / 3
  rows.push({ name, objective: (dev('dev') + dev('dev@live')) / 2, res })
}
rows.sort((a, b) => b.objective - a.objective)
const showHeldOut = process.argv.includes('--heldout')
console.log(`dev objective | dev R@5/MRR | dev@live R@5/MRR${showHeldOut ? ` | held-out mean R@5 / MRR | ${HELD_OUT.join(' ')}` : ''} | configuration`)
for (const { name, objective, res } of rows) {
  const cells = [f(objective), `${f(res.dev.recall_at[5])}/${f(res.dev.mrr)}`, `${f(res['dev@live'].recall_at[5])}/${f(res['dev@live'].mrr)}`]
  if (showHeldOut) {
    const mean = (m) => HELD_OUT.reduce((s, r) => s + m(res[r]), 0) / HELD_OUT.length
    cells.push(`${f(mean((a) => a.recall_at[5]))} / ${f(mean((a) => a.mrr))}`, HELD_OUT.map((r) => f(res[r].recall_at[5])).join(' '))
  }
  console.log(`${cells.join(' | ')} | ${name}`)
}
