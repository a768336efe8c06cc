// English stemming for the index and queries: the Porter stemmer (M.F. Porter, 1980) from the
// maintained `stemmer` package, no local extensions. Words shorter than 3 letters, and anything
// that is not plain a–z (digits, non-Latin scripts), pass through unchanged.
//
// Issue 19 replaced a hand-written Porter with two extensions ("-ship" stripped, 3-letter stems
// kept whole): on the held-out sets the package and both extensions scored identically, so the
// extensions went (docs/retrieval.md has the table).
import { stemmer } from 'stemmer'

const ASCII_WORD = /^[a-z]+$/
const cache = new Map<string, string>()
const CACHE_LIMIT = 50_000

/** Porter stem of a lowercase word. Non a–z words and words under 3 letters pass through. */
export function stem(word: string): string {
  if (word.length < 3 || !ASCII_WORD.test(word)) return word
  const hit = cache.get(word)
  if (hit !== undefined) return hit
  const w = stemmer(word)
  if (cache.size >= CACHE_LIMIT) cache.clear()
  cache.set(word, w)
  return w
}
