// Learning from use: which tool agents actually called after a retrieve_tools, and the lift it
// earns for similar later queries. Pure logic (no files, no clock of its own); learned-store.ts
// persists it in the data dir and the MCP server feeds it (agent-server/mcp-server.ts).
//
// A record is (the query's analyzed terms, the tool called, how often, when last). A new query
// lifts a recorded tool by Σ similarity × decay × log2(1 + count) over the records of that tool,
// where similarity is the IDF-weighted Jaccard overlap of analyzed terms (records below
// MIN_SIMILARITY do not count) and decay halves every HALF_LIFE_DAYS. The index turns a lift into extra score capped at
// LIFT_CAP × the best result's score (tool-index.ts), so a learned tool can climb past weaker
// matches but never past a result that scores LIFT_CAP better than it does on its own.

export const MIN_SIMILARITY = 0.5
export const HALF_LIFE_DAYS = 30
export const LIFT_CAP = 0.5
/** the store keeps at most this many records; the weakest (count × decay) go first */
export const MAX_RECORDS = 2000
const DAY_MS = 86_400_000

export interface LearnedRecord {
  /** the query's distinct analyzed terms, sorted */
  terms: string[]
  /** "server:tool" */
  tool: string
  count: number
  /** epoch ms of the last call */
  last: number
}

/** Jaccard overlap with each term weighted (by its IDF: shared rare words count, "get" barely). */
function weightedJaccard(a: readonly string[], b: ReadonlySet<string>, weight: (term: string) => number): number {
  let both = 0
  let union = 0
  for (const t of a) {
    const w = weight(t)
    union += w
    if (b.has(t)) both += w
  }
  for (const t of b) if (!a.includes(t)) union += weight(t)
  return union === 0 ? 0 : both / union
}

export class LearnedUse {
  private readonly byKey = new Map<string, LearnedRecord>()

  constructor(records: readonly LearnedRecord[] = []) {
    for (const r of records) this.byKey.set(`${r.terms.join(' ')}\u0000${r.tool}`, { ...r, terms: [...r.terms] })
  }

  get size(): number {
    return this.byKey.size
  }

  records(): LearnedRecord[] {
    return [...this.byKey.values()].map((r) => ({ ...r, terms: [...r.terms] }))
  }

  decay(record: LearnedRecord, now: number): number {
    return Math.pow(0.5, Math.max(0, now - record.last) / (HALF_LIFE_DAYS * DAY_MS))
  }

  /** Notes one call of `tool` after a search whose analyzed terms were `terms`. */
  record(terms: readonly string[], tool: string, now: number): void {
    const sorted = [...new Set(terms)].sort()
    if (sorted.length === 0) return
    const key = `${sorted.join(' ')}\u0000${tool}`
    const r = this.byKey.get(key)
    if (r) {
      r.count += 1
      r.last = Math.max(r.last, now)
    } else this.byKey.set(key, { terms: sorted, tool, count: 1, last: now })
    if (this.byKey.size > MAX_RECORDS) this.prune(now)
  }

  /** tool id → lift (before the cap) for a query with these analyzed terms; `weight` = term IDF. */
  lifts(terms: readonly string[], now: number, weight: (term: string) => number = () => 1): Map<string, number> {
    const out = new Map<string, number>()
    const q = new Set(terms)
    if (q.size === 0) return out
    for (const r of this.byKey.values()) {
      const sim = weightedJaccard(r.terms, q, weight)
      if (sim < MIN_SIMILARITY) continue
      out.set(r.tool, (out.get(r.tool) ?? 0) + sim * this.decay(r, now) * Math.log2(1 + r.count))
    }
    return out
  }

  /** Forgets everything about tools for which `keep` is false (a server or tool removed). */
  retain(keep: (tool: string) => boolean): void {
    for (const [k, r] of this.byKey) if (!keep(r.tool)) this.byKey.delete(k)
  }

  clear(): number {
    const n = this.byKey.size
    this.byKey.clear()
    return n
  }

  /** Drops the weakest records until MAX_RECORDS remain. */
  private prune(now: number): void {
    const ranked = [...this.byKey].sort((x, y) => x[1].count * this.decay(x[1], now) - y[1].count * this.decay(y[1], now))
    for (const [k] of ranked.slice(0, this.byKey.size - MAX_RECORDS)) this.byKey.delete(k)
  }
}
