#!/usr/bin/env node
// Retrieval quality end to end (issues 19 and 30): every run of bench/lib/retrieval-eval.mjs (the
// dev set and the held-out sets, on their corpus and, for the corpus_v2 sets, on livemcptool)
// scored by the independent scorer, test/fixtures/bench/score-retrieval.mjs, through `toolgate stdio` with
// one fixture upstream per corpus server. The fixture servers serve the reference servers'
// annotations (test/fixtures/retrieval/reference-annotations.json), as the in-process runs use
// them. Needs the build.
//
//   node bench/retrieval-e2e.mjs [--only dev,live-fresh] [--json FILE] [--cmd "node OTHER/bin/toolgate.js"]
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnSync } from 'node:child_process'
import { ROOT } from './lib/util.mjs'
import { CORPORA, REFERENCE, annotatedCorpus, loadAll } from './lib/retrieval-eval.mjs'

const argv = process.argv.slice(2)
const opt = (f, d) => {
  const i = argv.indexOf(f)
  return i >= 0 ? argv[i + 1] : d
}
const only = opt('--only')?.split(',')
const cmd = opt('--cmd')
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-e2e-sets-'))
const results = {}
try {
  const corpusFiles = {}
  for (const [name, file] of Object.entries(CORPORA)) {
    corpusFiles[name] = path.join(tmp, `${name}.tools.json`)
    fs.writeFileSync(corpusFiles[name], JSON.stringify(annotatedCorpus(file)))
  }
  for (const run of loadAll().runs) {
    if (only && !only.includes(run.name)) continue
    const golden = path.join(tmp, `${run.name}.json`)
    fs.writeFileSync(golden, JSON.stringify({ queries: run.queries }))
    const json = path.join(tmp, `${run.name}.result.json`)
    const args = [path.join(REFERENCE, 'bench/score-retrieval.mjs'), '--golden', golden, '--corpus', corpusFiles[run.corpus], '--json', json]
    if (run.nameLevel) args.push('--name-level')
    if (cmd) args.push('--cmd', cmd)
    const r = spawnSync(process.execPath, args, { cwd: ROOT, encoding: 'utf8' })
    if (r.status !== 0) throw new Error(`score-retrieval failed on ${run.name}:\n${r.stdout}\n${r.stderr}`)
    process.stdout.write(`${run.name}: ${r.stdout.split('\n').slice(1, 3).join('  ')}\n`)
    results[run.name] = JSON.parse(fs.readFileSync(json, 'utf8'))
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true })
}
const f = (x) => x.toFixed(3)
console.log('\n| run | queries | R@5 | MRR | nDCG@10 | p50 ms over stdio |\n|---|---|---|---|---|---|')
for (const [name, m] of Object.entries(results))
  console.log(`| ${name} | ${m.n} | ${f(m.recall_at[5])} | ${f(m.mrr)} | ${f(m.ndcg_at_10)} | ${m.latency_ms.p50.toFixed(2)} |`)
const out = opt('--json')
if (out) fs.writeFileSync(out, JSON.stringify(results, null, 1))
