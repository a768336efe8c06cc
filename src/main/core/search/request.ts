// What a request asks the search index (tool-index.ts): its typed words (at most MAX_CONCEPTS),
// the leading action verbs of its clauses (query-form.ts), what it means to do (intent.ts), and
// its terms with their synonyms, each weighted and tied to the typed words it stands for (synonyms.ts).
import type { Effect } from './intent'
import { requestEffect } from './intent'
import type { ToolIndexOptions } from './index-options'
import { clauses, reduceLocations } from './query-form'
import { expandQuery, leadingVerb } from './synonyms'
import { isStopWord, splitIdentifier, type AnalyzedQuery } from './tokenize'

/** The most typed words a request is matched by (one bit each in a tool's matched-words mask). */
export const MAX_CONCEPTS = 32

export interface IndexRequest {
  /** the typed words, analyzed, distinct, at most MAX_CONCEPTS */
  typed: string[]
  /** what the request means to do; undefined when intent does not count or it cannot tell */
  intent: Effect | undefined
  /** each term searched (typed words and synonyms) and its weight */
  weights: Map<string, number>
  /** each term → the typed words it stands for */
  concepts: Map<string, string[]>
}

/** The distinct typed words of an analyzed request, at most MAX_CONCEPTS. */
export function typedTerms(analyzed: AnalyzedQuery): string[] {
  return [...new Set(analyzed.terms)].slice(0, MAX_CONCEPTS)
}

/** Reads `query`; null when it has no words to match. `verbs`: stemmed verb → what a request led by it means to do. */
export function readRequest(
  query: string,
  options: ToolIndexOptions,
  analyzeQuery: (text: string) => AnalyzedQuery,
  verbs: ReadonlyMap<string, Effect>,
): IndexRequest | null {
  const form = options.queryForm
  const text = form.locations ? reduceLocations(query, form.files) : query
  const analyzed = analyzeQuery(text)
  const typed = typedTerms(analyzed)
  if (typed.length === 0) return null
  const a = options.analyzer
  const isStop = a.stopList ? (w: string): boolean => a.stopList?.has(w) === true : isStopWord
  const words = splitIdentifier(text)
  const first = leadingVerb(words, isStop, a.stemWith)
  const lead = new Set(first === undefined ? [] : [first])
  if (form.clauses)
    for (const clause of clauses(text).slice(1)) {
      const verb = leadingVerb(splitIdentifier(clause), isStop, a.stemWith)
      // only a known action verb: a clause may open with a noun ("…, util.h and main.c")
      if (verb !== undefined && (verbs.has(verb) || (options.synonyms.get(verb)?.action.length ?? 0) > 0)) lead.add(verb)
    }
  const intent = options.intent.weight > 0 ? requestEffect(text, words, lead, verbs) : undefined
  const weighting = {
    synonym: options.synonymWeight,
    actionElsewhere: options.synonymWeight > 0 ? options.actionElsewhereWeight : 0,
  }
  const { weights, concepts } = expandQuery(typed, lead, weighting, analyzed.compounds, options.synonyms)
  return { typed, intent, weights, concepts }
}
