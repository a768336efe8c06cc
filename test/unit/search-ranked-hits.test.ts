// Hits read in order (ranked-hits.ts): the best keys selected first, the rest sorted only when a
// reader goes past them. Whatever the reader stops at, it saw the full sort's order: checked on
// any set of keys, and on a real index against the documented order (score descending, then id
// ascending), with many tied scores and far more hits than one page.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { RankedHits, topKeys, type SearchHit } from '../../src/main/core/search/ranked-hits'
import { ToolIndex, type IndexedTool } from '../../src/main/core/search/tool-index'

const descending = (xs: readonly number[]): number[] => [...xs].sort((a, b) => b - a)

describe('topKeys', () => {
  it('gives the k largest keys, largest first, and leaves the keys as they were', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: -1e9, max: 1e9 }), { maxLength: 300 }), fc.nat(320), (xs, k) => {
        const keys = Float64Array.from(xs)
        const top = topKeys(keys, k)
        expect([...top]).toEqual(descending(xs).slice(0, k))
        expect([...keys]).toEqual(xs)
      }),
    )
  })
})

describe('RankedHits', () => {
  const ranked = (xs: number[]): RankedHits => new RankedHits(Float64Array.from(xs), (key) => ({ id: `t${key}`, score: key }))

  it('reads every hit in the full order, whatever the first selection', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 1e6 }), { maxLength: 200 }), fc.integer({ min: 1, max: 120 }), (xs, first) => {
        const read = [...ranked(xs).inOrder(first)].map((h) => h.score)
        expect(read).toEqual(descending(xs))
        expect(
          ranked(xs)
            .all()
            .map((h) => h.score),
        ).toEqual(descending(xs))
      }),
    )
  })

  it('a reader that stops early saw the best hits in order, past the first selection too', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 0, max: 1e6 }), { minLength: 1, maxLength: 200 }), fc.nat(8), fc.nat(210), (xs, first, stop) => {
        const read: number[] = []
        for (const h of ranked(xs).inOrder(first + 1)) {
          if (read.length >= stop) break
          read.push(h.score)
        }
        expect(read).toEqual(descending(xs).slice(0, stop))
      }),
    )
  })
})

describe('ToolIndex.ranked', () => {
  // 600 tools over 6 servers, in 5 kinds of text: most hits of a query tie with many others
  const WORDS = ['read', 'file', 'list', 'directory', 'note', 'weather', 'image', 'commit']
  const tools: IndexedTool[] = []
  for (let s = 0; s < 6; s++)
    for (let i = 0; i < 100; i++) {
      const a = WORDS[i % 5]
      const b = WORDS[(i * 3 + s) % WORDS.length]
      tools.push({ id: `srv${s}:${a}_${b}_${i}`, server: `srv${s}`, name: `${a}_${b}_${i}`, description: `The ${a} and ${b} of things.`, paramNames: [b] })
    }
  const index = new ToolIndex()
  for (let s = 0; s < 6; s++)
    index.setServerTools(
      `srv${s}`,
      tools.filter((t) => t.server === `srv${s}`),
    )
  /** the contract's order: score descending, then id ascending */
  const contractOrder = (hits: SearchHit[]): SearchHit[] => [...hits].sort((x, y) => y.score - x.score || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0))

  for (const query of ['read file', 'list the notes', 'weather image commit', 'directory'])
    it(`"${query}": hits read page by page are the search's, in the contract's order`, () => {
      const all = index.search(query)
      expect(all.length).toBeGreaterThan(100) // far more than one selection
      expect(new Set(all.map((h) => h.score)).size).toBeLessThan(all.length / 4) // ties everywhere
      expect(all).toEqual(contractOrder(all))
      for (const page of [1, 10, 32, 64]) {
        const read: SearchHit[] = []
        for (const h of index.ranked(query).inOrder(page)) {
          read.push(h)
          if (read.length === page + 5) break // a reader that goes a little past the first selection
        }
        expect(read).toEqual(all.slice(0, page + 5))
      }
      expect([...index.ranked(query)]).toEqual(all)
    })

  it('a query that matches nothing reads nothing', () => {
    expect([...index.ranked('zzzz qqqq')]).toEqual([])
    expect(index.search('')).toEqual([])
  })
})
