// The BM25 index behind retrieve_tools: an in-memory inverted index, updated per server.
//
// Fields, scored together with BM25F (field-scoring.ts; length = distinct terms in the field):
//   name     the tool name split into words ("list_directory" → list, directory)
//   summary  the first sentence of the description — what the tool does
//   desc     the whole description
//   params   parameter names (split like names) and, when given, parameter descriptions
//   server   the server name split into words
//   gloss    English words for the Chinese in the description and parameters (gloss.ts, CC-CEDICT)
// Queries are analyzed like documents (tokenize.ts), expanded with the synonym table at a lower
// weight (synonyms.ts), and OR-combined; the score is multiplied by the number of typed query
// words a tool matched (directly or through a synonym). Every matching tool is returned.
// This file keeps each server's tools and ranks a request over them; a tool's document is
// tool-doc.ts', the storage (slots, posting lists, field lengths) postings.ts', what a request
// asks request.ts', and the tuning knobs index-options.ts'.
//
// Why not minisearch itself: its search() builds per-hit match objects, which made queries that
// match a third of a 5,000-tool catalog several times slower than the budget. This index keeps one
// packed posting list per term and scores into reusable typed arrays; docs/retrieval.md has the
// numbers, and test/unit/search-index.test.ts checks the summed model's scores against minisearch's
// and BM25F's against hand-computed ones.

import { makeAnalyzer, makeQueryAnalyzer, firstSentence } from './tokenize'
import type { AnalyzedQuery } from './tokenize'
import { LIFT_CAP, type LearnedUse } from './learned'
import { feedbackTerms } from './feedback'
import { intentFactor, verbEffects, type Effect } from './intent'
import { RankedHits, rankedList, type SearchHit } from './ranked-hits'
import { FIELDS, MAX_SLOTS, addTerm, type BM25Params, type Field, type FieldModel, type ScoringState } from './field-scoring'
import { DEFAULT_OPTIONS, type ToolIndexOptions } from './index-options'
import { sameDoc, toDoc, type Doc, type IndexedTool } from './tool-doc'
import { MAX_CONCEPTS, readRequest, typedTerms } from './request'
import { PostingStore } from './postings'

export { firstSentence }
export type { IndexedTool } from './tool-doc'
export { DEFAULT_OPTIONS, type ToolIndexOptions } from './index-options'

export type { SearchHit }

export type { BM25Params, Field, FieldModel }

/** Scores are rounded so that float noise from summation order cannot reorder ties. */
const SCORE_PRECISION = 1e6
// Sort keys: score in micro-units × RANK_SPAN + position in id order, exact below 2^53.
const RANK_SPAN = MAX_SLOTS
const MAX_PACKED_SCORE = Math.floor(Number.MAX_SAFE_INTEGER / RANK_SPAN) - 1

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555)
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333)
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24
}

export class ToolIndex {
  private readonly options: ToolIndexOptions
  private readonly analyzeQuery: (text: string) => AnalyzedQuery
  private readonly boosts: number[]
  /** stemmed verb → what a request led by it means to do (intent.ts) */
  private readonly verbs: ReadonlyMap<string, Effect>
  /** the tools' slots, posting lists and field lengths (postings.ts) */
  private readonly store: PostingStore
  /** learning from use (learned.ts): lifts tools agents called after similar queries; null = off */
  private learned: LearnedUse | null = null
  private clock: () => number = Date.now
  /** server → (tool id → indexed document and its slot) */
  private readonly byServer = new Map<string, Map<string, { doc: Doc; slot: number }>>()
  /** tool id → server that currently owns it */
  private readonly owner = new Map<string, string>()

  constructor(options: Partial<ToolIndexOptions> = {}) {
    this.options = { ...DEFAULT_OPTIONS, ...options }
    this.store = new PostingStore(makeAnalyzer(this.options.analyzer))
    this.analyzeQuery = makeQueryAnalyzer(this.options.analyzer)
    this.boosts = FIELDS.map((f) => this.options.boost[f])
    this.verbs = verbEffects(this.options.analyzer.stemWith)
  }

