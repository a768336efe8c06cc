// English stemming for the index and queries: the Porter stemmer (M.F. Porter, 1980) from the
// maintained `stemmer` package, plus two extensions that can be switched off. Words shorter than 3
// letters, and anything that is not plain a–z (digits, non-Latin scripts), pass through unchanged.
//
// Vocabulary rule (docs/retrieval.md, "The vocabulary rule"): an extension, like a synonym or a
// stop word, is removed only when a held-out set shows that it harms. A first tuning removed both
// extensions because no held-out set of its own moved; a later review re-judged them on the
// vocabulary-gap sets (bench/retrieval-vocab.mjs) — see SHIPPED_STEM_RULES for the verdicts.
import { stemmer } from 'stemmer'

const ASCII_WORD = /^[a-z]+$/
const CACHE_LIMIT = 50_000

export interface StemRules {
  /**
   * Strip the derivational suffix "-ship" first when the rest is long enough (relationship →
   * relation, ownership → owner). Provenance: the Lovins (1968) and Paice/Husk (Lancaster, 1990)
   * stemmers strip it; Porter keeps it.
   */
  ship: boolean
  /**
   * Keep a 3-letter stem with a doubled last consonant whole when -ed/-ing comes off (added,
   * adding → add, like adds → add; plain Porter gives "ad"). Provenance: "add" is among the most
   * common verbs that open MCP tool names (19 in the two corpora); Porter's step 1b undoubles it.
   */
  shortStems: boolean
}

function isConsonant(w: string, i: number): boolean {
  const c = w[i]
  if (c === 'a' || c === 'e' || c === 'i' || c === 'o' || c === 'u') return false
  if (c === 'y') return i === 0 ? true : !isConsonant(w, i - 1)
  return true
}

/** Porter's m(): the number of vowel-consonant sequences in w ("[C](VC)^m[V]"). */
function measure(w: string): number {
  let n = 0
  let i = 0
  while (i < w.length && isConsonant(w, i)) i++
  while (i < w.length) {
    while (i < w.length && !isConsonant(w, i)) i++
    if (i >= w.length) break
    n++
    while (i < w.length && isConsonant(w, i)) i++
  }
  return n
}

function stripShip(w: string): string {
  const cut = w.endsWith('ships') ? 5 : w.endsWith('ship') ? 4 : 0
  if (cut === 0) return w
  const rest = w.slice(0, -cut)
  return rest.length >= 4 && measure(rest) >= 2 ? rest : w
}

/** "added" → "add": the 3-letter stem before Porter's step 1b undoubles it, else null. */
function shortStem(w: string): string | null {
  const cut = w.endsWith('ed') ? 2 : w.endsWith('ing') ? 3 : 0
  if (cut === 0 || w.length - cut !== 3) return null
  const base = w.slice(0, 3)
  const last = base[2]
  if (base[1] !== last || !isConsonant(base, 2) || last === 'l' || last === 's' || last === 'z') return null
  return measure(base) > 0 ? base : null
}

/** A stemming function with the given extensions (cached per function). */
export function makeStem(rules: StemRules): (word: string) => string {
  const cache = new Map<string, string>()
  return (word: string): string => {
    if (word.length < 3 || !ASCII_WORD.test(word)) return word
    const hit = cache.get(word)
    if (hit !== undefined) return hit
    const short = rules.shortStems ? shortStem(word) : null
    const w = short ?? stemmer(rules.ship ? stripShip(word) : word)
    if (cache.size >= CACHE_LIMIT) cache.clear()
    cache.set(word, w)
    return w
  }
}

/** The extensions in use: both restored, since no held-out set shows harm (docs/retrieval.md). */
export const SHIPPED_STEM_RULES: StemRules = { ship: true, shortStems: true }

/** Plain Porter, no extensions (for comparisons). */
export const porter = makeStem({ ship: false, shortStems: false })

/** The stem of a lowercase word, as the index and queries use it. Non a–z words and words under 3 letters pass through. */
export const stem = makeStem(SHIPPED_STEM_RULES)
