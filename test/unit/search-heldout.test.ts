// Retrieval quality (issues 19 and 30), in process, on the dev set and the held-out sets of
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
  wrong_effect?: { share: number; of: number }
}
interface EvalModule {
  loadAll(): unknown
  evaluate(ctor: typeof ToolIndex, options: object, data: unknown): Promise<Record<string, Aggregate>>
}

// measured (R@5, MRR, nDCG@10) → floors, the shipped configuration (docs/retrieval.md);
// the values before the dev-set tuning (baf726f) are the goal every held-out set must keep
const FLOORS: Record<string, [number, number, number]> = {
  dev: [0.9, 0.83, 0.84], // 0.944 / 0.873 / 0.889 (before the dev-set tuning: 0.924)
  'dev@live': [0.65, 0.64, 0.66], // 0.709 / 0.691 / 0.717 (0.698)
  'dev-paraphrase': [0.79, 0.62, 0.64], // 0.816 / 0.635 / 0.661 (0.774)
  'dev-paraphrase@live': [0.52, 0.42, 0.42], // 0.547 / 0.449 / 0.453 (0.442)
  'v2-fresh': [0.75, 0.59, 0.64], // 0.790 / 0.632 / 0.682 (0.726)
  'v2-fresh@live': [0.59, 0.56, 0.57], // 0.626 / 0.607 / 0.619 (0.592)
  'live-fresh': [0.74, 0.65, 0.66], // 0.757 / 0.675 / 0.687 (0.657)
  'known-item': [0.96, 0.89, 0.91], // 0.972 / 0.896 / 0.918 (0.956; goal ≥ 0.95)
  para36: [0.91, 0.8, 0.82], // 0.944 / 0.843 / 0.862 (0.944)
  // the vocabulary-gap sets (written before the tuning they judge)
  'gap-v2': [0.34, 0.27, 0.31], // 0.360 / 0.295 / 0.336 (0.320)
  'gap-v2@live': [0.16, 0.11, 0.12], // 0.172 / 0.135 / 0.147 (0.167)
  'gap-live': [0.4, 0.28, 0.32], // 0.413 / 0.293 / 0.332 (0.350)
  intent: [0.91, 0.84, 0.84], // 0.938 / 0.867 / 0.866 (0.854)
  'intent@live': [0.74, 0.75, 0.73], // 0.772 / 0.780 / 0.761 (0.730)
  livemcpbench: [0.42, 0.45, 0.39], // 0.437 / 0.471 / 0.407 by tool name (0.345)
  // its first 40 tasks were read and tuned on (round 3), the other 54 never looked at
  'livemcpbench-seen': [0.48, 0.56, 0.47], // 0.509 / 0.585 / 0.493 (before round 3: 0.422)
  'livemcpbench-unseen': [0.36, 0.36, 0.32], // 0.384 / 0.387 / 0.343 (0.319)
}

// requests to read or to change whose first result does the other thing (intent.json): at most
const WRONG_EFFECT: Record<string, number> = {
  intent: 0.1, // 2 of 40 (0.125 before intent ranking)
  'intent@live': 0.2, // 8 of 40 (0.350)
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

describe('ranking by what the request means to do (issue 30)', () => {
  it.each(Object.entries(WRONG_EFFECT))('%s: few requests to read get a tool that changes first, or the reverse', (run, most) => {
    const w = results[run].wrong_effect
    expect(w?.of).toBe(40)
    expect(w?.share).toBeLessThanOrEqual(most)
  })
})