  /** Replaces one server's tools. Only tools whose indexed text changed are re-indexed. */
  setServerTools(server: string, tools: IndexedTool[]): void {
    const prev = this.byServer.get(server) ?? new Map<string, { doc: Doc; slot: number }>()
    const next = new Map<string, Doc>()
    for (const t of tools) next.set(t.id, toDoc(server, t, this.options.intent, this.options.gloss, prev.get(t.id)?.doc))
    const kept = new Map<string, { doc: Doc; slot: number }>()
    const removed: number[] = []
    for (const [id, entry] of prev) {
      const replacement = next.get(id)
      if (replacement && sameDoc(entry.doc, replacement)) kept.set(id, entry)
      else {
        removed.push(entry.slot)
        this.owner.delete(id)
      }
    }
    this.store.remove(removed)
    for (const [id, doc] of next) {
      if (kept.has(id)) continue
      // "server:tool" ids cannot collide across servers; if a caller reuses one, it moves here.
      const otherServer = this.owner.get(id)
      if (otherServer !== undefined && otherServer !== server) this.removeOne(otherServer, id)
      kept.set(id, { doc, slot: this.store.add(doc) })
      this.owner.set(id, server)
    }
    if (kept.size === 0) this.byServer.delete(server)
    else this.byServer.set(server, kept)
  }

  removeServer(server: string): void {
    const docs = this.byServer.get(server)
    if (!docs) return
    for (const id of docs.keys()) this.owner.delete(id)
    this.store.remove([...docs.values()].map((e) => e.slot))
    this.byServer.delete(server)
  }

  /** Turns learning from use on (with its records) or off (null). `clock` is for tests. */
  setLearned(learned: LearnedUse | null, clock: () => number = Date.now): void {
    this.learned = learned
    this.clock = clock
  }

  /** The analyzed terms a query is matched (and remembered) by. */
  queryTerms(query: string): string[] {
    return typedTerms(this.analyzeQuery(query))
  }

  /** Every matching tool, best first; equal scores in id order. Empty for a query with no terms. */
  search(query: string): SearchHit[] {
    return this.ranked(query).all()
  }

  /**
   * The same hits, made as they are read (ranked-hits.ts): `for (const hit of index.ranked(q))`
   * that stops after a page never sorts the rest. Read them before the index changes.
   */
  ranked(query: string): RankedHits {
    if (this.store.live === 0) return rankedList([])
    const request = readRequest(query, this.options, this.analyzeQuery, this.verbs)
    if (request === null) return rankedList([])
    const { typed, intent, weights, concepts } = request
    const conceptBit = new Map(typed.map((t, i) => [t, (1 << i) >>> 0]))
    const byTerm = this.options.coordination === 'terms'
    const touched: number[] = []
    let termNo = 0
    for (const [term, weight] of weights) {
      const bitIndex = termNo++
      let bits = 0
      if (byTerm) bits = (1 << (bitIndex % MAX_CONCEPTS)) >>> 0
      else for (const c of concepts.get(term) ?? []) bits |= conceptBit.get(c) ?? 0
      if (bits === 0) continue // stands only for words past the MAX_CONCEPTS cap
      this.accumulate(term, weight, bits, touched)
    }
    const fb = this.options.feedback
    if (fb.docs > 0 && fb.terms > 0 && fb.weight > 0 && touched.length > 0) {
      const expansion = feedbackTerms(
        touched,
        (slot) => Math.round(this.store.acc[slot] * this.matched(slot) * SCORE_PRECISION) / SCORE_PRECISION,
        (slot) => this.store.slotId[slot] as string,
        (slot) => this.store.slotKeyTerms[slot] ?? [],
        weights,
        fb,
      )
      for (const [term, weight] of expansion) this.accumulate(term, weight, 0, touched)
    }
    if (this.learned && this.learned.size > 0)
      this.applyLifts(
        this.learned.lifts(typed, this.clock(), (t) => this.store.idf(t)),
        touched,
      )
    return this.rank(touched, intent)
  }

