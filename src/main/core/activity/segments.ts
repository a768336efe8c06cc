// The activity files on disk: append-only JSONL segments `activity-<first id>.jsonl` in
// <data-dir>/activity/. Listing, reading a segment's lines with their byte offsets (a torn last
// line after a crash is skipped), finding the last id, and deleting by age and total size.
import fs from 'node:fs'
import path from 'node:path'

const NAME_RE = /^activity-(\d{12})\.jsonl$/

export interface SegmentFile {
  name: string
  file: string
  firstId: number
  bytes: number
  /** last write (ms): a segment is only ever appended to, so this is its newest record's time */
  mtimeMs: number
}

export function segmentName(firstId: number): string {
  return `activity-${String(firstId).padStart(12, '0')}.jsonl`
}

/** The segments of a directory, oldest first. */
export function listSegments(dir: string): SegmentFile[] {
  let names: string[]
  try {
    names = fs.readdirSync(dir)
  } catch {
    return []
  }
  const out: SegmentFile[] = []
  for (const name of names) {
    const m = NAME_RE.exec(name)
    if (!m) continue
    const file = path.join(dir, name)
    try {
      const st = fs.statSync(file)
      out.push({ name, file, firstId: Number(m[1]), bytes: st.size, mtimeMs: st.mtimeMs })
    } catch {
      // removed meanwhile
    }
  }
  return out.sort((a, b) => a.firstId - b.firstId)
}

/** Calls `fn` for each complete JSON line of a buffer with its byte offset and length (newline included). */
export function forEachLine(buf: Buffer, fn: (json: unknown, offset: number, length: number) => void): number {
  let skipped = 0
  let start = 0
  while (start < buf.length) {
    let end = buf.indexOf(0x0a, start)
    const complete = end !== -1
    if (!complete) end = buf.length
    if (end > start) {
      let value: unknown
      try {
        value = JSON.parse(buf.toString('utf8', start, end))
      } catch {
        value = undefined
      }
      // a line without its newline is a write cut short by a crash: never trust it
      if (complete && value !== undefined && value !== null && typeof value === 'object') fn(value, start, end + 1 - start)
      else skipped++
    }
    start = end + 1
  }
  return skipped
}

const TAIL_BYTES = 64 * 1024

function readTail(file: string, size: number, bytes: number): Buffer {
  const fd = fs.openSync(file, 'r')
  try {
    const start = Math.max(0, size - bytes)
    const buf = Buffer.alloc(size - start)
    const n = fs.readSync(fd, buf, 0, buf.length, start)
    const tail = buf.subarray(0, n)
    // starting mid-file: the first (partial) line is not a record
    return start === 0 ? tail : tail.subarray(tail.indexOf(0x0a) + 1)
  } finally {
    fs.closeSync(fd)
  }
}

/** The highest record id on disk (0 when there is none). Reads the newest segment's tail. */
export function lastIdOnDisk(segments: SegmentFile[]): number {
  for (let i = segments.length - 1; i >= 0; i--) {
    const seg = segments[i]
    for (const bytes of [TAIL_BYTES, Infinity]) {
      let buf: Buffer
      try {
        buf = readTail(seg.file, seg.bytes, Math.min(bytes, seg.bytes))
      } catch {
        break
      }
      let last = 0
      forEachLine(buf, (v) => {
        const id = Number((v as { id?: unknown }).id)
        if (Number.isSafeInteger(id) && id > last) last = id
      })
      if (last > 0) return last
      if (bytes >= seg.bytes) break
    }
  }
  return 0
}

export interface PruneLimits {
  maxBytes: number
  retentionMs: number
}

/** Deletes segments older than the retention, then the oldest while the total is over maxBytes. Never `keep`. */
export function pruneSegments(segments: SegmentFile[], limits: PruneLimits, now: number, keep: string | null): string[] {
  const removed: string[] = []
  let total = segments.reduce((n, s) => n + s.bytes, 0)
  for (const seg of segments) {
    if (seg.name === keep) continue
    const old = seg.mtimeMs < now - limits.retentionMs
    if (!old && total <= limits.maxBytes) continue
    try {
      fs.unlinkSync(seg.file)
    } catch {
      continue
    }
    total -= seg.bytes
    removed.push(seg.name)
  }
  return removed
}
