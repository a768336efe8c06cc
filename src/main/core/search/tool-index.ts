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
//
// Why not minisearch itself: its search() builds per-hit match objects, which made queries that
// match a third of a 5,000-tool catalog several times slower than the budget. This index keeps one
// packed posting list per term and scores into reusable typed arrays; docs/retrieval.md has the
// numbers, and test/unit/search-index.test.ts checks the summed model's scores against minisearch's
// and BM25F's against hand-computed ones.

import { makeAnalyzer, makeQueryAnalyzer, DEFAULT_ANALYZER, firstSentence, isStopWord, splitIdentifier } from './tokenize'
import type { AnalyzedQuery, AnalyzerOptions } from './tokenize'
import { defaultSynonyms, expandQuery, leadingVerb, type SynonymTable } from './synonyms'
import { LIFT_CAP, type LearnedUse } from './learned'
import { feedbackTerms, type FeedbackOptions } from './feedback'
import { clauses, reduceLocations } from './query-form'
import { EFFECT_UNKNOWN, effectCode, intentFactor, requestEffect, verbEffects, type Effect, type IntentOptions } from './intent'
import type { Variant } from '../../../shared/call-variant'
import { RankedHits, rankedList, type SearchHit } from './ranked-hits'
import { glossOf } from './gloss'
import {
  F,
  FIELDS,
  FIELD_MASK,
  MAX_SLOTS,
  MAX_TF,
  SLOT_SHIFT,
  TF_BITS,
  addTerm,
  type BM25Params,
  type Field,
  type FieldModel,
  type Posting,
  type ScoringState,
} from './field-scoring'

export { firstSentence }
export interface IndexedTool {
  /** "server:tool" */
  id: string
  server: string
  name: string
  description: string
  paramNames: string[]
  /** parameter descriptions, optional */
  paramText?: string
  /** the call variant the tool needs (the call gate's), for ranking by what a request means to do */
  variant?: Variant
  /** false when the variant is the MCP spec's default for a tool without hints */
  hinted?: boolean
}

export type { SearchHit }

export type { BM25Params, Field, FieldModel }

/** Tuning knobs; the defaults are the shipped configuration (benchmarks pass others). */
export interface ToolIndexOptions {
  analyzer: AnalyzerOptions
  /** 'bm25f': fields added, then saturated once; 'sum': BM25+ per field, summed (field-scoring.ts) */
  fieldModel: FieldModel
  boost: Record<Field, number>
  /** saturation k, length normalization b, BM25+ δ; k applies per field ('sum') or to the whole tool ('bm25f') */
  bm25: BM25Params
  /** weight of a synonym relative to the typed term; 0 = no synonym expansion */
  synonymWeight: number
  /** weight of an action-verb synonym for a word that is not the request's leading verb */
  actionElsewhereWeight: number
  /** multiply by the number of typed terms matched (synonyms count for the word they replace) */
  coordination: 'concepts' | 'terms'
  /**
   * How much a typed word found only in a tool's description or parameters counts in that
   * multiplier; a word in the name, the first sentence or the server's name counts 1 (round 3).
   */
  weakMatch: number
  /**
   * Query expansion from the top results (pseudo-relevance feedback): the name and first-sentence
   * terms of the best `docs` matches, weighted by their share of the top score, the best `terms`
   * of them added at `weight`. They only re-rank tools that already match a typed word. 0 = off.
   */
  feedback: FeedbackOptions
  /** stemmed term → alternatives queries are expanded with (synonyms.ts) */
  synonyms: SynonymTable
  /** read requests prefer tools that read, change requests tools that change (intent.ts) */
  intent: IntentOptions
  /**
   * The request's shape (query-form.ts): `locations` reduces paths and URLs to their last segment
   * and host; `files` adds the word "file" after a last segment that is a file name ("notes.md");
   * `clauses` lets the leading action verb of every clause, not only the first, search
   * its synonyms at full weight and say what the request means to do.
   */
  queryForm: { locations: boolean; files: boolean; clauses: boolean }
  /**
   * Index English glosses of the Chinese words in a tool's description and parameters in the
   * `gloss` field (gloss.ts), so an English request finds a tool described in Chinese (round 3).
   */
  gloss: boolean
}

