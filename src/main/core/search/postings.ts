// The storage of the search index (tool-index.ts): each indexed tool in a slot, one packed posting
// list per term (field-scoring.ts: slot, field, term frequency in one number), each field's length
// per slot and summed, the live slots in id order, and the per-slot scratch buffers a search scores
// into. Adding a tool analyzes its fields; removing tools compacts each posting list they were in once.
// The ranking reads its arrays (and scores into the scratch buffers); only this class adds and removes tools.
import type { Doc } from './tool-doc'
import { EFFECT_UNKNOWN } from './intent'
import { F, FIELD_MASK, MAX_SLOTS, MAX_TF, SLOT_SHIFT, TF_BITS, type Posting } from './field-scoring'

export class PostingStore {
  readonly postings = new Map<string, Posting>()
  /** per slot: the tool id (undefined = free slot) and the distinct terms it was indexed under */
  readonly slotId: Array<string | undefined> = []
  private readonly slotTerms: Array<string[] | undefined> = []
  /** per slot: the distinct terms of its name and first sentence (feedback expansion draws on them) */
  readonly slotKeyTerms: Array<string[] | undefined> = []
  /** per slot: what the tool does (intent.ts EFFECT_*) */
  slotEffect = new Uint8Array(0)
  /** per slot × field: number of distinct terms in the field */
  fieldLen = new Float64Array(0)
  readonly fieldLenSum = new Array<number>(F).fill(0)
  private readonly freeSlots: number[] = []
  /** the number of tools indexed */
  live = 0
  /** scratch buffers for scoring, one cell per slot */
  acc = new Float64Array(0)
  mask = new Uint32Array(0)
  /** per slot: the bits of the typed words matched in a strong field (field-scoring.ts STRONG_FIELDS) */
  strong = new Uint32Array(0)
  /** per slot: 1 while a removal batch is in progress */
  private removing = new Uint8Array(0)
  /** live slots in id order (kept sorted on add/remove), and each slot's position in it */
  sortedSlots: number[] = []
  private idRank = new Int32Array(0)
  private rankDirty = false
  /** bumped on every add/remove: field-length averages changed, cached norms are stale */
  epoch = 0

  constructor(private readonly analyze: (text: string) => string[]) {}

  /** Each slot's position in id order (sortedSlots), brought up to date after adds and removals. */
  idRanks(): Int32Array {
    if (this.rankDirty) {
      const byId = this.sortedSlots
      for (let r = 0; r < byId.length; r++) this.idRank[byId[r]] = r
      this.rankDirty = false
    }
    return this.idRank
  }

  /** A term's IDF over the whole catalog (its document frequency in the field where it is most common). */
  idf(term: string): number {
    const df = Math.max(0, ...(this.postings.get(term)?.df ?? [0]))
    return Math.log(1 + (this.live - df + 0.5) / (df + 0.5))
  }

  /** Indexes `doc` in a free slot (or a new one); returns the slot. */
  add(doc: Doc): number {
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
  remove(slots: number[]): void {
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
