// How one query term scores the tools that contain it: the posting-list layout of the index and the
// two field models, per-field BM25+ summed with boosts and BM25F (the default).
//
// BM25F (Robertson, Zaragoza & Taylor 2004, "Simple BM25 extension to multiple weighted fields";
// the form in Pérez-Agüera et al. 2010): a term's frequencies in all fields of a tool are first
// length-normalized and boosted, then added, then saturated once, and the IDF counts whole tools:
//   tf~ = Σ_f boost_f · tf_f / (1 − b + b · len_f / avgLen_f)
//   score += weight · IDF(t) · (tf~ · (k + 1) / (tf~ + k) + δ),  IDF = ln(1 + (N − df + ½) / (df + ½))
// The summed model saturates each field on its own, so a word found in the name, the first
// sentence and the description counts three times; BM25F counts it once, more strongly.

export type Field = 'name' | 'summary' | 'desc' | 'params' | 'server' | 'gloss'
export const FIELDS: readonly Field[] = ['name', 'summary', 'desc', 'params', 'server', 'gloss']
export const F = FIELDS.length

// A posting entry packs slot, field and term frequency into one small integer.
export const TF_BITS = 8
export const FIELD_BITS = 3
export const MAX_TF = (1 << TF_BITS) - 1
export const FIELD_MASK = (1 << FIELD_BITS) - 1
export const SLOT_SHIFT = TF_BITS + FIELD_BITS
export const MAX_SLOTS = 1 << (31 - SLOT_SHIFT)

export interface Posting {
  /** slot << 11 | field << 8 | tf, one entry per (document, field) containing the term; a document's entries are adjacent */
  entries: number[]
  /** per field: number of documents whose field contains the term */
  df: number[]
  /** number of documents that contain the term in any field */
  docs: number
  /** per entry: the cached tf part of the field model, valid for `epoch` */
  norm: number[]
  epoch: number
}

export interface BM25Params {
  k: number
  b: number
  d: number
}

export type FieldModel = 'sum' | 'bm25f'

/** What the kernels read from the index: sizes, field lengths, and the scratch they add into. */
export interface ScoringState {
  live: number
  /** bumped whenever the set of documents changes (cached norms are then stale) */
  epoch: number
  /** per slot × field: number of distinct terms */
  fieldLen: Float64Array
  fieldLenSum: readonly number[]
  /** per slot: the score so far, and the bits of the typed words matched */
  acc: Float64Array
  mask: Uint32Array
  /** per slot: the bits of the typed words matched in a strong field (STRONG_FIELDS) */
  strong: Uint32Array
}

/** The fields that say what a tool is (name, first sentence, server); a word found only elsewhere is a weak match. */
const STRONG = [true, true, false, false, true, false]
export const STRONG_FIELDS: readonly Field[] = FIELDS.filter((_, f) => STRONG[f])

const lnIdf = (n: number, df: number): number => Math.log(1 + (n - df + 0.5) / (df + 0.5))

/** b / average length of each field, into `out` */
function lengthWeights(s: ScoringState, b: number, out: Float64Array): void {
  for (let f = 0; f < F; f++) {
    const avg = s.fieldLenSum[f] / s.live
    out[f] = avg > 0 ? b / avg : 0
  }
}

const scratchIdf = new Float64Array(F)
const scratchLen = new Float64Array(F)

/**
 * Adds one term's score, times `weight`, to every tool that contains it, and records the slots it
 * touched first. `bits` are the typed words the term stands for; 0 (a feedback term) only adds to
 * tools already matched. `boosts` are per field (FIELDS order).
 */
export function addTerm(
  model: FieldModel,
  s: ScoringState,
  posting: Posting,
  weight: number,
  bits: number,
  touched: number[],
  bm25: BM25Params,
  boosts: readonly number[],
): void {
  if (model === 'bm25f') addTermF(s, posting, weight, bits, touched, bm25, boosts)
  else addTermSum(s, posting, weight, bits, touched, bm25, boosts)
}

