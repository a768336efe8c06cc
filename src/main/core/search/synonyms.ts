// Query-side synonyms: a small, general table of words that tool authors and tool users use
// interchangeably. A query term also searches for the other members of its groups, at a lower
// weight than the word the user typed, so an exact match still ranks first.
//
// What belongs here (see docs/retrieval.md): near-synonym sets for the action verbs that start
// most tool names and descriptions (create/add/new, delete/remove, list/show, get/read/fetch,
// update/edit/change, search/find, run/execute, stop/kill, …), and a few resource nouns with
// common everyday or abbreviated forms (folder/directory, document/file, repo/repository,
// picture/image). Nothing that names one product's tools, and nothing taken from a test query.
//
// The vocabulary rule (docs/retrieval.md): every entry here, in the stop list (tokenize.ts) and
// among the stemming rules (stem.ts) carries its provenance (a dictionary, a stemmer's rule,
// common usage in software). An entry is removed only when a held-out set shows that it harms
// (bench/retrieval-vocab.mjs: over the held-out sets it loses more top-5 queries than it gains);
// "only dev needs it" is no evidence, since no held-out set may have asked for it yet. A first tuning
// removed entries on that ground; a later review re-judged each on the vocabulary-gap sets and restored
// every one that no held-out set shows to harm (marked "restored" below).

import { stem } from './stem'

/** An action group holds verbs; a thing group holds nouns, adjectives and quantities. */
export interface SynonymGroup {
  kind: 'action' | 'thing'
  words: readonly string[]
}

const action = (...words: string[]): SynonymGroup => ({ kind: 'action', words })
const thing = (...words: string[]): SynonymGroup => ({ kind: 'thing', words })

// One line per group: the words, then where they come from. "MCP verbs" = the operation opens
// tool names across the reference servers and livemcptool (get 145, list 29, generate 27,
// search 26, create 20, add 19, read 18, delete 12, fetch 10, write 7, diff 7, convert 6, find 6,
// edit 5, move 5, …); the other members are that sense's synonyms in WordNet 3.1 or the usual
// software spelling.
export const SYNONYM_GROUPS: readonly SynonymGroup[] = [
  // MCP verbs create/add/generate/build; WordNet create.v (make), insert.v (add); restored:
  // define (to define a table or type is to create it: SQL's data definition language), attach
  // (attach a file or label = add it), append (WordNet append.v "add to the very end")
  action('create', 'add', 'new', 'make', 'generate', 'build', 'insert', 'initialize', 'define', 'attach', 'append'),
  // MCP verb delete; WordNet delete.v/remove.v/erase.v; SQL drop; restored: strip
  // (WordNet strip.v "take away"; strip tags, metadata)
  action('delete', 'remove', 'erase', 'drop', 'destroy', 'purge', 'discard', 'strip'),
  action('list', 'enumerate', 'show', 'display'), // MCP verbs list/show; WordNet list.v (enumerate), show.v (display)
  action('get', 'read', 'fetch', 'retrieve', 'load', 'obtain', 'view', 'open'), // MCP verbs get/read/fetch/load/open/view; WordNet get.v (obtain), retrieve.v
  action('update', 'edit', 'modify', 'change', 'alter', 'amend', 'revise'), // MCP verbs update/edit; WordNet change.v (alter, modify), amend.v, revise.v
  action('search', 'find', 'query', 'lookup', 'look', 'locate', 'seek', 'discover'), // MCP verbs search/find/query; WordNet search.v (look, seek), find.v (locate, discover)
  action('run', 'execute', 'invoke', 'call', 'launch', 'start'), // MCP verbs run/execute/start; WordNet execute.v (run), invoke.v (call), launch.v (start)
  action('stop', 'kill', 'terminate', 'halt', 'abort', 'cancel', 'quit'), // MCP verbs kill/terminate; WordNet stop.v (halt, terminate), abort.v, cancel.v, quit.v
  action('copy', 'duplicate', 'clone'), // MCP verb copy; WordNet copy.v (duplicate), clone as in git
  action('move', 'relocate', 'transfer'), // MCP verb move; WordNet move.v (relocate, transfer)
  action('save', 'store', 'write', 'persist', 'record'), // MCP verbs save/write; WordNet save.v (store), record.v; persist as in databases
  // MCP verb convert; WordNet convert.v (transform); restored: translate (WordNet
  // translate.v "change from one form or medium into another")
  action('convert', 'transform', 'translate'),
  action('compare', 'diff'), // MCP verb diff; WordNet compare.v; diff as in Unix/git
  action('send', 'post', 'submit', 'publish'), // MCP verbs send/post; WordNet submit.v, publish.v
  action('summarize', 'summary', 'overview'), // MCP verb summarize; WordNet summary.n (overview)
  thing('folder', 'directory', 'dir'), // file-system vocabulary: the everyday and the technical word, and its abbreviation
  thing('subfolder', 'subdirectory'), // same, one level down
  thing('file', 'document'), // WordNet document.n / file.n, used interchangeably for stored files
  thing('picture', 'image', 'photo'), // WordNet picture.n (image, photo)
  thing('repository', 'repo'), // common abbreviation (git)
  thing('database', 'db'), // common abbreviation
  thing('config', 'configuration', 'settings'), // common abbreviation; WordNet configuration.n (settings)
  thing('website', 'site', 'webpage'), // WordNet web site.n (site), web page
  thing('info', 'information'), // common abbreviation
  thing('history', 'log'), // restored: WordNet log.n "a written record of events"; git log, changelog
  thing('multiple', 'several', 'many'), // restored: WordNet multiple.s, several.s, many.s
  thing('size', 'large', 'big'), // restored: WordNet large.a / big.a "above average in size"
  // File formats by their extension and the name tools use for them (round 3): .xlsx/.xls are
  // Excel workbooks (IANA application/vnd.ms-excel, Office Open XML SpreadsheetML; WordNet
  // spreadsheet.n), .pptx PowerPoint presentations (…presentationml.presentation)
  thing('xlsx', 'xls', 'excel', 'spreadsheet'),
  thing('pptx', 'ppt', 'powerpoint', 'presentation'),
]

