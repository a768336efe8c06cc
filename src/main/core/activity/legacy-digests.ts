// Records written before the argument digest was keyed carry a plain SHA-256
// of the arguments (`args_sha256`, and "(arguments SHA-256 …)" in a confirmation's decision
// message), from which a short secret argument such as a 4-digit PIN is found by hashing guesses.
// Once per data dir, before the store reads its segments, they are rewritten without it (each
// segment whole, then renamed into place, keeping its time so retention is unchanged); the
// marker file says it was done.
import fs from 'node:fs'
import path from 'node:path'
import type { SegmentFile } from './segments'

export const KEYED_MARKER = '.args-keyed'
const LEGACY_FIELD = 'args_sha256'
const LEGACY_MESSAGE = /\(arguments SHA-256 [0-9a-f]{64}\)/g
const HAS_LEGACY_MESSAGE = /\(arguments SHA-256 [0-9a-f]{64}\)/

/** One line without the plain digest; lines that do not parse (a torn last line) are kept as they are. */
function scrubLine(line: string): string {
  if (!line.includes(LEGACY_FIELD) && !line.includes('SHA-256')) return line
  let v: Record<string, unknown>
  try {
    v = JSON.parse(line) as Record<string, unknown>
  } catch {
    return line
  }
  if (v === null || typeof v !== 'object') return line
  delete v[LEGACY_FIELD]
  if (typeof v.message === 'string') v.message = v.message.replace(LEGACY_MESSAGE, '(arguments digest removed: it was not keyed)')
  return JSON.stringify(v)
}

/** Rewrites the segments that hold plain digests; returns how many were rewritten. Errors leave a segment as it was (and the marker unwritten: tried again next start). */
export function scrubLegacyDigests(dir: string, segments: readonly SegmentFile[]): number {
  const marker = path.join(dir, KEYED_MARKER)
  if (fs.existsSync(marker)) return 0
  let rewritten = 0
  let failed = false
  for (const seg of segments) {
    try {
      const text = fs.readFileSync(seg.file, 'utf8')
      if (!text.includes(`"${LEGACY_FIELD}"`) && !HAS_LEGACY_MESSAGE.test(text)) continue
      const lines = text.split('\n')
      const out = lines.map((l, i) => (i === lines.length - 1 && l === '' ? l : scrubLine(l))).join('\n')
      const tmp = `${seg.file}.scrub`
      fs.writeFileSync(tmp, out, { mode: 0o600 })
      const st = fs.statSync(seg.file)
      fs.utimesSync(tmp, st.atime, st.mtime)
      fs.renameSync(tmp, seg.file)
      rewritten++
    } catch {
      failed = true
    }
  }
  if (!failed) fs.writeFileSync(marker, '', { mode: 0o600 })
  return rewritten
}
