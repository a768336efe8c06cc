// Retrieval quality (issue 19), in process, on the dev set and the held-out sets of
// test/fixtures/retrieval/ (fixed before tuning; README there), scored with the shared metric code.
// Each floor is the value measured when the shipped configuration was chosen, minus a margin of
// about one query's worth, so a change that loses ground on any set fails here.
// `node bench/retrieval-quality.mjs --ablations --replay` prints the full table.
import { beforeAll, describe, expect, it } from 'vitest'
import { ToolIndex } from '../../src/main/core/search/tool-index'

interface Aggregate {
  n: number
  recall_at: Record<number, number>
  mrr: number
  ndcg_at_10: number
}
interface EvalModule {
  loadAll(): unknown
  evaluate(ctor: typeof ToolIndex, options: object, data: unknown): Promise<Record<string, Aggregate>>
}

// measured (R@5, MRR, nDCG@10) → floors
const FLOORS: Record<string, [number, number, number]> = {
  dev: [0.8, 0.69, 0.72], // measured 0.840 / 0.727 / 0.752
  'dev@live': [0.62, 0.5, 0.54], // 0.672 / 0.543 / 0.580
  'dev-paraphrase': [0.74, 0.56, 0.59], // 0.774 / 0.595 / 0.623
  'dev-paraphrase@live': [0.42, 0.37, 0.38], // 0.460 / 0.411 / 0.416
  'v2-fresh': [0.7, 0.63, 0.66], // 0.742 / 0.670 / 0.701
  'v2-fresh@live': [0.57, 0.47, 0.5], // 0.612 / 0.515 / 0.539
  'live-fresh': [0.67, 0.61, 0.62], // 0.699 / 0.637 / 0.651
  'known-item': [0.95, 0.83, 0.865], // 0.961 / 0.843 / 0.878
  para36: [0.91, 0.81, 0.83], // 0.944 / 0.843 / 0.856
}

let results: Record<string, Aggregate>
beforeAll(async () => {
  const ev = (await import('../../bench/lib/retrieval-eval.mjs')) as unknown as EvalModule
  results = await ev.evaluate(ToolIndex, {}, ev.loadAll())
})

describe('retrieval quality on the dev and held-out sets', () => {
  it.each(Object.entries(FLOORS))('%s stays at or above its floor (R@5, MRR, nDCG@10)', (run, [r5, mrr, ndcg]) => {
    const m = results[run]
    expect(m.n).toBeGreaterThan(15)
    expect(m.recall_at[5]).toBeGreaterThanOrEqual(r5)
    expect(m.mrr).toBeGreaterThanOrEqual(mrr)
    expect(m.ndcg_at_10).toBeGreaterThanOrEqual(ndcg)
  })
})
