// The activity store: appends one JSON line per record with a synchronous write(2) on an
// O_APPEND file before the caller goes on (so an acknowledged record survives kill -9), rolls
// to a new segment by size and at every start, prunes by age and total size, and answers
// filtered pages newest-first from a compact in-memory index (loaded on first query) that
// points at each record's bytes on disk.
import fs from 'node:fs'
import type { ActivityEvent, ActivityKind, CallOutcome, NewActivityEvent } from '../../../shared/activity'
import { forEachLine, lastIdOnDisk, listSegments, pruneSegments, segmentName, type PruneLimits } from './segments'
import { scrubLegacyDigests } from './legacy-digests'

export interface StoreLimits extends PruneLimits {
  /** a segment is closed and a new one begun past this size */
  segmentBytes: number
}

export interface StoreFilter {
  agent?: string
  server?: string
  /** "server:tool" or a bare tool name */
  tool?: string
  kind?: ActivityKind
  outcome?: CallOutcome
  sinceMs?: number
  /** only records with an id below this */
  before?: number
  limit: number
}

const PRUNE_EVERY_MAX_MS = 3_600_000
// appended only: a record's kind is its index here
const KINDS: ActivityKind[] = ['search', 'call', 'decision', 'start', 'stop', 'read']
// appended only: a record's outcome is its index here ('declined' was missing: filtering by it matched every call)
const OUTCOMES: Array<CallOutcome | undefined> = [undefined, 'ok', 'error', 'blocked', 'timeout', 'cancelled', 'declined']

/** One segment's rows, column by column (numbers only: strings are interned). */
class Rows {
  id: number[] = []
  ts: number[] = []
  offset: number[] = []
  length: number[] = []
  kind: number[] = []
  outcome: number[] = []
  agent: number[] = []
  client: number[] = []
  server: number[] = []
  tool: number[] = []
  toolName: number[] = []
}

interface Segment {
  name: string
  file: string
  bytes: number
  rows: Rows | null
}

type Indexable = Partial<Record<'agent' | 'client' | 'server' | 'tool' | 'kind' | 'outcome' | 'ts' | 'id', unknown>>

export class ActivityStore {
  private readonly segments: Segment[] = []
  private readonly strings = new Map<string, number>([['', 0]])
  private stringList: string[] = ['']
  private current: { seg: Segment; fd: number } | null = null
  private readFds = new Map<string, number>()
  private lastId: number
  private loaded = false
  private closed = false
  private pruneTimer: NodeJS.Timeout | null = null

  constructor(
    readonly dir: string,
    private limits: StoreLimits,
    private readonly readOnly = false,
  ) {
    if (!readOnly) fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    // records from before the argument digest was keyed lose their plain digest (once per data dir)
    if (!readOnly) scrubLegacyDigests(dir, listSegments(dir))
    const files = listSegments(dir)
    this.lastId = lastIdOnDisk(files)
    if (!readOnly) this.prune(Date.now())
    for (const f of listSegments(dir)) this.segments.push({ name: f.name, file: f.file, bytes: f.bytes, rows: null })
    this.schedulePrune()
  }

  setLimits(limits: StoreLimits): void {
    this.limits = limits
    this.prune(Date.now())
    this.schedulePrune()
  }

  /** Age matters while Toolgate runs too: prune every quarter of the retention, at most hourly. */
  private schedulePrune(): void {
    if (this.readOnly) return
    if (this.pruneTimer) clearInterval(this.pruneTimer)
    const every = Math.min(PRUNE_EVERY_MAX_MS, Math.max(1000, this.limits.retentionMs / 4))
    this.pruneTimer = setInterval(() => {
      try {
        this.prune(Date.now())
      } catch {
        // the disk refused (a full disk, a deleted dir): the next append or prune says so
      }
    }, every)
    this.pruneTimer.unref()
  }

