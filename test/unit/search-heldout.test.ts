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
  dev: [0.9, 0.83, 0.84], // 0.944 / 0.876 / 0.890 (before the dev-set tuning: 0.924)
  'dev@live': [0.69, 0.66, 0.68], // 0.776 / 0.700 / 0.725 (0.698)
  'dev-paraphrase': [0.79, 0.63, 0.65], // 0.816 / 0.652 / 0.671 (0.774)
  'dev-paraphrase@live': [0.55, 0.44, 0.44], // 0.590 / 0.460 / 0.460 (0.442)
  'v2-fresh': [0.75, 0.63, 0.67], // 0.790 / 0.661 / 0.702 (0.726)
  'v2-fresh@live': [0.65, 0.57, 0.59], // 0.696 / 0.596 / 0.619 (0.592)
  'live-fresh': [0.74, 0.65, 0.66], // 0.765 / 0.669 / 0.682 (0.657)
  'known-item': [0.96, 0.89, 0.91], // 0.975 / 0.900 / 0.921 (0.956; goal ≥ 0.95)
  para36: [0.93, 0.82, 0.84], // 0.958 / 0.847 / 0.866 (0.944)
  // the vocabulary-gap sets (written before the tuning they judge)
  'gap-v2': [0.34, 0.27, 0.31], // 0.360 / 0.295 / 0.337 (0.320)
  'gap-v2@live': [0.16, 0.11, 0.12], // 0.169 / 0.134 / 0.143 (0.167)
  'gap-live': [0.4, 0.28, 0.32], // 0.423 / 0.305 / 0.335 (0.350)
  intent: [0.91, 0.84, 0.84], // 0.938 / 0.867 / 0.862 (0.854)
  'intent@live': [0.75, 0.75, 0.73], // 0.772 / 0.775 / 0.754 (0.730)
  livemcpbench: [0.45, 0.5, 0.42], // 0.469 / 0.523 / 0.443 by tool name (0.345; goal ≥ 0.45)
  // its first 40 tasks were read and tuned on (round 3), the other 54 never looked at
  'livemcpbench-seen': [0.54, 0.62, 0.51], // 0.564 / 0.646 / 0.539 (before round 3: 0.422)
  'livemcpbench-unseen': [0.37, 0.4, 0.34], // 0.398 / 0.432 / 0.371 (0.319)
  // the tuning sets of round three's fourth part (tuned on, like dev; datasets/README.md)
  'tune-v2': [0.72, 0.56, 0.59], // 0.744 / 0.579 / 0.614
  'tune-v2@live': [0.37, 0.34, 0.38], // 0.405 / 0.369 / 0.405
  'tune-live': [0.65, 0.52, 0.56], // 0.669 / 0.544 / 0.586
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

describe('ranking by what the request means to do (docs/retrieval.md, round three)', () => {
  it.each(Object.entries(WRONG_EFFECT))('%s: few requests to read get a tool that changes first, or the reverse', (run, most) => {
    const w = results[run].wrong_effect
    expect(w?.of).toBe(40)
    expect(w?.share).toBeLessThanOrEqual(most)
  })
})