/** Per-field BM25+ (minisearch 7.2's formula: per-field IDF and average length), summed with the boosts. */
function addTermSum(s: ScoringState, posting: Posting, weight: number, bits: number, touched: number[], bm25: BM25Params, boosts: readonly number[]): void {
  const { k, b, d } = bm25
  const n = s.live
  const idfW = scratchIdf
  lengthWeights(s, b, scratchLen)
  for (let f = 0; f < F; f++) {
    const df = posting.df[f]
    idfW[f] = df > 0 && boosts[f] > 0 ? weight * boosts[f] * lnIdf(n, df) : 0
  }
  const entries = posting.entries
  if (posting.epoch !== s.epoch) {
    // the tf part per entry: tf·(k+1) / (tf + k·(1 − b + b·len/avgLen))
    const norm = fresh(posting)
    for (let j = 0; j < entries.length; j++) {
      const e = entries[j]
      const f = (e >>> TF_BITS) & FIELD_MASK
      const tf = e & MAX_TF
      norm[j] = (tf * (k + 1)) / (tf + k * (1 - b + scratchLen[f] * s.fieldLen[(e >>> SLOT_SHIFT) * F + f]))
    }
    posting.epoch = s.epoch
  }
  const norm = posting.norm
  const { acc, mask } = s
  for (let j = 0; j < entries.length; j++) {
    const e = entries[j]
    const w = idfW[(e >>> TF_BITS) & FIELD_MASK]
    if (w === 0) continue
    const slot = e >>> SLOT_SHIFT
    if (mask[slot] === 0) {
      if (bits === 0) continue
      touched.push(slot)
    }
    acc[slot] += w * (d + norm[j])
    mask[slot] = (mask[slot] | bits) >>> 0
    if (STRONG[(e >>> TF_BITS) & FIELD_MASK]) s.strong[slot] = (s.strong[slot] | bits) >>> 0
  }
}

/** BM25F: boosted, length-normalized frequencies added over a tool's fields, saturated once (`k`). */
function addTermF(s: ScoringState, posting: Posting, weight: number, bits: number, touched: number[], bm25: BM25Params, boosts: readonly number[]): void {
  const { k, b, d } = bm25
  const entries = posting.entries
  if (posting.epoch !== s.epoch) {
    // the part per entry: boost · tf / (1 − b + b·len/avgLen)
    lengthWeights(s, b, scratchLen)
    const norm = fresh(posting)
    for (let j = 0; j < entries.length; j++) {
      const e = entries[j]
      const f = (e >>> TF_BITS) & FIELD_MASK
      norm[j] = (boosts[f] * (e & MAX_TF)) / (1 - b + scratchLen[f] * s.fieldLen[(e >>> SLOT_SHIFT) * F + f])
    }
    posting.epoch = s.epoch
  }
  const norm = posting.norm
  const w = weight * lnIdf(s.live, posting.docs)
  const { acc, mask } = s
  let j = 0
  while (j < entries.length) {
    const slot = entries[j] >>> SLOT_SHIFT
    let tf = 0
    let strong = false
    for (; j < entries.length && entries[j] >>> SLOT_SHIFT === slot; j++) {
      tf += norm[j]
      if (STRONG[(entries[j] >>> TF_BITS) & FIELD_MASK]) strong = true
    }
    if (tf <= 0) continue
    if (mask[slot] === 0) {
      if (bits === 0) continue
      touched.push(slot)
    }
    acc[slot] += w * ((tf * (k + 1)) / (tf + k) + d)
    mask[slot] = (mask[slot] | bits) >>> 0
    if (strong) s.strong[slot] = (s.strong[slot] | bits) >>> 0
  }
}

function fresh(posting: Posting): number[] {
  if (posting.norm.length !== posting.entries.length) posting.norm = new Array<number>(posting.entries.length).fill(0)
  return posting.norm
}