// fieldModel, k, b and feedback were tuned on the dev set only (docs/retrieval.md); the boosts,
// δ and the synonym weights come from the first ranking model, before that tuning, except the
// server's boost (1 → 2), chosen in round 3 on dev and LiveMCPBench's seen tasks, and the glosses
// (field and boost 1), chosen in round 3 on the tuning sets.
export const DEFAULT_OPTIONS: ToolIndexOptions = {
  analyzer: DEFAULT_ANALYZER,
  fieldModel: 'bm25f',
  boost: { name: 3, summary: 1, desc: 0.5, params: 0.5, server: 2, gloss: 1 },
  bm25: { k: 12, b: 0.9, d: 0.5 },
  synonymWeight: 0.5,
  actionElsewhereWeight: 0.1,
  coordination: 'concepts',
  weakMatch: 0.7,
  feedback: { docs: 1, terms: 5, weight: 0.1 },
  synonyms: defaultSynonyms(),
  intent: { weight: 0.5, unhinted: 'unknown' },
  queryForm: { locations: true, files: true, clauses: true },
  gloss: true,
}

interface Doc {
  id: string
  server: string
  /** the text of each field, in FIELDS order; compared to skip unchanged tools on update */
  fields: string[]
  /** what the tool does (intent.ts EFFECT_*), from its call variant */
  effect: number
}

/** Scores are rounded so that float noise from summation order cannot reorder ties. */
const SCORE_PRECISION = 1e6
const MAX_CONCEPTS = 32
// Sort keys: score in micro-units × RANK_SPAN + position in id order, exact below 2^53.
const RANK_SPAN = MAX_SLOTS
const MAX_PACKED_SCORE = Math.floor(Number.MAX_SAFE_INTEGER / RANK_SPAN) - 1

const DESC = FIELDS.indexOf('desc')
const PARAMS = FIELDS.indexOf('params')
const GLOSS = FIELDS.indexOf('gloss')

/**
 * The most of a tool's description, and of its parameters' text, that is indexed. An upstream's
 * text is untrusted and its parameters' descriptions have no cap of their own (a description has
 * limits.max_description_chars, which the user may raise): a run of letters millions long
 * overflowed V8's regular-expression stack in the tokenizer and the glosses (RangeError, the whole
 * server left out of search) and cost a second of the main thread. Real tools stay far below.
 */
export const MAX_INDEXED_CHARS = 65_536

/** `text` cut to MAX_INDEXED_CHARS (never inside a surrogate pair). */
function indexable(text: string): string {
  if (text.length <= MAX_INDEXED_CHARS) return text
  const last = text.charCodeAt(MAX_INDEXED_CHARS - 1)
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? MAX_INDEXED_CHARS - 1 : MAX_INDEXED_CHARS)
}

/** `before`: the tool's document as indexed until now; its glosses are kept when its text is the same (a server re-sends its list unchanged). */
function toDoc(server: string, t: IndexedTool, intent: IntentOptions, gloss: boolean, before?: Doc): Doc {
  const params = indexable(t.paramText ? `${t.paramNames.join(' ')} ${t.paramText}` : t.paramNames.join(' '))
  const desc = indexable(t.description ?? '')
  const same = before !== undefined && before.fields[DESC] === desc && before.fields[PARAMS] === params
  const glosses = !gloss ? '' : same ? before.fields[GLOSS] : `${glossOf(desc)} ${glossOf(params)}`.trim()
  const byField: Record<Field, string> = { name: t.name, summary: firstSentence(desc), desc, params, server, gloss: glosses }
  return { id: t.id, server, fields: FIELDS.map((f) => byField[f]), effect: effectCode(t.variant, t.hinted !== false, intent) }
}

function sameDoc(a: Doc, b: Doc): boolean {
  return a.server === b.server && a.effect === b.effect && a.fields.every((v, i) => v === b.fields[i])
}

function popcount(x: number): number {
  let v = x - ((x >>> 1) & 0x55555555)
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333)
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24
}

