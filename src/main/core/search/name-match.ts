// Name-only matching for tools whose descriptions are untrusted (quarantined server, tool
// pending approval): only the tool's name is compared with the query, never its description.
//
// The tool name is split into words the way the index splits it (splitIdentifier). A query word
// counts when it has 2+ characters, is not a stop word, and either equals a name word, has the
// same stem as a name word ("deleting" ~ delete), or is a substring of the lowercased name
// ("repo" in "delete_repository"). The score is the number of distinct query words that count.

import { splitIdentifier, isStopWord } from './tokenize'
import { stem } from './stem'

interface PreparedName {
  lower: string
  words: Set<string>
  stems: Set<string>
}

// Tool names are few and stable: split and stem each once, not on every query.
const NAME_CACHE_MAX = 50_000
const names = new Map<string, PreparedName | null>()

function prepareName(toolName: string): PreparedName | null {
  let p = names.get(toolName)
  if (p !== undefined) return p
  const words = splitIdentifier(toolName)
  p = words.length === 0 ? null : { lower: toolName.normalize('NFKC').toLowerCase(), words: new Set(words), stems: new Set(words.map(stem)) }
  if (names.size >= NAME_CACHE_MAX) names.clear()
  names.set(toolName, p)
  return p
}

/** Prepares the query once; the returned function scores one tool name (0 = no match). */
export function nameMatcher(query: string): (toolName: string) => number {
  const terms: Array<{ word: string; stem: string }> = []
  for (const word of new Set(splitIdentifier(query))) {
    if (word.length < 2 || isStopWord(word)) continue
    terms.push({ word, stem: stem(word) })
  }
  return (toolName) => {
    if (terms.length === 0) return 0
    const name = prepareName(toolName)
    if (!name) return 0
    let score = 0
    for (const t of terms) if (name.words.has(t.word) || name.stems.has(t.stem) || name.lower.includes(t.word)) score++
    return score
  }
}

export function nameMatchScore(query: string, toolName: string): number {
  return nameMatcher(query)(toolName)
}
