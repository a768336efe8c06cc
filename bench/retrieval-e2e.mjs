#!/usr/bin/env node
// Retrieval quality end to end (issue 19): every run of bench/lib/retrieval-eval.mjs (the dev set
// and the held-out sets, on their corpus and, for the corpus_v2 sets, on livemcptool) scored by
// the independent scorer, test/fixtures/bench/score-retrieval.mjs, through `toolgate stdio` with one
// fixture upstream per corpus server. Needs the build.
//
//   node bench/retrieval-e2e.mjs [--only dev,live-fresh] [--json FILE]
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { ROOT } from './lib/util.mjs'
import { CORPORA, REFERENCE, loadAll } from './lib/retrieval-eval.mjs'

const argv = process.argv.slice(2)
const opt = (f, d) => {
  const i = argv.indexOf(f)
  return i >= 0 ? argv[i + 1] : d
}
const only = opt('--only')?.split(',')
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-e2e-sets-'))
const results = {}
try {
  for (const run of loadAll().runs) {
    if (only && !only.includes(run.name)) continue
    const golden = path.join(tmp, `${run.name}.json`)
    fs.writeFileSync(golden, JSON.stringify({ queries: run.queries }))
    const json = path.join(tmp, `${run.name}.result.json`)
    const r = spawnSync(
      process.execPath,
      [path.join(REFERENCE, 'bench/score-retrieval.mjs'), '--golden', golden, '--corpus', CORPORA[run.corpus], '--json', json],
      {
        cwd: ROOT,
        encoding: 'utf8',
      },
    )
    if (r.status !== 0) throw new Error(`score-retrieval failed on ${run.name}:\n${r.stdout}\n${r.stderr}`)
    process.stdout.write(`${run.name}: ${r.stdout.split('\n')[1]}\n`)
    results[run.name] = JSON.parse(fs.readFileSync(json, 'utf8'))
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true })
}
const f = (x) => x.toFixed(3)
console.log('\n| run | queries | R@5 | MRR | nDCG@10 |\n|---|---|---|---|---|')
for (const [name, m] of Object.entries(results)) console.log(`| ${name} | ${m.n} | ${f(m.recall_at[5])} | ${f(m.mrr)} | ${f(m.ndcg_at_10)} |`)
const out = opt('--json')
if (out) fs.writeFileSync(out, JSON.stringify(results, null, 1))