  /** Writes the record (an id is assigned) and returns it; throws when the disk refuses. */
  append(record: NewActivityEvent, now = Date.now()): ActivityEvent {
    if (this.readOnly || this.closed) throw new Error('the activity store is closed')
    const id = this.lastId + 1
    const event = { id: String(id), ...record } as ActivityEvent
    const buf = Buffer.from(`${JSON.stringify(event)}\n`, 'utf8')
    const cur = this.current ?? this.openSegment(id)
    const offset = cur.seg.bytes
    let written = 0
    while (written < buf.length) written += fs.writeSync(cur.fd, buf, written, buf.length - written)
    this.lastId = id
    cur.seg.bytes += buf.length
    if (cur.seg.rows) this.index(cur.seg.rows, event, offset, buf.length, now)
    if (cur.seg.bytes >= this.limits.segmentBytes) {
      this.closeCurrent()
      this.prune(now)
    }
    return event
  }

  private openSegment(firstId: number): { seg: Segment; fd: number } {
    const name = segmentName(firstId)
    const file = `${this.dir}/${name}`
    // 'a': O_APPEND. A new segment per start means a record is never appended after a line a crash cut short.
    const fd = fs.openSync(file, 'a', 0o600)
    const seg: Segment = { name, file, bytes: fs.fstatSync(fd).size, rows: this.loaded ? new Rows() : null }
    this.segments.push(seg)
    this.current = { seg, fd }
    return this.current
  }

  private closeCurrent(): void {
    if (!this.current) return
    fs.closeSync(this.current.fd)
    this.current = null
  }

  /**
   * Drops segments past the retention or over the size budget (files and index). The segment being
   * written is closed first when its last record is past the retention (a quiet Toolgate), so it can go too.
   */
  prune(now: number): void {
    if (this.readOnly || this.closed) return
    if (this.current && fs.fstatSync(this.current.fd).mtimeMs < now - this.limits.retentionMs) this.closeCurrent()
    const removed = new Set(pruneSegments(listSegments(this.dir), this.limits, now, this.current?.seg.name ?? null))
    if (!removed.size) return
    for (let i = this.segments.length - 1; i >= 0; i--) {
      const name = this.segments[i].name
      if (!removed.has(name)) continue
      this.segments.splice(i, 1)
      const fd = this.readFds.get(name)
      if (fd !== undefined) fs.closeSync(fd)
      this.readFds.delete(name)
    }
    this.compactStrings()
  }

  /**
   * The interned names (agents pick client names and tool ids) shrink with the records: once the
   * table holds far more names than the records left could use, it is rebuilt from those records.
   */
  private compactStrings(): void {
    const rows = this.segments.reduce((n, seg) => n + (seg.rows?.id.length ?? 0), 0)
    if (this.strings.size <= 4 * rows + 1024) return
    const old = this.stringList
    this.strings.clear()
    this.strings.set('', 0)
    this.stringList = ['']
    for (const seg of this.segments) {
      const r = seg.rows
      if (!r) continue
      for (const col of [r.agent, r.client, r.server, r.tool, r.toolName]) for (let i = 0; i < col.length; i++) col[i] = this.intern(old[col[i]])
    }
  }

  private intern(v: unknown): number {
    if (typeof v !== 'string' || v === '') return 0
    let n = this.strings.get(v)
    if (n === undefined) {
      n = this.strings.size
      this.strings.set(v, n)
      this.stringList.push(v)
    }
    return n
  }

  private index(rows: Rows, e: Indexable, offset: number, length: number, ts?: number): void {
    const id = Number(e.id)
    if (!Number.isSafeInteger(id)) return
    const kind = KINDS.indexOf(e.kind as ActivityKind)
    if (kind < 0) return
    const tool = typeof e.tool === 'string' ? e.tool : ''
    const server = typeof e.server === 'string' ? e.server : ''
    rows.id.push(id)
    rows.ts.push(ts ?? Date.parse(String(e.ts)))
    rows.offset.push(offset)
    rows.length.push(length)
    rows.kind.push(kind)
    // outcome= filters calls only (a read's outcome is not a call's)
    rows.outcome.push(e.kind === 'call' ? Math.max(0, OUTCOMES.indexOf(e.outcome as CallOutcome)) : 0)
    rows.agent.push(this.intern(e.agent))
    rows.client.push(this.intern(e.client))
    rows.server.push(this.intern(server))
    rows.tool.push(this.intern(e.kind === 'decision' && tool ? `${server}:${tool}` : tool))
    rows.toolName.push(this.intern(e.kind === 'decision' ? tool : tool.slice(tool.indexOf(':') + 1)))
  }