export interface Alternatives {
  action: readonly string[]
  thing: readonly string[]
}

/** stemmed term → stemmed alternatives, by the kind of group they come from */
export type SynonymTable = ReadonlyMap<string, Alternatives>

/** Builds the lookup table of a list of groups (membership by stem; groups are symmetric). */
export function buildTable(groups: readonly SynonymGroup[], stemWith: (word: string) => string = stem): SynonymTable {
  const table = new Map<string, { action: Set<string>; thing: Set<string> }>()
  for (const group of groups) {
    const stems = [...new Set(group.words.map((w) => stemWith(w)))]
    for (const s of stems) {
      let alts = table.get(s)
      if (!alts) table.set(s, (alts = { action: new Set(), thing: new Set() }))
      for (const other of stems) if (other !== s) alts[group.kind].add(other)
    }
  }
  return new Map([...table].map(([k, v]) => [k, { action: [...v.action].sort(), thing: [...v.thing].sort() }]))
}

let defaultTable: SynonymTable | null = null
/** The table of SYNONYM_GROUPS, built on first use. */
export function defaultSynonyms(): SynonymTable {
  defaultTable ??= buildTable(SYNONYM_GROUPS)
  return defaultTable
}

/** The stemmed alternatives of a stemmed term (empty when it has none). */
export function synonymsOf(term: string, table: SynonymTable = defaultSynonyms()): readonly string[] {
  const alts = table.get(term)
  return alts ? [...alts.action, ...alts.thing] : []
}

export interface ExpansionWeights {
  /** weight of a synonym of a thing word, or of the request's leading verb */
  synonym: number
  /** weight of an action synonym for a word elsewhere in the query (often a noun: "changes") */
  actionElsewhere: number
}

export interface ExpandedQuery {
  /** term → weight (typed terms 1) */
  weights: Map<string, number>
  /** term → the typed terms it stands for (a typed term stands for itself) */
  concepts: Map<string, string[]>
}

/**
 * Expands analyzed query terms with their synonyms. `leadTerm` is the request's leading verb
 * (see leadingVerb): action synonyms apply to it at full synonym weight and to other words at
 * `actionElsewhere`, because further into a request the same words are mostly nouns or
 * adjectives ("record my staged changes", "a different branch").
 */
export function expandQuery(
  terms: readonly string[],
  leadTerm: string | undefined | ReadonlySet<string>,
  w: ExpansionWeights,
  compounds: ReadonlyArray<{ term: string; parts: readonly string[] }> = [],
  table: SynonymTable = defaultSynonyms(),
): ExpandedQuery {
  const weights = new Map<string, number>()
  const concepts = new Map<string, string[]>()
  const standFor = (term: string, concept: string): void => {
    const list = concepts.get(term)
    if (!list) concepts.set(term, [concept])
    else if (!list.includes(concept)) list.push(concept)
  }
  for (const t of terms) {
    weights.set(t, 1)
    standFor(t, t)
  }
  for (const { term, parts } of compounds) {
    // the parts of a camel-cased word stand for the word, at full weight
    for (const p of parts) {
      weights.set(p, 1)
      standFor(p, term)
    }
  }
  for (const t of new Set(terms)) {
    const alts = table.get(t)
    if (!alts) continue
    const add = (alt: string, weight: number): void => {
      if (weight <= 0) return
      if ((weights.get(alt) ?? 0) < weight) weights.set(alt, weight)
      standFor(alt, t)
    }
    for (const alt of alts.thing) add(alt, w.synonym)
    const leads = typeof leadTerm === 'string' ? t === leadTerm : leadTerm?.has(t) === true
    for (const alt of alts.action) add(alt, leads ? w.synonym : w.actionElsewhere)
  }
  return { weights, concepts }
}

// Words that open a request before its verb: "I want to…", "help me…", "how do I…".
const LEAD_INS: ReadonlySet<string> = new Set(['want', 'need', 'like', 'help', 'let', 'try', 'how', 'please', 'able'])

/**
 * The stem of a request's leading verb: its first word that is not a stop word, a lead-in
 * ("want", "need", "help") or an -ly adverb ("permanently record …"). Undefined if none.
 */
export function leadingVerb(words: readonly string[], isStop: (word: string) => boolean, stemWith: (word: string) => string = stem): string | undefined {
  for (const word of words) {
    if (word.length < 2 || isStop(word) || LEAD_INS.has(word)) continue
    if (word.length > 4 && word.endsWith('ly')) continue
    return stemWith(word)
  }
  return undefined
}
