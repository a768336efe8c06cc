#!/usr/bin/env node
// Retrieval quality in process (issues 19 and 30): R@5 / MRR / nDCG@10 of the shipped index on the
// dev set and every held-out set, on both corpora, plus the ablations listed in docs/retrieval.md;
// `wrong` is the share of requests to read (or to change) whose first result does the other thing.
//
//   node bench/retrieval-quality.mjs                  shipped configuration, one row per run
//   node bench/retrieval-quality.mjs --ablations      also one column per switched-off component
//   node bench/retrieval-quality.mjs --core DIR/out/main/core.js   another build (an older commit)
//   node bench/retrieval-quality.mjs --json FILE      raw aggregates
//
// Needs the build (out/main/core.js). `npm run bench -- --only quality` runs it too.
import fs from 'node:fs'
import path from 'node:path'
import { ROOT, requireRoot } from './lib/util.mjs'
import { evaluate, loadAll, HELD_OUT, ISSUE_30, replay, replaySplits } from './lib/retrieval-eval.mjs'

const argv = process.argv.slice(2)
const opt = (f, d) => {
  const i = argv.indexOf(f)
  return i >= 0 ? argv[i + 1] : d
}

const core = requireRoot(path.resolve(opt('--core', path.join(ROOT, 'out/main/core.js'))))
const { ToolIndex, DEFAULT_INDEX_OPTIONS } = core

/** name → ToolIndex options (partial, merged over the shipped defaults by the index). */
export function ablations(defaults) {
  const a = defaults.analyzer
  return [
    ['shipped', {}],
    ['without ranking by intent (issue 30)', { intent: { weight: 0, unhinted: 'unknown' } }],
    ["intent: a tool without hints counts as changing (the spec's default)", { intent: { ...defaults.intent, unhinted: 'change' } }],
    ['without the request form (paths, clauses; issue 30)', { queryForm: { locations: false, files: false, clauses: false } }],
    ['without "file" after a file name (round 3)', { queryForm: { locations: true, files: false, clauses: true } }],
    ["the server's boost of round 2 (1; round 3: 2)", { boost: { ...defaults.boost, server: 1 } }],
    ['a word found only in the description or parameters counts 1, as in a name (round 3: 0.7)', { weakMatch: 1 }],
    ['without the Chinese glosses (round 3, fifth part: CC-CEDICT)', { gloss: false }],
    ['without feedback expansion', { feedback: { docs: 0, terms: 0, weight: 0 } }],
    ["round 2's feedback (3/5/1)", { feedback: { docs: 3, terms: 5, weight: 1 } }],
    // issue 19's first round: per-field BM25+ summed, with the feedback chosen for it
    [
      'summed per-field BM25+ instead of BM25F (k 1.2, b 0.7, feedback 5/10/0.3)',
      { fieldModel: 'sum', bm25: { k: 1.2, b: 0.7, d: 0.5 }, feedback: { docs: 5, terms: 10, weight: 0.3 } },
    ],
    ['without synonyms', { synonymWeight: 0 }],
    ['without stemming', { analyzer: { ...a, stem: false } }],
    ['without stop words', { analyzer: { ...a, stopWords: false } }],
  ]
}

const f = (x) => x.toFixed(3)
const cell = (m) =>
  `${f(m.recall_at[5])} / ${f(m.mrr)} / ${f(m.ndcg_at_10)}${m.wrong_effect ? ` (wrong ${f(m.wrong_effect.share)} of ${m.wrong_effect.of})` : ''}`
const heldOutMean = (res) => HELD_OUT.reduce((s, r) => s + res[r].recall_at[5], 0) / HELD_OUT.length

/** One row per run, one column per configuration. */
export function formatTable(rows, runs) {
  const head = `| run | queries | ${rows.map(([name]) => name).join(' | ')} |`
  const sep = `|---|---|${rows.map(() => '---').join('|')}|`
  const lines = runs.map((r) => `| ${r.name} | ${r.queries.length} | ${rows.map(([, res]) => cell(res[r.name])).join(' | ')} |`)
  lines.push(`| held-out mean R@5 (issue 19's six) | | ${rows.map(([, res]) => f(heldOutMean(res))).join(' | ')} |`)
  const issue30 = (res) => ISSUE_30.filter((r) => res[r]).reduce((s, r, _, a) => s + res[r].recall_at[5] / a.length, 0)
  lines.push(`| mean R@5 of issue 30's sets | | ${rows.map(([, res]) => f(issue30(res))).join(' | ')} |`)
  return [head, sep, ...lines].join('\n')
}

const data = loadAll()
const configs = argv.includes('--ablations') ? ablations(DEFAULT_INDEX_OPTIONS) : [['shipped', {}]]
// --try '{"feedback":{"docs":3,"terms":5,"weight":0.3}}' (repeatable): extra columns, options merged over the shipped ones
argv.forEach((a, i) => {
  if (a === '--try') configs.push([argv[i + 1], JSON.parse(argv[i + 1])])
})
const rows = []
for (const [name, options] of configs) rows.push([name, await evaluate(ToolIndex, options, data)])
console.log('R@5 / MRR / nDCG@10, limit 10 (livemcpbench: by tool name)')
console.log(formatTable(rows, data.runs))
const out = opt('--json')
if (out) fs.writeFileSync(out, JSON.stringify(Object.fromEntries(rows.map(([n, r]) => [n, r])), null, 1))

if (argv.includes('--replay')) {
  const { LearnedUse } = core
  console.log('\nLearning from use, replay (history queries each followed by a call of their labeled tool); R@5 / MRR / nDCG@10 before → after')
  console.log('| replay | history | scored | before | after |\n|---|---|---|---|---|')
  for (const [name, corpus, history, scored] of replaySplits(data)) {
    const { before, after } = await replay(ToolIndex, LearnedUse, data.corpora[corpus], history, scored)
    const c = (m) => `${f(m.recall_at[5])} / ${f(m.mrr)} / ${f(m.ndcg_at_10)}`
    console.log(`| ${name} | ${history.length} | ${scored.length} | ${c(before)} | ${c(after)} |`)
  }
}
