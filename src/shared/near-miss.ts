// "Did you mean …?" for config keys and names: a key close to a known one is almost always a typo, and a
// misspelled policy key (`disable_tools`, `quarantine`) silently leaves the policy off.
// Close means: the same key up to case and `_`/`-` (`disabledTools`), or at most 1 edit
// (keys of up to 5 letters) / 2 edits (longer keys) apart, counted by Levenshtein distance.

/** Levenshtein distance (insertions, deletions, substitutions), two-row dynamic programming. */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1))
    prev = row
  }
  return prev[b.length]
}

const norm = (k: string): string => k.toLowerCase().replace(/[_-]/g, '')

/** The known key `key` was most likely meant to be, or null when it is not close to any. */
export function nearMiss(key: string, known: readonly string[]): string | null {
  let best: { key: string; d: number } | null = null
  for (const k of known) {
    if (k === key) return null
    const d = norm(k) === norm(key) ? 0 : editDistance(norm(key), norm(k))
    if (!best || d < best.d) best = { key: k, d }
  }
  if (!best) return null
  const allowed = Math.min(norm(key).length, norm(best.key).length) <= 5 ? 1 : 2
  return best.d <= allowed ? best.key : null
}
