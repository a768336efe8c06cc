// Types for retrieval-eval.mjs (used from the TypeScript tests).
export function loadAll(): unknown
export function evaluate(
  ctor: unknown,
  options: object,
  data: unknown,
): Promise<Record<string, { n: number; recall_at: Record<number, number>; mrr: number; ndcg_at_10: number }>>
