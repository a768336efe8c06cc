// Text → words → index terms. One analyzer for tool names, descriptions, parameter names and
// queries, so both sides of a match are normalized the same way:
//   1. NFKC, then split identifiers and prose into words: separators (space, punctuation, `_`,
//      `-`, `.`, `/`, …), camelCase and PascalCase humps, acronym runs ("HTTPServer" → http,
//      server; "URLs" stays one word) and letter/digit boundaries ("base64" → base, 64);
//   2. lowercase;
//   3. drop English function words and contractions (stop words) and single letters, because
//      the index multiplies a tool's score by the number of query words it matched, and a "the"
//      or "my" that happens to match would count like a content word;
//   4. Porter-stem what is left (stem.ts);
//   5. a camel-cased word is also indexed whole ("GitHub" → git, hub, github), so it meets the
//      lowercase spelling ("get_github_trending"); in a query it stays one word (see
//      makeQueryAnalyzer);
//   6. runs of Chinese/Japanese/Korean script (written without spaces) become overlapping
//      character bigrams, the usual way to index CJK text without a dictionary.

import { stem } from './stem'

// Order matters: plural acronyms ("URLs", "IDs"), an acronym before a capitalized word
// ("HTTPServer" → HTTP | Server), a capitalized or lowercase word, an acronym, a number, then any
// other run of letters (scripts without case) with their combining marks.
const WORD = /\p{Lu}{2,}s(?!\p{Ll})|\p{Lu}+(?=\p{Lu}\p{Ll})|\p{Lu}?[\p{Ll}\p{M}]+|[\p{Lu}\p{M}]+|\p{N}+|[\p{Lo}\p{Lm}\p{Lt}\p{M}]+/gu

// The same pattern restricted to ASCII.
const ASCII_WORD = /[A-Z]{2,}s(?![a-z])|[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+/g
const ASCII = /^[\x00-\x7f]*$/

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u
const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu

/**
 * Splits an identifier (or any text) into lowercase words, with no stemming and no stop words:
 * "readFile" → [read, file], "list_directory-with.sizes" → [list, directory, with, sizes],
 * "HTTPServer2" → [http, server, 2].
 */
export function splitIdentifier(name: string): string[] {
  const out: string[] = []
  // Plain ASCII (most tool text) takes an equivalent ASCII-only pattern: several times faster.
  const ascii = ASCII.test(name)
  const text = ascii ? name : name.normalize('NFKC')
  for (const m of text.matchAll(ascii ? ASCII_WORD : WORD)) out.push(m[0].toLowerCase())
  return out
}

// A standard English stop list (function words: articles, pronouns, auxiliaries, prepositions,
// conjunctions, quantifiers), contraction fragments left by splitting on apostrophes
// ("I've" → i, ve), and two words that carry nothing in a catalog of tools ("tool", "tools").
// Content words of any kind — verbs like get/list/create, nouns like file — are NOT here.
// The vocabulary rule of synonyms.ts applies: a word leaves this list only when a held-out set
// shows that dropping it harms (bench/retrieval-vocab.mjs).
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing down during each either etc few for from further ' +
    'had has have having he her here hers herself him himself his how however i if in into is it its ' +
    'itself just me might more most must my myself no nor not of off on once only or other our ours ' +
    'ourselves out over own per please same shall she should so some such than that the their theirs ' +
    'them themselves then there these they this those through to too under until up upon us very via ' +
    'was we were what when where whether which while who whom whose why will with within would yet you ' +
    'your yours yourself yourselves ' +
    // indefinite pronouns and adverbs that only frame a request; all in the SMART stop list (Salton
    // & Buckley; Lewis et al. 2004, RCV1 appendix 11); restored
    'every everything anything something nothing one already also still ever even really ' +
    // emphasizers, adverbs that add emphasis and no content ("simply returns", "actually reads");
    // the emphasizer class of Quirk, Greenbaum, Leech & Svartvik (1985), A Comprehensive Grammar
    // of the English Language, §8.99 (just and really are above): a description's filler
    // must not weigh like a content word
    'actually certainly clearly definitely indeed obviously plainly surely literally honestly frankly simply ' +
    // contraction fragments
    's t d ll m re ve don doesn didn isn aren wasn weren hasn haven hadn won wouldn shouldn couldn ' +
    'can cannot ' +
    // catalog noise
    'tool tools'
  ).split(/\s+/),
)

export function isStopWord(word: string): boolean {
  return STOP_WORDS.has(word)
}

function cjkBigrams(run: string, out: string[]): void {
  const chars = Array.from(run)
  if (chars.length === 1) {
    out.push(chars[0])
    return
  }
  for (let i = 0; i + 1 < chars.length; i++) out.push(chars[i] + chars[i + 1])
}