export class ToolIndex {
  private readonly options: ToolIndexOptions
  private readonly analyze: (text: string) => string[]
  private readonly analyzeQuery: (text: string) => AnalyzedQuery
  private readonly boosts: number[]
  /** stemmed verb → what a request led by it means to do (intent.ts) */
  private readonly verbs: ReadonlyMap<string, Effect>
  private readonly postings = new Map<string, Posting>()
  /** per slot: the tool id (undefined = free slot) and the distinct terms it was indexed under */
  private readonly slotId: Array<string | undefined> = []
  private readonly slotTerms: Array<string[] | undefined> = []
  /** per slot: the distinct terms of its name and first sentence (feedback expansion draws on them) */
  private readonly slotKeyTerms: Array<string[] | undefined> = []
  /** per slot: what the tool does (intent.ts EFFECT_*) */
  private slotEffect = new Uint8Array(0)
  /** per slot × field: number of distinct terms in the field */
  private fieldLen = new Float64Array(0)
  private readonly fieldLenSum = new Array<number>(F).fill(0)
  private readonly freeSlots: number[] = []
  private live = 0
  /** scratch buffers for scoring, one cell per slot */
  private acc = new Float64Array(0)
  private mask = new Uint32Array(0)
  /** per slot: the bits of the typed words matched in a strong field (field-scoring.ts STRONG_FIELDS) */
  private strong = new Uint32Array(0)
  /** per slot: 1 while a removal batch is in progress */
  private removing = new Uint8Array(0)
  /** live slots in id order (kept sorted on add/remove), and each slot's position in it */
  private sortedSlots: number[] = []
  private idRank = new Int32Array(0)
  private rankDirty = false
  /** bumped on every add/remove: field-length averages changed, cached norms are stale */
  private epoch = 0
  /** learning from use (learned.ts): lifts tools agents called after similar queries; null = off */
  private learned: LearnedUse | null = null
  private clock: () => number = Date.now
  /** server → (tool id → indexed document and its slot) */
  private readonly byServer = new Map<string, Map<string, { doc: Doc; slot: number }>>()
  /** tool id → server that currently owns it */
  private readonly owner = new Map<string, string>()

  constructor(options: Partial<ToolIndexOptions> = {}) {
    this.options = { ...DEFAULT_OPTIONS, ...options }
    this.analyze = makeAnalyzer(this.options.analyzer)
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
    this.removeSlots(removed)
    for (const [id, doc] of next) {
      if (kept.has(id)) continue
      // "server:tool" ids cannot collide across servers; if a caller reuses one, it moves here.
      const otherServer = this.owner.get(id)
      if (otherServer !== undefined && otherServer !== server) this.removeOne(otherServer, id)
      kept.set(id, { doc, slot: this.addDoc(doc) })
      this.owner.set(id, server)
    }
    if (kept.size === 0) this.byServer.delete(server)
    else this.byServer.set(server, kept)
  }

  removeServer(server: string): void {
    const docs = this.byServer.get(server)
    if (!docs) return
    for (const id of docs.keys()) this.owner.delete(id)
    this.removeSlots([...docs.values()].map((e) => e.slot))
    this.byServer.delete(server)
  }

  /** A term's IDF over the whole catalog (its document frequency in the field where it is most common). */
  private idf(term: string): number {
    const df = Math.max(0, ...(this.postings.get(term)?.df ?? [0]))
    return Math.log(1 + (this.live - df + 0.5) / (df + 0.5))
  }

  /** Turns learning from use on (with its records) or off (null). `clock` is for tests. */
  setLearned(learned: LearnedUse | null, clock: () => number = Date.now): void {
    this.learned = learned
    this.clock = clock
  }

