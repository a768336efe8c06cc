// A small word-level diff (longest common subsequence over words and the spaces between them),
// enough to highlight what changed in a tool description.
export type DiffPart = { op: 'same' | 'del' | 'add'; text: string }

/** Tokens are runs of non-space and runs of space, so joining them restores the text. */
export function tokenize(text: string): string[] {
  return text.match(/\s+|[^\s]+/g) ?? []
}

const MAX_CELLS = 400_000

export function diffWords(before: string, after: string): DiffPart[] {
  const a = tokenize(before)
  const b = tokenize(after)
  // trim the common prefix and suffix: most edits are local, and it keeps the table small
  let start = 0
  while (start < a.length && start < b.length && a[start] === b[start]) start++
  let endA = a.length
  let endB = b.length
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--
    endB--
  }
  const parts: DiffPart[] = []
  push(parts, 'same', a.slice(0, start).join(''))
  const midA = a.slice(start, endA)
  const midB = b.slice(start, endB)
  if (midA.length * midB.length > MAX_CELLS) {
    push(parts, 'del', midA.join(''))
    push(parts, 'add', midB.join(''))
  } else {
    for (const p of lcsDiff(midA, midB)) push(parts, p.op, p.text)
  }
  push(parts, 'same', a.slice(endA).join(''))
  return absorbLoneSpaces(parts)
}

/** "old words" + " " + "new words": a lone space between two changes joins them into one highlight. */
function absorbLoneSpaces(parts: DiffPart[]): DiffPart[] {
  const out: DiffPart[] = []
  parts.forEach((p, k) => {
    const prev = parts[k - 1]
    const next = parts[k + 1]
    if (p.op === 'same' && /^\s+$/.test(p.text) && prev && next && prev.op !== 'same' && next.op !== 'same') {
      push(out, 'del', p.text)
      push(out, 'add', p.text)
    } else {
      push(out, p.op, p.text)
    }
  })
  return out
}

function lcsDiff(a: string[], b: string[]): DiffPart[] {
  const n = a.length
  const m = b.length
  // lengths[i][j] = LCS of a[i..] and b[j..]
  const lengths: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1))
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[i][j] = a[i] === b[j] ? lengths[i + 1][j + 1] + 1 : Math.max(lengths[i + 1][j], lengths[i][j + 1])
    }
  }
  const out: DiffPart[] = []
  let i = 0
  let j = 0
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ op: 'same', text: a[i] })
      i++
      j++
    } else if (lengths[i + 1][j] >= lengths[i][j + 1]) {
      out.push({ op: 'del', text: a[i++] })
    } else {
      out.push({ op: 'add', text: b[j++] })
    }
  }
  while (i < n) out.push({ op: 'del', text: a[i++] })
  while (j < m) out.push({ op: 'add', text: b[j++] })
  return out
}

/** Appends, merging with the previous part of the same kind. */
function push(parts: DiffPart[], op: DiffPart['op'], text: string): void {
  if (!text) return
  const last = parts[parts.length - 1]
  if (last && last.op === op) parts[parts.length - 1] = { op, text: last.text + text }
  else parts.push({ op, text })
}

/** The side of a diff to show under "before" (same + del) or "after" (same + add). */
export function side(parts: DiffPart[], which: 'before' | 'after'): DiffPart[] {
  const drop = which === 'before' ? 'add' : 'del'
  const out: DiffPart[] = []
  for (const p of parts) if (p.op !== drop) push(out, p.op, p.text)
  return out
}