  private load(): void {
    if (this.loaded) return
    for (const seg of this.segments) {
      const rows = new Rows()
      let buf: Buffer
      try {
        buf = fs.readFileSync(seg.file)
      } catch {
        buf = Buffer.alloc(0)
      }
      forEachLine(buf, (v, offset, length) => this.index(rows, v as Indexable, offset, length))
      seg.rows = rows
    }
    this.loaded = true
  }

  private read(seg: Segment, offset: number, length: number): ActivityEvent | null {
    let fd = this.readFds.get(seg.name)
    if (fd === undefined) {
      fd = fs.openSync(seg.file, 'r')
      this.readFds.set(seg.name, fd)
    }
    const buf = Buffer.allocUnsafe(length)
    const n = fs.readSync(fd, buf, 0, length, offset)
    try {
      return JSON.parse(buf.toString('utf8', 0, n)) as ActivityEvent
    } catch {
      return null
    }
  }

  /** A page of records, newest first; `more` when older matching records exist. */
  query(f: StoreFilter): { events: ActivityEvent[]; more: boolean } {
    this.load()
    const look = (v: string | undefined): number | undefined => (v === undefined ? undefined : (this.strings.get(v) ?? -1))
    const agent = look(f.agent)
    const server = look(f.server)
    const toolKey = f.tool === undefined ? undefined : look(f.tool)
    const byId = f.tool?.includes(':') ?? false
    const kind = f.kind === undefined ? -1 : KINDS.indexOf(f.kind)
    const outcome = f.outcome === undefined ? -1 : OUTCOMES.indexOf(f.outcome)
    const since = f.sinceMs ?? -Infinity
    const before = f.before ?? Infinity
    const hits: Array<[Segment, number]> = []
    scan: for (let s = this.segments.length - 1; s >= 0; s--) {
      const seg = this.segments[s]
      const r = seg.rows
      if (!r) continue
      for (let i = r.id.length - 1; i >= 0; i--) {
        if (r.id[i] >= before || r.ts[i] < since) continue
        if (kind >= 0 && r.kind[i] !== kind) continue
        if (outcome >= 0 && r.outcome[i] !== outcome) continue
        if (server !== undefined && r.server[i] !== server) continue
        if (toolKey !== undefined && (byId ? r.tool[i] : r.toolName[i]) !== toolKey) continue
        if (agent !== undefined && r.agent[i] !== agent && !(r.agent[i] === 0 && r.client[i] === agent)) continue
        hits.push([seg, i])
        if (hits.length > f.limit) break scan
      }
    }
    const events: ActivityEvent[] = []
    for (const [seg, i] of hits.slice(0, f.limit)) {
      const rows = seg.rows as Rows
      const e = this.read(seg, rows.offset[i], rows.length[i])
      if (e) events.push(e)
    }
    return { events, more: hits.length > f.limit }
  }

  /** Local sessions (records without an agent) by client name, with the time of each one's newest record. */
  localClients(): Map<string, number> {
    this.load()
    const out = new Map<string, number>()
    for (const seg of this.segments) {
      const r = seg.rows
      if (!r) continue
      for (let i = 0; i < r.id.length; i++) {
        if (r.agent[i] !== 0 || r.client[i] === 0) continue
        const name = this.stringList[r.client[i]]
        if ((out.get(name) ?? -Infinity) < r.ts[i]) out.set(name, r.ts[i])
      }
    }
    return out
  }

  /** How many distinct names (agents, clients, servers, tools) the index holds: bounded by the records kept. */
  internedNames(): number {
    return this.strings.size
  }

  /** Records on disk in this store's index (loads it). */
  count(): number {
    this.load()
    return this.segments.reduce((n, s) => n + (s.rows?.id.length ?? 0), 0)
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    if (this.pruneTimer) clearInterval(this.pruneTimer)
    this.closeCurrent()
    for (const fd of this.readFds.values()) fs.closeSync(fd)
    this.readFds.clear()
  }
}