  /**
   * Adds each lifted tool min(lift, LIFT_CAP) × the best provisional score, so a learned tool can
   * pass weaker matches but not one that beats it by more than the cap. A lifted tool that matched
   * no typed word joins the results with the lift alone.
   */
  private applyLifts(lifts: ReadonlyMap<string, number>, touched: number[]): void {
    if (lifts.size === 0) return
    let top = 0
    for (const slot of touched) top = Math.max(top, this.store.acc[slot] * this.matched(slot))
    if (top <= 0) return
    for (const [id, lift] of lifts) {
      const server = this.owner.get(id)
      const slot = server === undefined ? undefined : this.byServer.get(server)?.get(id)?.slot
      if (slot === undefined || lift <= 0) continue
      const add = Math.min(lift, LIFT_CAP) * top
      if (this.store.mask[slot] === 0) {
        touched.push(slot)
        this.store.mask[slot] = 1 // counts as one matched word, so the rank keeps the added score as is
        this.store.strong[slot] = 1
      }
      this.store.acc[slot] += add / this.matched(slot)
    }
  }

  /**
   * The coordination multiplier: the typed words a tool matched, each counting 1 when found in a
   * strong field (name, first sentence, server) and `weakMatch` when found only elsewhere.
   */
  private matched(slot: number): number {
    const all = this.store.mask[slot]
    const weak = this.options.weakMatch
    if (weak === 1) return popcount(all)
    const strong = this.store.strong[slot] & all
    return popcount(strong) + weak * popcount(all & ~strong)
  }

  /** Adds one term's score (field-scoring.ts) to the tools that contain it. */
  private accumulate(term: string, weight: number, bits: number, touched: number[]): void {
    const posting = this.store.postings.get(term)
    if (!posting) return
    const state: ScoringState = {
      live: this.store.live,
      epoch: this.store.epoch,
      fieldLen: this.store.fieldLen,
      fieldLenSum: this.store.fieldLenSum,
      acc: this.store.acc,
      mask: this.store.mask,
      strong: this.store.strong,
    }
    addTerm(this.options.fieldModel, state, posting, weight, bits, touched, this.options.bm25, this.boosts)
  }

  get size(): number {
    return this.store.live
  }

  /**
   * Final scores (rounded, so float noise cannot reorder ties) in order: score descending, then
   * id ascending. Sorts packed numeric keys natively — score in micro-units × 2^20 + the slot's
   * position in id order — instead of calling a comparator ~n·log n times.
   */
  private rank(touched: number[], intent: Effect | undefined): RankedHits {
    const acc = this.store.acc
    const mask = this.store.mask
    const strong = this.store.strong
    const slotId = this.store.slotId
    const effect = this.store.slotEffect
    const weight = this.options.intent.weight
    const micro = new Float64Array(touched.length)
    let max = 0
    for (let i = 0; i < touched.length; i++) {
      const slot = touched[i]
      const factor = intent === undefined ? 1 : intentFactor(intent, effect[slot], weight)
      micro[i] = Math.round(acc[slot] * this.matched(slot) * factor * SCORE_PRECISION)
      if (micro[i] > max) max = micro[i]
      acc[slot] = 0
      mask[slot] = 0
      strong[slot] = 0
    }
    if (max >= MAX_PACKED_SCORE) {
      // Absurdly long queries only: fall back to a comparator sort.
      const hits = touched.map((slot, i) => ({ id: slotId[slot] as string, score: micro[i] / SCORE_PRECISION }))
      return rankedList(hits.sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0)))
    }
    const byId = this.store.sortedSlots
    const idRank = this.store.idRanks()
    const keys = new Float64Array(touched.length)
    for (let i = 0; i < touched.length; i++) keys[i] = micro[i] * RANK_SPAN + (RANK_SPAN - 1 - idRank[touched[i]])
    // sorted (all, or the best first) as the hits are read
    return new RankedHits(keys, (key) => {
      const low = key % RANK_SPAN
      return { id: slotId[byId[RANK_SPAN - 1 - low]] as string, score: (key - low) / RANK_SPAN / SCORE_PRECISION }
    })
  }

  private removeOne(server: string, id: string): void {
    const docs = this.byServer.get(server)
    const entry = docs?.get(id)
    if (!docs || !entry) return
    this.store.remove([entry.slot])
    docs.delete(id)
    this.owner.delete(id)
    if (docs.size === 0) this.byServer.delete(server)
  }
}
