// The Porter stemmer (M.F. Porter, "An algorithm for suffix stripping", 1980), written from the
// paper's definition: steps 1a–5 over lowercase ASCII words. Words shorter than 3 letters, and
// anything that is not plain a–z (digits, non-Latin scripts), are returned unchanged.
//
// Two documented extensions:
//   - the derivational suffix "-ship" is stripped first from words whose remaining stem is long
//     enough (relationship → relation, ownership → owner): requests and tool descriptions mix the
//     two forms freely and Porter keeps them apart;
//   - step 1b does not undouble a final consonant when that would leave a 2-letter stem, so
//     "added"/"adding" stem to "add" like "add"/"adds" do (plain Porter gives "ad").

const ASCII_WORD = /^[a-z]+$/

function isConsonant(w: string, i: number): boolean {
  const c = w.charCodeAt(i)
  // a e i o u
  if (c === 97 || c === 101 || c === 105 || c === 111 || c === 117) return false
  if (c === 121) return i === 0 ? true : !isConsonant(w, i - 1) // y
  return true
}

/** m(): the number of VC sequences in w[0..end) ("[C](VC)^m[V]"). */
function measure(w: string, end: number): number {
  let n = 0
  let i = 0
  while (i < end && isConsonant(w, i)) i++
  while (i < end) {
    while (i < end && !isConsonant(w, i)) i++
    if (i >= end) break
    n++
    while (i < end && isConsonant(w, i)) i++
  }
  return n
}

function hasVowel(w: string, end: number): boolean {
  for (let i = 0; i < end; i++) if (!isConsonant(w, i)) return true
  return false
}

function endsDoubleConsonant(w: string, end: number): boolean {
  return end >= 2 && w[end - 1] === w[end - 2] && isConsonant(w, end - 1)
}

/** *o: the stem ends consonant-vowel-consonant, the last not w, x or y. */
function endsCvc(w: string, end: number): boolean {
  if (end < 3) return false
  if (!isConsonant(w, end - 1) || isConsonant(w, end - 2) || !isConsonant(w, end - 3)) return false
  const c = w[end - 1]
  return c !== 'w' && c !== 'x' && c !== 'y'
}

/** If w ends with suffix and the stem before it has m() > minM, replace the suffix. */
function replaceIf(w: string, suffix: string, replacement: string, minM: number): string | null {
  if (!w.endsWith(suffix)) return null
  const stemEnd = w.length - suffix.length
  return measure(w, stemEnd) > minM ? w.slice(0, stemEnd) + replacement : w
}

function step1a(w: string): string {
  if (w.endsWith('sses')) return w.slice(0, -2)
  if (w.endsWith('ies')) return w.slice(0, -2)
  if (w.endsWith('ss')) return w
  if (w.endsWith('s')) return w.slice(0, -1)
  return w
}

function step1b(w: string): string {
  if (w.endsWith('eed')) return measure(w, w.length - 3) > 0 ? w.slice(0, -1) : w
  let stem: string | null = null
  if (w.endsWith('ed') && hasVowel(w, w.length - 2)) stem = w.slice(0, -2)
  else if (w.endsWith('ing') && hasVowel(w, w.length - 3)) stem = w.slice(0, -3)
  if (stem === null) return w
  if (stem.endsWith('at') || stem.endsWith('bl') || stem.endsWith('iz')) return stem + 'e'
  if (endsDoubleConsonant(stem, stem.length)) {
    const last = stem[stem.length - 1]
    // Extension: keep 3-letter stems whole, so added/adding stay with add (Porter gives "ad").
    return last === 'l' || last === 's' || last === 'z' || stem.length <= 3 ? stem : stem.slice(0, -1)
  }
  if (measure(stem, stem.length) === 1 && endsCvc(stem, stem.length)) return stem + 'e'
  return stem
}

function step1c(w: string): string {
  return w.endsWith('y') && hasVowel(w, w.length - 1) ? w.slice(0, -1) + 'i' : w
}

const STEP2: ReadonlyArray<readonly [string, string]> = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['izer', 'ize'],
  ['abli', 'able'],
  ['alli', 'al'],
  ['entli', 'ent'],
  ['eli', 'e'],
  ['ousli', 'ous'],
  ['ization', 'ize'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['iveness', 'ive'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['aliti', 'al'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
]

const STEP3: ReadonlyArray<readonly [string, string]> = [
  ['icate', 'ic'],
  ['ative', ''],
  ['alize', 'al'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ful', ''],
  ['ness', ''],
]

const STEP4 = ['al', 'ance', 'ence', 'er', 'ic', 'able', 'ible', 'ant', 'ement', 'ment', 'ent', 'ion', 'ou', 'ism', 'ate', 'iti', 'ous', 'ive', 'ize']

function applyTable(w: string, table: ReadonlyArray<readonly [string, string]>): string {
  // The paper picks the longest matching suffix; no two suffixes in a table end one another
  // except in ways the order above resolves (longer first where it matters).
  for (const [suffix, replacement] of table) {
    const r = replaceIf(w, suffix, replacement, 0)
    if (r !== null) return r
  }
  return w
}

function step4(w: string): string {
  // Longest suffix first ("ement" before "ment" before "ent").
  let best: string | null = null
  for (const suffix of STEP4) {
    if (w.endsWith(suffix) && (best === null || suffix.length > best.length)) best = suffix
  }
  if (best === null) return w
  const stemEnd = w.length - best.length
  if (measure(w, stemEnd) <= 1) return w
  if (best === 'ion') {
    const c = w[stemEnd - 1]
    if (c !== 's' && c !== 't') return w
  }
  return w.slice(0, stemEnd)
}

function step5(w: string): string {
  let out = w
  if (out.endsWith('e')) {
    const m = measure(out, out.length - 1)
    if (m > 1 || (m === 1 && !endsCvc(out, out.length - 1))) out = out.slice(0, -1)
  }
  if (measure(out, out.length) > 1 && endsDoubleConsonant(out, out.length) && out.endsWith('l')) {
    out = out.slice(0, -1)
  }
  return out
}

function stripShip(w: string): string {
  const cut = w.endsWith('ships') ? 5 : w.endsWith('ship') ? 4 : 0
  if (cut > 0) {
    const stem = w.slice(0, -cut)
    if (stem.length >= 4 && measure(stem, stem.length) >= 2) return stem
  }
  return w
}

const cache = new Map<string, string>()
const CACHE_LIMIT = 50_000

/** Porter stem of a lowercase word. Non a–z words and words under 3 letters pass through. */
export function stem(word: string): string {
  if (word.length < 3 || !ASCII_WORD.test(word)) return word
  const hit = cache.get(word)
  if (hit !== undefined) return hit
  let w = stripShip(word)
  w = step1a(w)
  w = step1b(w)
  w = step1c(w)
  w = applyTable(w, STEP2)
  w = applyTable(w, STEP3)
  w = step4(w)
  w = step5(w)
  if (cache.size >= CACHE_LIMIT) cache.clear()
  cache.set(word, w)
  return w
}
