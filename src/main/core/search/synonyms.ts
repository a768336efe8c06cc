// Query-side synonyms: a small, general table of words that tool authors and tool users use
// interchangeably. A query term also searches for the other members of its groups, at a lower
// weight than the word the user typed, so an exact match still ranks first.
//
// What belongs here (see docs/retrieval.md): near-synonym sets for the action verbs that start
// most tool names and descriptions (create/add/new, delete/remove, list/show, get/read/fetch,
// update/edit/change, search/find, run/execute, stop/kill, …), and a few resource nouns with
// common everyday or abbreviated forms (folder/directory, document/file, repo/repository,
// picture/image). Nothing that names one product's tools; nothing taken from a test query.

import { stem } from './stem'

/** An action group holds verbs; a thing group holds nouns, adjectives and quantities. */
export interface SynonymGroup {
  kind: 'action' | 'thing'
  words: readonly string[]
}

const action = (...words: string[]): SynonymGroup => ({ kind: 'action', words })
const thing = (...words: string[]): SynonymGroup => ({ kind: 'thing', words })

export const SYNONYM_GROUPS: readonly SynonymGroup[] = [
  action('create', 'add', 'new', 'make', 'generate', 'build', 'define', 'insert', 'attach', 'append', 'initialize'),
  action('delete', 'remove', 'erase', 'drop', 'destroy', 'purge', 'discard', 'strip'),
  action('list', 'enumerate', 'show', 'display'),
  action('get', 'read', 'fetch', 'retrieve', 'load', 'obtain', 'view', 'open'),
  action('update', 'edit', 'modify', 'change', 'alter', 'amend', 'revise'),
  action('search', 'find', 'query', 'lookup', 'look', 'locate', 'seek', 'discover'),
  action('run', 'execute', 'invoke', 'call', 'launch', 'start'),
  action('stop', 'kill', 'terminate', 'halt', 'abort', 'cancel', 'quit'),
  action('copy', 'duplicate', 'clone'),
  action('move', 'relocate', 'transfer'),
  action('save', 'store', 'write', 'persist', 'record'),
  action('convert', 'transform', 'translate'),
  action('compare', 'diff'),
  action('send', 'post', 'submit', 'publish'),
  action('summarize', 'summary', 'overview'),
  thing('folder', 'directory', 'dir'),
  thing('subfolder', 'subdirectory'),
  thing('file', 'document'),
  thing('picture', 'image', 'photo'),
  thing('repository', 'repo'),
  thing('database', 'db'),
  thing('config', 'configuration', 'settings'),
  thing('website', 'site', 'webpage'),
  thing('info', 'information'),
  thing('history', 'log'),
  thing('multiple', 'several', 'many'),
  thing('size', 'large', 'big'),
]

interface Alternatives {
  action: readonly string[]
  thing: readonly string[]
}

/** stemmed term → stemmed alternatives, by the kind of group they come from */
function buildTable(groups: readonly SynonymGroup[]): ReadonlyMap<string, Alternatives> {
  const table = new Map<string, { action: Set<string>; thing: Set<string> }>()
  for (const group of groups) {
    const stems = [...new Set(group.words.map((w) => stem(w)))]
    for (const s of stems) {
      let alts = table.get(s)
      if (!alts) table.set(s, (alts = { action: new Set(), thing: new Set() }))
      for (const other of stems) if (other !== s) alts[group.kind].add(other)
    }
  }
  return new Map([...table].map(([k, v]) => [k, { action: [...v.action].sort(), thing: [...v.thing].sort() }]))
}

const TABLE = buildTable(SYNONYM_GROUPS)

/** The stemmed alternatives of a stemmed term (empty when it has none). */
export function synonymsOf(term: string): readonly string[] {
  const alts = TABLE.get(term)
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
  leadTerm: string | undefined,
  w: ExpansionWeights,
  compounds: ReadonlyArray<{ term: string; parts: readonly string[] }> = [],
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
    const alts = TABLE.get(t)
    if (!alts) continue
    const add = (alt: string, weight: number): void => {
      if (weight <= 0) return
      if ((weights.get(alt) ?? 0) < weight) weights.set(alt, weight)
      standFor(alt, t)
    }
    for (const alt of alts.thing) add(alt, w.synonym)
    for (const alt of alts.action) add(alt, t === leadTerm ? w.synonym : w.actionElsewhere)
  }
  return { weights, concepts }
}

// Words that open a request before its verb: "I want to…", "help me…", "how do I…".
const LEAD_INS: ReadonlySet<string> = new Set(['want', 'need', 'like', 'help', 'let', 'try', 'how', 'please', 'able'])

/**
 * The stem of a request's leading verb: its first word that is not a stop word, a lead-in
 * ("want", "need", "help") or an -ly adverb ("permanently record …"). Undefined if none.
 */
export function leadingVerb(words: readonly string[], isStop: (word: string) => boolean): string | undefined {
  for (const word of words) {
    if (word.length < 2 || isStop(word) || LEAD_INS.has(word)) continue
    if (word.length > 4 && word.endsWith('ly')) continue
    return stem(word)
  }
  return undefined
}
