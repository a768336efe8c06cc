// English glosses of the Chinese words in a tool's text, so that a tool described only in Chinese
// ("获取 BBC 新闻…") can be found by an English request ("latest news").
//
// The words come from CC-CEDICT (CC BY-SA 4.0), reduced by scripts/make-cedict-gloss.mjs to
// resources/cedict-gloss.tsv (~138k headwords of 2–8 characters, their first two
// translations). A text is segmented by forward maximum matching (the longest dictionary word at
// each position, the usual dictionary segmentation of Chinese), single characters are skipped
// (too ambiguous alone), and the English words of each match are returned. The index keeps them
// in a field of their own (tool-index.ts), a weak match like the description: a translation is
// evidence of what a tool does, not the author's own words.
//
// Memory and cost: the table (resources/cedict-gloss.tsv, 3.7 MB, sorted by the headwords' UTF-8
// bytes) is read only when a text holds Chinese script, as one Buffer plus the offsets of its lines
// (~4.3 MB outside the JS heap, a few ms), and looked up by binary search over the bytes (one range
// narrowed per character: longestWord): no
// string or Map per entry (a Map of the 138k entries took ~0.6 s to build and ~20 MB of heap). It
// is dropped RELEASE_MS after its last use, so a catalog without Chinese never reads it and one
// with Chinese does not hold it at rest.

import fs from 'node:fs'
import path from 'node:path'
import { appRoot } from '../paths'

const HAS_CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu
/** the longest headword in the table (make-cedict-gloss.mjs) */
const MAX_WORD = 8
/** Chinese characters glossed per text at most: an upstream's text is untrusted, its cost bounded */
export const MAX_GLOSSED_CHARS = 2000
const RELEASE_MS = 30_000
const TAB = 0x09
const NEWLINE = 0x0a
const COMMENT = 0x23 // '#'

export const GLOSS_FILE = (): string => path.join(appRoot(), 'resources', 'cedict-gloss.tsv')

interface Table {
  bytes: Buffer
  /** byte offset of each entry line, in the file's (sorted) order */
  starts: Int32Array
  count: number
}

let table: Table | null = null
let releaseTimer: NodeJS.Timeout | null = null
let loadFailed = false

function index(bytes: Buffer): Table {
  let lines = 0
  for (let at = bytes.indexOf(NEWLINE); at >= 0; at = bytes.indexOf(NEWLINE, at + 1)) lines++
  const starts = new Int32Array(lines + 1)
  let count = 0
  let pos = 0
  while (pos < bytes.length) {
    const nl = bytes.indexOf(NEWLINE, pos)
    const end = nl < 0 ? bytes.length : nl
    if (end > pos && bytes[pos] !== COMMENT && bytes.indexOf(TAB, pos) < end) starts[count++] = pos
    pos = end + 1
  }
  return { bytes, starts, count }
}

/** The table, read on first use; empty (search works as without it) if the file is missing. */
function load(): Table {
  if (!table) {
    try {
      table = index(fs.readFileSync(GLOSS_FILE()))
    } catch (err) {
      if (!loadFailed) process.emitWarning(`search: Chinese glosses unavailable (${GLOSS_FILE()}): ${(err as Error).message}`)
      loadFailed = true
      table = { bytes: Buffer.alloc(0), starts: new Int32Array(0), count: 0 }
    }
  }
  if (releaseTimer) clearTimeout(releaseTimer)
  releaseTimer = setTimeout(releaseGlosses, RELEASE_MS)
  releaseTimer.unref()
  return table
}

/**
 * How the entry at byte `start` compares with the prefix `key[from, to)` when cut to its length:
 * < 0 when it sorts before, 0 when it starts with it, > 0 after. The tab ends a headword and sorts
 * below every byte of Chinese text in UTF-8, so a shorter entry sorts before its extensions.
 */
function comparePrefix(bytes: Buffer, start: number, key: Buffer, from: number, to: number): number {
  for (let j = 0; j < to - from; j++) {
    const d = bytes[start + j] - key[from + j]
    if (d !== 0) return d
  }
  return 0
}

/** The first index in [lo, hi) whose entry does not sort before the prefix (`after`: that sorts after it). */
function bound(t: Table, key: Buffer, from: number, to: number, lo: number, hi: number, after: boolean): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const order = comparePrefix(t.bytes, t.starts[mid], key, from, to)
    if (order < 0 || (after && order === 0)) lo = mid + 1
    else hi = mid
  }
  return lo
}

/**
 * The longest headword that starts the text at `at[i]` (2..MAX_WORD characters), as
 * [characters, glosses], or null. The entries starting with the first n characters are one range
 * of the sorted table, narrowed as n grows; the word of n characters, if any, is its first entry.
 * It stops at the first n no entry starts with: a text that matches nothing costs two binary
 * searches per character, where looking up every length on its own cost up to seven.
 */
function longestWord(t: Table, key: Buffer, at: Int32Array, i: number, chars: number): [number, string] | null {
  let lo = 0
  let hi = t.count
  let best: [number, string] | null = null
  for (let len = 2; len <= Math.min(MAX_WORD, chars - i); len++) {
    const from = at[i]
    const to = at[i + len]
    lo = bound(t, key, from, to, lo, hi, false)
    hi = bound(t, key, from, to, lo, hi, true)
    if (lo >= hi) break
    const start = t.starts[lo]
    if (t.bytes[start + (to - from)] === TAB) {
      const nl = t.bytes.indexOf(NEWLINE, start)
      best = [len, t.bytes.toString('utf8', start + (to - from) + 1, nl < 0 ? t.bytes.length : nl)]
    }
  }
  return best
}

/** Drops the table now (it is read again on the next text with Chinese in it). */
export function releaseGlosses(): void {
  table = null
  if (releaseTimer) clearTimeout(releaseTimer)
  releaseTimer = null
}

/** Whether the table is in memory (for tests of the release). */
export function glossesLoaded(): boolean {
  return table !== null
}

/** The English words of the Chinese words in `text`, space-separated; '' when it has none. */
export function glossOf(text: string): string {
  if (!HAS_CJK.test(text)) return ''
  const t = load()
  const out: string[] = []
  let budget = MAX_GLOSSED_CHARS
  for (const m of text.matchAll(CJK_RUN)) {
    const chars = Array.from(m[0]).slice(0, budget)
    budget -= chars.length
    // the run's UTF-8 bytes and where each character starts in them (the lookup keys are slices)
    const key = Buffer.from(chars.join(''))
    const at = new Int32Array(chars.length + 1)
    for (let i = 0; i < chars.length; i++) at[i + 1] = at[i] + Buffer.byteLength(chars[i])
    let i = 0
    while (i < chars.length) {
      const word = longestWord(t, key, at, i, chars.length)
      if (word) out.push(word[1])
      i += word ? word[0] : 1
    }
    if (budget <= 0) break
  }
  return out.join(' ')
}
