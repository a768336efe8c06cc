// Query expansion from the top results (pseudo-relevance feedback, Rocchio-style): the name and
// first-sentence terms of the best provisional matches become extra, weaker query terms.

export interface FeedbackOptions {
  /** how many of the best provisional matches lend their terms */
  docs: number
  /** how many new terms are added */
  terms: number
  /** weight of a term found in every lending match at the top score */
  weight: number
}

/**
 * The expansion terms and their weights. `score(slot)` is a touched tool's provisional score
 * (rounded), `id(slot)` its id (ties go to the smaller id, so the choice never depends on the
 * order tools were indexed in), `keyTerms(slot)` its name and first-sentence terms. A term's
 * support is the sum of its lenders' shares of the top score; the `terms` best, not already in the
 * query, get weight × support ÷ number of lenders.
 */
export function feedbackTerms(
  touched: readonly number[],
  score: (slot: number) => number,
  id: (slot: number) => string,
  keyTerms: (slot: number) => readonly string[],
  inQuery: ReadonlyMap<string, number>,
  { docs, terms, weight }: FeedbackOptions,
): Array<[string, number]> {
  /** does the tool at `slot` with `s` rank before `y`? */
  const beats = (slot: number, s: number, y: { slot: number; score: number }): boolean => s > y.score || (s === y.score && id(slot) < id(y.slot))
  const before = (x: { slot: number; score: number }, y: { slot: number; score: number }): boolean => beats(x.slot, x.score, y)
  const top: Array<{ slot: number; score: number }> = []
  for (const slot of touched) {
    const s = score(slot)
    // most tools do not make the top: they are passed over without a candidate object
    if (top.length >= docs && !beats(slot, s, top[top.length - 1])) continue
    const cand = { slot, score: s }
    if (top.length < docs) top.push(cand)
    else top[top.length - 1] = cand
    top.sort((x, y) => (before(x, y) ? -1 : before(y, x) ? 1 : 0))
  }
  const best = top[0]?.score ?? 0
  if (best <= 0) return []
  const support = new Map<string, number>()
  for (const { slot, score: s } of top) {
    for (const t of keyTerms(slot)) if (!inQuery.has(t)) support.set(t, (support.get(t) ?? 0) + s / best)
  }
  return [...support]
    .sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1))
    .slice(0, terms)
    .map(([t, s]) => [t, (weight * s) / top.length])
}
