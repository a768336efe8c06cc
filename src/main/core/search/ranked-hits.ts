// The hits of one search in rank order, made as they are read. The index packs each hit into one
// sort key (score, then the tool's place in id order; every key differs), and a search at 5,000
// tools matches about a thousand of them, while retrieve_tools reads the first page and stops.
// Sorting every key (a typed-array sort: most of the index's ranking time) and making a hit object
// for each was the largest single cost of a search at that size (docs/benchmarks.md, "The search
// path at 5,000 tools"). Reading in order selects the best keys first (one pass with a small heap)
// and sorts the rest only when a reader goes past them; the order is the full sort's, key for key.

/** A hit of the index: the tool's id and its final score. */
export interface SearchHit {
  id: string
  score: number
}

/** The `k` largest of `keys`, largest first (`keys` is left as it was). */
export function topKeys(keys: Float64Array, k: number): Float64Array {
  const n = keys.length
  if (k >= n) return keys.slice().sort().reverse()
  if (k <= 0) return new Float64Array(0)
  // a min-heap of the k largest so far: heap[0] is the smallest of them
  const heap = keys.slice(0, k)
  for (let i = (k >> 1) - 1; i >= 0; i--) siftDown(heap, i)
  for (let i = k; i < n; i++) {
    if (keys[i] <= heap[0]) continue
    heap[0] = keys[i]
    siftDown(heap, 0)
  }
  return heap.sort().reverse()
}

function siftDown(heap: Float64Array, from: number): void {
  const n = heap.length
  const x = heap[from]
  let i = from
  for (;;) {
    let c = 2 * i + 1
    if (c >= n) break
    if (c + 1 < n && heap[c + 1] < heap[c]) c++
    if (heap[c] >= x) break
    heap[i] = heap[c]
    i = c
  }
  heap[i] = x
}

/**
 * A search's hits, best first. `keys` are the packed sort keys (larger ranks first, all
 * different); `hitOf` unpacks one. Read it before the index changes (the keys name places in the
 * index's id order of the moment): retrieve() reads it at once.
 */
export class RankedHits implements Iterable<SearchHit> {
  constructor(
    private readonly keys: Float64Array,
    private readonly hitOf: (key: number) => SearchHit,
  ) {}

  get length(): number {
    return this.keys.length
  }

  /** Every hit, best first. */
  all(): SearchHit[] {
    const keys = this.keys.sort()
    const hits = new Array<SearchHit>(keys.length)
    for (let i = keys.length - 1, o = 0; i >= 0; i--, o++) hits[o] = this.hitOf(keys[i])
    return hits
  }

  /**
   * The hits in order, the first `first` of them from a selection of the best keys; a reader that
   * goes on past them gets the rest from a sort of all keys (the same order).
   */
  *inOrder(first: number): Generator<SearchHit> {
    const keys = this.keys
    if (first * 2 < keys.length) {
      const top = topKeys(keys, first)
      for (let i = 0; i < top.length; i++) yield this.hitOf(top[i])
      keys.sort()
      for (let i = keys.length - 1 - top.length; i >= 0; i--) yield this.hitOf(keys[i])
      return
    }
    keys.sort()
    for (let i = keys.length - 1; i >= 0; i--) yield this.hitOf(keys[i])
  }

  [Symbol.iterator](): Generator<SearchHit> {
    return this.inOrder(FIRST_PAGE)
  }
}

/** How many hits the first selection takes when the reader does not say (two pages of retrieve_tools' default). */
export const FIRST_PAGE = 32

/** Hits that are already in order (the comparator sort for scores too large to pack). */
export function rankedList(hits: SearchHit[]): RankedHits {
  const keys = new Float64Array(hits.length)
  for (let i = 0; i < hits.length; i++) keys[i] = hits.length - i
  return new RankedHits(keys, (key) => hits[hits.length - key])
}