  /** The analyzed terms a query is matched (and remembered) by. */
  queryTerms(query: string): string[] {
    return [...new Set(this.analyzeQuery(query).terms)].slice(0, MAX_CONCEPTS)
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
    const form = this.options.queryForm
    const text = form.locations ? reduceLocations(query, form.files) : query
    const analyzed = this.analyzeQuery(text)
    const typed = [...new Set(analyzed.terms)].slice(0, MAX_CONCEPTS)
    if (typed.length === 0 || this.live === 0) return rankedList([])
    const a = this.options.analyzer
    const isStop = a.stopList ? (w: string): boolean => a.stopList?.has(w) === true : isStopWord
    const words = splitIdentifier(text)
    const first = leadingVerb(words, isStop, a.stemWith)
    const lead = new Set(first === undefined ? [] : [first])
    if (form.clauses)
      for (const clause of clauses(text).slice(1)) {
        const verb = leadingVerb(splitIdentifier(clause), isStop, a.stemWith)
        // only a known action verb: a clause may open with a noun ("…, util.h and main.c")
        if (verb !== undefined && (this.verbs.has(verb) || (this.options.synonyms.get(verb)?.action.length ?? 0) > 0)) lead.add(verb)
      }
    const intent = this.options.intent.weight > 0 ? requestEffect(text, words, lead, this.verbs) : undefined
    const weighting = {
      synonym: this.options.synonymWeight,
      actionElsewhere: this.options.synonymWeight > 0 ? this.options.actionElsewhereWeight : 0,
    }
    const { weights, concepts } = expandQuery(typed, lead, weighting, analyzed.compounds, this.options.synonyms)
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
        (slot) => Math.round(this.acc[slot] * this.matched(slot) * SCORE_PRECISION) / SCORE_PRECISION,
        (slot) => this.slotId[slot] as string,
        (slot) => this.slotKeyTerms[slot] ?? [],
        weights,
        fb,
      )
      for (const [term, weight] of expansion) this.accumulate(term, weight, 0, touched)
    }
    if (this.learned && this.learned.size > 0)
      this.applyLifts(
        this.learned.lifts(typed, this.clock(), (t) => this.idf(t)),
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
    for (const slot of touched) top = Math.max(top, this.acc[slot] * this.matched(slot))
    if (top <= 0) return
    for (const [id, lift] of lifts) {
      const server = this.owner.get(id)
      const slot = server === undefined ? undefined : this.byServer.get(server)?.get(id)?.slot
      if (slot === undefined || lift <= 0) continue
      const add = Math.min(lift, LIFT_CAP) * top
      if (this.mask[slot] === 0) {
        touched.push(slot)
        this.mask[slot] = 1 // counts as one matched word, so the rank keeps the added score as is
        this.strong[slot] = 1
      }
      this.acc[slot] += add / this.matched(slot)
    }
  }

  /**
   * The coordination multiplier: the typed words a tool matched, each counting 1 when found in a
   * strong field (name, first sentence, server) and `weakMatch` when found only elsewhere.
   */
  private matched(slot: number): number {
    const all = this.mask[slot]
    const weak = this.options.weakMatch
    if (weak === 1) return popcount(all)
    const strong = this.strong[slot] & all
    return popcount(strong) + weak * popcount(all & ~strong)
  }

  /** Adds one term's score (field-scoring.ts) to the tools that contain it. */
  private accumulate(term: string, weight: number, bits: number, touched: number[]): void {
    const posting = this.postings.get(term)
    if (!posting) return
    const state: ScoringState = {
      live: this.live,
      epoch: this.epoch,
      fieldLen: this.fieldLen,
      fieldLenSum: this.fieldLenSum,
      acc: this.acc,
      mask: this.mask,
      strong: this.strong,
    }
    addTerm(this.options.fieldModel, state, posting, weight, bits, touched, this.options.bm25, this.boosts)
  }

  get size(): number {
    return this.live
  }

  /**
   * Final scores (rounded, so float noise cannot reorder ties) in order: score descending, then
   * id ascending. Sorts packed numeric keys natively — score in micro-units × 2^20 + the slot's
   * position in id order — instead of calling a comparator ~n·log n times.
   */
  private rank(touched: number[], intent: Effect | undefined): RankedHits {
    const acc = this.acc
    const mask = this.mask
    const strong = this.strong
    const slotId = this.slotId
    const effect = this.slotEffect
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
    const byId = this.sortedSlots
    if (this.rankDirty) {
      for (let r = 0; r < byId.length; r++) this.idRank[byId[r]] = r
      this.rankDirty = false
    }
    const idRank = this.idRank
    const keys = new Float64Array(touched.length)
    for (let i = 0; i < touched.length; i++) keys[i] = micro[i] * RANK_SPAN + (RANK_SPAN - 1 - idRank[touched[i]])
    // sorted (all, or the best first) as the hits are read
    return new RankedHits(keys, (key) => {
      const low = key % RANK_SPAN
      return { id: slotId[byId[RANK_SPAN - 1 - low]] as string, score: (key - low) / RANK_SPAN / SCORE_PRECISION }
    })
  }

  /** Position of `id` in sortedSlots (first slot whose id is not less than it). */
  private lowerBound(id: string): number {
    let lo = 0
    let hi = this.sortedSlots.length
    while (lo < hi) {
      const mid = (lo + hi) >>> 1
      if ((this.slotId[this.sortedSlots[mid]] as string) < id) lo = mid + 1
      else hi = mid
    }
    return lo
  }

  private addDoc(doc: Doc): number {
    const slot = this.freeSlots.length > 0 ? (this.freeSlots.pop() as number) : this.slotId.length
    if (slot >= MAX_SLOTS) throw new Error(`search index full: more than ${MAX_SLOTS} tools`)
    if (slot === this.slotId.length) {
      this.slotId.push(undefined)
      this.slotTerms.push(undefined)
      this.slotKeyTerms.push(undefined)
      this.ensureCapacity(slot + 1)
    }
    // term → packed (field, tf) counts for this document
    const counts = new Map<string, number[]>()
    for (let f = 0; f < F; f++) {
      const terms = this.analyze(doc.fields[f])
      const distinct = new Set(terms)
      this.fieldLen[slot * F + f] = distinct.size
      this.fieldLenSum[f] += distinct.size
      for (const term of terms) {
        let perField = counts.get(term)
        if (!perField) counts.set(term, (perField = new Array<number>(F).fill(0)))
        perField[f]++
      }
    }
    for (const [term, perField] of counts) {
      let posting = this.postings.get(term)
      if (!posting) this.postings.set(term, (posting = { entries: [], df: new Array<number>(F).fill(0), docs: 0, norm: [], epoch: -1 }))
      posting.docs++
      for (let f = 0; f < F; f++) {
        if (perField[f] === 0) continue
        posting.entries.push((slot << SLOT_SHIFT) | (f << TF_BITS) | Math.min(perField[f], MAX_TF))
        posting.df[f]++
      }
    }
    this.slotId[slot] = doc.id
    this.slotEffect[slot] = doc.effect
    this.slotTerms[slot] = [...counts.keys()]
    this.slotKeyTerms[slot] = [...counts].filter(([, perField]) => perField[0] > 0 || perField[1] > 0).map(([t]) => t)
    this.sortedSlots.splice(this.lowerBound(doc.id), 0, slot)
    this.rankDirty = true
    this.epoch++
    this.live++
    return slot
  }

  /** Removes documents; each affected posting list is compacted once, however many go. */
  private removeSlots(slots: number[]): void {
    const gone: number[] = []
    const flag = this.removing
    const terms = new Set<string>()
    for (const slot of slots) {
      const slotTerms = this.slotTerms[slot]
      if (!slotTerms || flag[slot] === 1) continue
      flag[slot] = 1
      gone.push(slot)
      for (const t of slotTerms) terms.add(t)
    }
    if (gone.length === 0) return
    for (const term of terms) {
      const posting = this.postings.get(term)
      if (!posting) continue
      const entries = posting.entries
      let w = 0
      let lastGone = -1
      for (let j = 0; j < entries.length; j++) {
        const e = entries[j]
        const slot = e >>> SLOT_SHIFT
        if (flag[slot] === 1) {
          posting.df[(e >>> TF_BITS) & FIELD_MASK]--
          if (slot !== lastGone) posting.docs-- // a document's entries are adjacent
          lastGone = slot
        } else entries[w++] = e
      }
      entries.length = w
      posting.epoch = -1
      if (w === 0) this.postings.delete(term)
    }
    this.sortedSlots = this.sortedSlots.filter((slot) => flag[slot] !== 1)
    this.rankDirty = true
    for (const slot of gone) {
      flag[slot] = 0
      for (let f = 0; f < F; f++) {
        this.fieldLenSum[f] -= this.fieldLen[slot * F + f]
        this.fieldLen[slot * F + f] = 0
      }
      this.slotId[slot] = undefined
      this.slotEffect[slot] = EFFECT_UNKNOWN
      this.slotTerms[slot] = undefined
      this.slotKeyTerms[slot] = undefined
      this.freeSlots.push(slot)
      this.live--
    }
    this.epoch++
  }

  private removeOne(server: string, id: string): void {
    const docs = this.byServer.get(server)
    const entry = docs?.get(id)
    if (!docs || !entry) return
    this.removeSlots([entry.slot])
    docs.delete(id)
    this.owner.delete(id)
    if (docs.size === 0) this.byServer.delete(server)
  }

  private ensureCapacity(slots: number): void {
    if (slots <= this.acc.length) return
    const cap = Math.max(64, this.acc.length * 2, slots)
    const grow = <T extends Float64Array | Uint32Array | Uint8Array | Int32Array>(old: T, make: (n: number) => T, stride: number): T => {
      const next = make(cap * stride)
      next.set(old)
      return next
    }
    this.acc = grow(this.acc, (m) => new Float64Array(m), 1)
    this.mask = grow(this.mask, (m) => new Uint32Array(m), 1)
    this.strong = grow(this.strong, (m) => new Uint32Array(m), 1)
    this.removing = grow(this.removing, (m) => new Uint8Array(m), 1)
    this.idRank = grow(this.idRank, (m) => new Int32Array(m), 1)
    this.slotEffect = grow(this.slotEffect, (m) => new Uint8Array(m), 1)
    this.fieldLen = grow(this.fieldLen, (m) => new Float64Array(m), F)
  }
}
