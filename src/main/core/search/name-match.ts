// Name-only matching for tools whose descriptions are untrusted (quarantined server, tool
// pending approval): only the tool's name is compared with the query, never its description.
//
// The tool name is split into words the way the index splits it (splitIdentifier). A query word
// counts when it has 2+ characters, is not a stop word, and either equals a name word, has the
// same stem as a name word ("deleting" ~ delete), or is a substring of the lowercased name
// ("repo" in "delete_repository"). The score is the number of distinct query words that count.

import { splitIdentifier, isStopWord } from './tokenize'
import { stem } from './stem'

export function nameMatchScore(query: string, toolName: string): number {
  const nameWords = splitIdentifier(toolName)
  if (nameWords.length === 0) return 0
  const lowerName = toolName.normalize('NFKC').toLowerCase()
  const nameSet = new Set(nameWords)
  const nameStems = new Set(nameWords.map(stem))
  let score = 0
  for (const word of new Set(splitIdentifier(query))) {
    if (word.length < 2 || isStopWord(word)) continue
    if (nameSet.has(word) || nameStems.has(stem(word)) || lowerName.includes(word)) score++
  }
  return score
}
