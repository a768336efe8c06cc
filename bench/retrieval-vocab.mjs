#!/usr/bin/env node
// The vocabulary rule of docs/retrieval.md at work: an entry (synonym, stop word, stemming rule)
// is removed only when a held-out set shows that it harms. This script measures each entry's
// effect on every held-out set, in process, with the built core:
//
//   node bench/retrieval-vocab.mjs            each entry issue 19 removed that is still out, added back alone
//   node bench/retrieval-vocab.mjs --present  each shipped synonym group and each restored entry, taken out alone
//   node bench/retrieval-vocab.mjs --all      every entry issue 19 removed, added back alone to the vocabulary without them
//
// A row prints, per set, the change in queries found in the top 5 (R@5 × queries, so +1 is one
// more query answered) and in MRR, and the verdict of the rule. A set "loses" when it finds at
// least one query fewer in its top 5 or its MRR falls by 0.01 or more (one query of 50 dropping
// from first to second place), "gains" the other way; smaller moves are rank churn, no evidence.
//   harms    some held-out set loses and none gains: the only ground for removing an entry
//   helps    some held-out set gains and none loses
//   mixed    some gain, some lose: no clear harm, the entry stays (and is reported)
//   neutral  nothing moves: the entry stays (a removed one comes back)
import path from 'node:path'
import { ROOT, requireRoot } from './lib/util.mjs'
import { evaluate, loadAll, HELD_OUT } from './lib/retrieval-eval.mjs'

const core = requireRoot(path.join(ROOT, 'out/main/core.js'))
const { ToolIndex, SYNONYM_GROUPS, buildTable, STOP_WORDS, DEFAULT_ANALYZER, makeStem, SHIPPED_STEM_RULES } = core

/** Issue 19's removals (commit de22cae), each with its provenance line. */
export const REMOVED_IN_ROUND_TWO = [
  {
    name: "'define' in the create group",
    synonym: ['create', 'define'],
    provenance: 'common usage in software: to define a table, schema or type is to create it (SQL: data definition language)',
  },
  {
    name: "'attach' in the create group",
    synonym: ['create', 'attach'],
    provenance: 'common usage in software: attach a file, label or tag = add it (mail, issue trackers); WordNet attach.v',
  },
  { name: "'append' in the create group", synonym: ['create', 'append'], provenance: 'WordNet 3.1 append.v "add to the very end"; file APIs (appendFile, >>)' },
  {
    name: "'strip' in the delete group",
    synonym: ['delete', 'strip'],
    provenance: 'WordNet 3.1 strip.v "take away"; strip whitespace, tags, metadata = remove them',
  },
  {
    name: "'translate' in the convert group",
    synonym: ['convert', 'translate'],
    provenance: 'WordNet 3.1 translate.v "change from one form or medium into another" (convert.v)',
  },
  { name: 'thing group history / log', group: ['thing', 'history', 'log'], provenance: 'WordNet 3.1 log.n "a written record of events"; git log, changelog' },
  { name: 'thing group multiple / several / many', group: ['thing', 'multiple', 'several', 'many'], provenance: 'WordNet 3.1 several.s, many.s, multiple.s' },
  { name: 'thing group size / large / big', group: ['thing', 'size', 'large', 'big'], provenance: 'WordNet 3.1 large.a / big.a "above average in size"' },
  {
    name: 'stop words every everything anything something nothing one already also still ever even really',
    stop: ['every', 'everything', 'anything', 'something', 'nothing', 'one', 'already', 'also', 'still', 'ever', 'even', 'really'],
    provenance: 'the SMART stop list (Salton & Buckley; Lewis et al. 2004, RCV1 appendix 11) has all twelve',
  },
  { name: 'stemming: strip -ship', stem: { ship: true }, provenance: 'Lovins (1968) and Paice/Husk (Lancaster) stemmers strip -ship; Porter keeps it' },
  {
    name: 'stemming: keep 3-letter stems (added → add)',
    stem: { shortStems: true },
    provenance: 'add is one of the commonest verbs opening MCP tool names; Porter step 1b undoubles it to "ad"',
  },
]

/** Entries issue 30 added (judged like the rest with --present). */
export const ADDED_IN_ROUND_THREE = [
  {
    name: 'stop words: emphasizers actually certainly clearly definitely indeed obviously plainly surely literally honestly frankly simply',
    stop: ['actually', 'certainly', 'clearly', 'definitely', 'indeed', 'obviously', 'plainly', 'surely', 'literally', 'honestly', 'frankly', 'simply'],
    provenance: 'the emphasizers of Quirk et al. (1985), A Comprehensive Grammar of the English Language §8.99',
  },
]

