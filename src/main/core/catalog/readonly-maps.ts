// Read-only maps for the catalog's snapshot: a view that offers only the reading half of Map,
// and the id lookup of a snapshot. While the snapshot is the catalog's current one, ids resolve
// through the catalog's flat id map (one lookup); once the catalog has moved on, through the
// snapshot's own immutable per-server parts (an id's server is the text before its first ":",
// server names have none; each part is sorted by tool name). A snapshot never changes.
import type { CatalogEntry } from './catalog'

/** The reading half of a Map over one that nobody else holds. */
export class ReadonlyMapView<K, V> implements ReadonlyMap<K, V> {
  constructor(private readonly map: Map<K, V>) {}
  get size(): number {
    return this.map.size
  }
  get(key: K): V | undefined {
    return this.map.get(key)
  }
  has(key: K): boolean {
    return this.map.has(key)
  }
  forEach(fn: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    for (const [k, v] of this.map) fn.call(thisArg, v, k, this)
  }
  entries(): MapIterator<[K, V]> {
    return this.map.entries()
  }
  keys(): MapIterator<K> {
    return this.map.keys()
  }
  values(): MapIterator<V> {
    return this.map.values()
  }
  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.map.entries()
  }
}

/** The catalog's live id map and its generation (bumped by every refresh). */
export interface FlatIndex {
  readonly byId: ReadonlyMap<string, CatalogEntry>
  readonly generation: number
}

/** Entries by "server:tool" id as of one generation, in server order. */
export class EntriesById implements ReadonlyMap<string, CatalogEntry> {
  constructor(
    private readonly parts: ReadonlyMap<string, readonly CatalogEntry[]>,
    private readonly flat: FlatIndex,
    private readonly generation: number,
  ) {}
  private get current(): boolean {
    return this.flat.generation === this.generation
  }
  get size(): number {
    if (this.current) return this.flat.byId.size
    let n = 0
    for (const p of this.parts.values()) n += p.length
    return n
  }
  get(id: string): CatalogEntry | undefined {
    if (this.current) return this.flat.byId.get(id)
    const i = id.indexOf(':')
    const part = i > 0 ? this.parts.get(id.slice(0, i)) : undefined
    if (!part) return undefined
    const name = id.slice(i + 1)
    let lo = 0
    let hi = part.length - 1
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      const n = part[mid].name
      if (n === name) return part[mid]
      if (n < name) lo = mid + 1
      else hi = mid - 1
    }
    return undefined
  }
  has(id: string): boolean {
    return this.get(id) !== undefined
  }
  forEach(fn: (value: CatalogEntry, key: string, map: ReadonlyMap<string, CatalogEntry>) => void, thisArg?: unknown): void {
    for (const [k, v] of this) fn.call(thisArg, v, k, this)
  }
  *entries(): MapIterator<[string, CatalogEntry]> {
    for (const part of this.parts.values()) for (const e of part) yield [e.id, e]
  }
  *keys(): MapIterator<string> {
    for (const [k] of this.entries()) yield k
  }
  *values(): MapIterator<CatalogEntry> {
    for (const [, v] of this.entries()) yield v
  }
  [Symbol.iterator](): MapIterator<[string, CatalogEntry]> {
    return this.entries()
  }
}