export interface AnalyzerOptions {
  /** split camelCase, acronyms and letter/digit boundaries (else only on separators) */
  splitCase: boolean
  /** drop stop words */
  stopWords: boolean
  /** Porter-stem */
  stem: boolean
  /** also index a camel-cased word whole ("GitHub" → git, hub, github) */
  catenate: boolean
  /** another stop list than the shipped one (benchmarks re-judge entries with it) */
  stopList?: ReadonlySet<string>
  /** another stemming function than the shipped one (benchmarks re-judge stemming rules with it) */
  stemWith?: (word: string) => string
}

export const DEFAULT_ANALYZER: AnalyzerOptions = { splitCase: true, stopWords: true, stem: true, catenate: true }

const SEPARATED = /[\p{L}\p{M}\p{N}]+/gu
const ASCII_SEPARATED = /[A-Za-z0-9]+/g
/** a chunk that splitIdentifier would return unchanged: lowercase letters only */
const LOWER_ASCII = /^[a-z]+$/

/** Maps one lowercase word to zero or more index terms (stop word → none, CJK → bigrams). */
function wordToTerms(word: string, opts: AnalyzerOptions, out: string[], ascii = false): void {
  if (opts.stopWords && (opts.stopList ?? STOP_WORDS).has(word)) return
  if (!ascii && CJK.test(word)) {
    // A run may mix CJK with other letters ("12306余票" arrives as "12306" and "余票").
    for (const m of word.matchAll(CJK_RUN)) cjkBigrams(m[0], out)
    const rest = word.replace(CJK_RUN, ' ').trim()
    if (rest) for (const w of rest.split(/\s+/)) wordToTerms(w, opts, out)
    return
  }
  // Single letters carry no meaning on their own; single digits can ("2fa" → 2, fa).
  if (opts.stopWords && word.length === 1 && !/\p{N}/u.test(word)) return
  out.push(opts.stem ? (opts.stemWith ?? stem)(word) : word)
}

/** Builds a text → terms function; the defaults are what the index uses (see the file header). */
/** A query's terms; a camel-cased word is one term (its whole form) with its parts alongside. */
export interface AnalyzedQuery {
  terms: string[]
  /** "GitHub" → { term: "github", parts: ["git", "hub"] } */
  compounds: Array<{ term: string; parts: string[] }>
}

function analyze(text: string, opts: AnalyzerOptions, compounds: AnalyzedQuery['compounds'] | null): string[] {
  const out: string[] = []
  // Fast path for plain ASCII (most tool text): no normalization, ASCII-only patterns.
  const ascii = ASCII.test(text)
  const source = ascii ? text : text.normalize('NFKC')
  for (const m of source.matchAll(ascii ? ASCII_SEPARATED : SEPARATED)) {
    const chunk = m[0]
    if (!opts.splitCase || (ascii && LOWER_ASCII.test(chunk))) {
      wordToTerms(chunk.toLowerCase(), opts, out, ascii)
      continue
    }
    const words = splitIdentifier(chunk)
    const start = out.length
    for (const word of words) wordToTerms(word, opts, out, ascii)
    // "GitHub", "YouTube", "arXiv", "readFile": the whole word is indexed too, so that the
    // lowercase spelling ("github" in get_github_trending) matches the camel-cased one.
    if (words.length > 1 && opts.catenate && (ascii || !CJK.test(chunk))) {
      const whole: string[] = []
      wordToTerms(chunk.toLowerCase(), opts, whole, ascii)
      if (!compounds) out.push(...whole)
      else if (whole.length === 1 && out.length > start) {
        // In a query, "PowerPoint" is one word: its whole form is the term, its parts stand in.
        compounds.push({ term: whole[0], parts: out.slice(start) })
        out.length = start
        out.push(whole[0])
      }
    }
  }
  return out
}

/** Builds a text → index terms function; the defaults are what the index uses (file header). */
export function makeAnalyzer(opts: AnalyzerOptions = DEFAULT_ANALYZER): (text: string) => string[] {
  return (text: string): string[] => analyze(text, opts, null)
}

/** Builds the query-side analyzer: like the index's, but a camel-cased word stays one term. */
export function makeQueryAnalyzer(opts: AnalyzerOptions = DEFAULT_ANALYZER): (text: string) => AnalyzedQuery {
  return (text: string): AnalyzedQuery => {
    const compounds: AnalyzedQuery['compounds'] = []
    return { terms: analyze(text, opts, compounds), compounds }
  }
}

const defaultAnalyzer = makeAnalyzer(DEFAULT_ANALYZER)

/** Text → index terms: split like splitIdentifier, drop stop words, stem, CJK bigrams. */
export function tokenize(text: string): string[] {
  return defaultAnalyzer(text)
}

/** The first sentence of a description: what the tool does, before usage notes and caveats. */
export function firstSentence(description: string): string {
  const text = description.trim().replace(/\s+/g, ' ')
  const m = /^(.+?[.!?。！？])(\s|$)/u.exec(text)
  return m ? m[1] : text
}