/** ToolIndex options: the shipped vocabulary without the entries `out`, plus the entries `in`. */
function optionsWith({ out = [], add = [] }) {
  const rules = { ...SHIPPED_STEM_RULES }
  let groups = SYNONYM_GROUPS.map((g) => ({ kind: g.kind, words: [...g.words] }))
  const stop = new Set(STOP_WORDS)
  for (const [list, present] of [
    [out, false],
    [add, true],
  ])
    for (const e of list) {
      if (e.stem) for (const k of Object.keys(e.stem)) rules[k] = present
      if (e.synonym) {
        const [head, word] = e.synonym
        const g = groups.find((x) => x.words[0] === head)
        g.words = present ? [...new Set([...g.words, word])] : g.words.filter((w) => w !== word)
      }
      if (e.group) {
        const [kind, ...words] = e.group
        groups = groups.filter((g) => g.words.join() !== words.join())
        if (present) groups.push({ kind, words })
      }
      if (e.stop) for (const w of e.stop) present ? stop.add(w) : stop.delete(w)
    }
  const stemWith = makeStem(rules)
  return { analyzer: { ...DEFAULT_ANALYZER, stopList: stop, stemWith }, synonyms: buildTable(groups, stemWith) }
}

const GAP = ['gap-v2', 'gap-v2@live', 'gap-live']
const JUDGED = [...HELD_OUT, ...GAP, 'intent', 'intent@live', 'livemcpbench']

/** The rule's verdict on an entry, from the scores with it (`withIt`) and without it (`without`). */
function verdict(without, withIt, data) {
  const n = (r) => data.runs.find((x) => x.name === r).queries.length
  const dq = (r) => Math.round((withIt[r].recall_at[5] - without[r].recall_at[5]) * n(r) * 100) / 100
  const dm = (r) => withIt[r].mrr - without[r].mrr
  const loses = JUDGED.filter((r) => dq(r) <= -1 || dm(r) <= -0.01 + 1e-9)
  const gains = JUDGED.filter((r) => dq(r) >= 1 || dm(r) >= 0.01 - 1e-9)
  const v = loses.length && gains.length ? 'mixed' : loses.length ? 'harms' : gains.length ? 'helps' : 'neutral'
  const sign = (x, d) => `${x >= 0 ? '+' : ''}${x.toFixed(d)}`
  const where = [...gains.map((r) => `+${r}`), ...loses.map((r) => `−${r}`)].join(' ')
  return { v, where, cells: JUDGED.map((r) => `${sign(dq(r), 2)} / ${sign(dm(r), 3)}`) }
}

const data = loadAll()
const mode = process.argv.includes('--present') ? 'present' : process.argv.includes('--all') ? 'all' : 'removed'
/** Whether an entry is in the shipped vocabulary. */
function shipped(e) {
  if (e.synonym) return SYNONYM_GROUPS.some((g) => g.words[0] === e.synonym[0] && g.words.includes(e.synonym[1]))
  if (e.group) return SYNONYM_GROUPS.some((g) => g.words.join() === e.group.slice(1).join())
  if (e.stop) return e.stop.every((w) => STOP_WORDS.has(w))
  return Object.keys(e.stem).every((k) => SHIPPED_STEM_RULES[k])
}
// [entry, options without it, options with it]
let rows
if (mode === 'present') {
  const entries = [
    ...SYNONYM_GROUPS.map((g) => ({ name: `group ${g.words.join(' / ')}`, group: [g.kind, ...g.words] })),
    ...REMOVED_IN_ROUND_TWO.filter((e) => shipped(e) && !e.group),
    ...ADDED_IN_ROUND_THREE,
  ]
  rows = entries.map((e) => [e, optionsWith({ out: [e] }), {}])
} else if (mode === 'all') {
  // issue 19's vocabulary (all of them out), each added back alone
  rows = REMOVED_IN_ROUND_TWO.map((e) => [e, optionsWith({ out: REMOVED_IN_ROUND_TWO }), optionsWith({ out: REMOVED_IN_ROUND_TWO, add: [e] })])
} else rows = REMOVED_IN_ROUND_TWO.filter((e) => !shipped(e)).map((e) => [e, {}, optionsWith({ add: [e] })])

console.log(
  {
    present: 'Each shipped entry: the shipped vocabulary against it without that entry',
    all: "Each of issue 19's removals added back alone to issue 19's vocabulary",
    removed: "Each of issue 19's removals still out, added back alone to the shipped vocabulary",
  }[mode],
)
console.log(`what the entry does: Δ queries in the top 5 / Δ MRR, limit 10\n`)
console.log(`| entry | verdict | gains (+) and losses (−) | ${JUDGED.join(' | ')} |\n|---|---|---|${JUDGED.map(() => '---').join('|')}|`)
for (const [e, without, withIt] of rows) {
  const { v, where, cells } = verdict(await evaluate(ToolIndex, without, data), await evaluate(ToolIndex, withIt, data), data)
  console.log(`| ${e.name} | ${v} | ${where} | ${cells.join(' | ')} |`)
}
