// The activity store on a real temp dir: appends as JSONL, pages newest first with every filter
// and a cursor across segments, survives a torn last line, continues ids after a restart, rolls
// and prunes by size and age, and answers bad queries with the parameter named.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { ActivityEvent, CallOutcome, NewActivityEvent } from '../../src/shared/activity'
import { ActivityStore, type StoreLimits } from '../../src/main/core/activity/store'
import { queryPage } from '../../src/main/core/activity/recorder'
import { ApiError } from '../../src/shared/api'

const dirs: string[] = []
const stores: ActivityStore[] = []
afterEach(() => {
  while (stores.length) stores.pop()!.close()
  while (dirs.length) fs.rmSync(dirs.pop()!, { recursive: true, force: true })
})

const BIG: StoreLimits = { maxBytes: 1e9, retentionMs: 1e12, segmentBytes: 1e9 }

function tmp(): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-activity-'))
  dirs.push(d)
  return path.join(d, 'activity')
}

function open(dir: string, limits = BIG, readOnly = false): ActivityStore {
  const s = new ActivityStore(dir, limits, readOnly)
  stores.push(s)
  return s
}

const T0 = Date.parse('2026-11-26T10:00:00Z')

function call(i: number, o: Partial<{ agent: string | null; client: string | null; tool: string; outcome: CallOutcome; ts: number }> = {}): NewActivityEvent {
  const tool = o.tool ?? 'fs:read_file'
  return {
    kind: 'call',
    ts: new Date(o.ts ?? T0 + i * 1000).toISOString(),
    agent: o.agent === undefined ? 'reader' : o.agent,
    client: o.client === undefined ? 'claude-code' : o.client,
    tool,
    server: tool.split(':')[0],
    variant: 'read',
    outcome: o.outcome ?? 'ok',
    duration_ms: 1,
    args_hmac: 'x'.repeat(64),
  }
}

function segments(dir: string): string[] {
  return fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.jsonl'))
    .sort()
}

describe('activity store', () => {
  it('appends one JSON line per record and pages newest first with a cursor', () => {
    const dir = tmp()
    const s = open(dir)
    for (let i = 0; i < 7; i++) s.append(call(i))
    const lines = fs
      .readFileSync(path.join(dir, segments(dir)[0]), 'utf8')
      .trim()
      .split('\n')
    expect(lines).toHaveLength(7)
    expect(JSON.parse(lines[0])).toMatchObject({ id: '1', kind: 'call', tool: 'fs:read_file' })

    const p1 = s.query({ limit: 3 })
    expect(p1.events.map((e) => e.id)).toEqual(['7', '6', '5'])
    expect(p1.more).toBe(true)
    const p3 = s.query({ limit: 3, before: 2 })
    expect(p3.events.map((e) => e.id)).toEqual(['1'])
    expect(p3.more).toBe(false)
  })

  it('filters by kind, agent (or the client name of an unnamed session), server, tool, outcome and since', () => {
    const s = open(tmp())
    s.append(call(0, { agent: 'reader', tool: 'fs:read_file', outcome: 'ok' }))
    s.append(call(1, { agent: null, client: 'cursor', tool: 'gh:delete_repo', outcome: 'blocked' }))
    s.append(call(2, { agent: 'writer', client: 'cursor', tool: 'fs:write_file', outcome: 'error' }))
    s.append({
      kind: 'search',
      ts: new Date(T0 + 3000).toISOString(),
      agent: 'reader',
      client: null,
      query: 'q',
      include_disabled: false,
      hits: 0,
      locked_only: true,
      locked: ['gh:delete_repo'],
    })
    s.append({
      kind: 'decision',
      ts: new Date(T0 + 4000).toISOString(),
      agent: null,
      client: null,
      action: 'approve',
      server: 'gh',
      tool: 'delete_repo',
      by: 'user',
      via: 'ui',
      message: 'ok',
    })
    const ids = (f: Parameters<ActivityStore['query']>[0]) => s.query(f).events.map((e) => e.id)
    expect(ids({ limit: 10, kind: 'search' })).toEqual(['4'])
    expect(ids({ limit: 10, kind: 'decision' })).toEqual(['5'])
    expect(ids({ limit: 10, agent: 'reader' })).toEqual(['4', '1'])
    // an unnamed local session is found by its client name; a named agent's client does not count
    expect(ids({ limit: 10, agent: 'cursor' })).toEqual(['2'])
    expect(ids({ limit: 10, server: 'gh' })).toEqual(['5', '2'])
    expect(ids({ limit: 10, tool: 'gh:delete_repo' })).toEqual(['5', '2'])
    expect(ids({ limit: 10, tool: 'delete_repo' })).toEqual(['5', '2'])
    expect(ids({ limit: 10, tool: 'fs:delete_repo' })).toEqual([])
    expect(ids({ limit: 10, outcome: 'blocked' })).toEqual(['2'])
    // every outcome filters, 'declined' (a call the user did not confirm) included
    expect(ids({ limit: 10, outcome: 'declined' })).toEqual([])
    expect(ids({ limit: 10, agent: 'nobody' })).toEqual([])
    expect(ids({ limit: 10, sinceMs: T0 + 2500 })).toEqual(['5', '4'])
  })

  it('starts a new segment on every start and continues the ids; a torn last line is skipped, never appended to', () => {
    const dir = tmp()
    const a = open(dir)
    for (let i = 0; i < 3; i++) a.append(call(i))
    a.close()
    // a crash in the middle of a write: half a record without its newline
    const seg = path.join(dir, segments(dir)[0])
    fs.appendFileSync(seg, '{"id":"4","kind":"call","ts":"2026-11-')
    const b = open(dir)
    const e = b.append(call(5))
    expect(e.id).toBe('4')
    expect(segments(dir)).toHaveLength(2)
    expect(b.query({ limit: 10 }).events.map((x) => x.id)).toEqual(['4', '3', '2', '1'])
    // the new record is intact in its own file
    const second = fs.readFileSync(path.join(dir, segments(dir)[1]), 'utf8')
    expect(JSON.parse(second.trim())).toMatchObject({ id: '4' })
  })

  it('rolls segments by size and deletes the oldest past max size, keeping the newest records', () => {
    const dir = tmp()
    const line = Buffer.byteLength(JSON.stringify({ id: '10', ...call(0) })) + 1
    const s = open(dir, { maxBytes: line * 10, retentionMs: 1e12, segmentBytes: line * 3 })
    for (let i = 0; i < 40; i++) s.append(call(i))
    const total = segments(dir).reduce((n, f) => n + fs.statSync(path.join(dir, f)).size, 0)
    expect(total).toBeLessThanOrEqual(line * 10 + line * 3)
    const ids = s.query({ limit: 100 }).events.map((e) => Number(e.id))
    expect(ids[0]).toBe(40)
    expect(ids.length).toBeLessThan(40)
    // what is left is a contiguous run of the newest
    expect(ids).toEqual(Array.from({ length: ids.length }, (_, i) => 40 - i))
  })

  it('deletes segments older than the retention at start', () => {
    const dir = tmp()
    const a = open(dir)
    a.append(call(0))
    a.close()
    const old = path.join(dir, segments(dir)[0])
    const past = new Date(Date.now() - 40 * 86_400_000)
    fs.utimesSync(old, past, past)
    const b = open(dir, { ...BIG, retentionMs: 30 * 86_400_000 })
    expect(fs.existsSync(old)).toBe(false)
    expect(b.append(call(1)).id).toBe('2')
    expect(b.query({ limit: 10 }).events.map((e) => e.id)).toEqual(['2'])
  })

  it('deletes records past the retention while it runs, the segment being written too', () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    try {
      const dir = tmp()
      const s = open(dir, { ...BIG, retentionMs: 30 * 86_400_000 })
      s.append(call(0))
      s.append(call(1))
      expect(s.query({ limit: 10 }).events).toHaveLength(2)
      // a quiet Toolgate: the last write was 40 days ago
      const [current] = segments(dir)
      const past = new Date(Date.now() - 40 * 86_400_000)
      fs.utimesSync(path.join(dir, current), past, past)
      vi.advanceTimersByTime(3_600_000)
      expect(segments(dir)).toEqual([])
      expect(s.query({ limit: 10 }).events).toEqual([])
      // the ids go on in a new segment
      expect(s.append(call(2)).id).toBe('3')
      expect(s.query({ limit: 10 }).events.map((e) => e.id)).toEqual(['3'])
    } finally {
      vi.useRealTimers()
    }
  })

  it('forgets the names of deleted records: agents cannot grow its memory with made-up tool ids', () => {
    const dir = tmp()
    const line = Buffer.byteLength(JSON.stringify({ id: '10000', ...call(0, { tool: `x:${'t'.repeat(300)}0000` }) })) + 1
    const s = open(dir, { maxBytes: line * 200, retentionMs: 1e12, segmentBytes: line * 50 })
    s.query({ limit: 1 }) // the index is live from here on
    for (let i = 0; i < 5000; i++) s.append(call(i, { tool: `x:${'t'.repeat(300)}${String(i).padStart(4, '0')}`, agent: null, client: `c${i}` }))
    const kept = s.count()
    expect(kept).toBeLessThanOrEqual(250)
    // each record brings at most a tool id, its name and a client name: the table follows the records kept
    expect(s.internedNames()).toBeLessThanOrEqual(4 * kept + 1024 + 3 * 50)
    expect(s.query({ limit: 1, tool: `x:${'t'.repeat(300)}4999` }).events).toHaveLength(1)
    expect(s.query({ limit: 1, agent: 'c4999' }).events).toHaveLength(1)
    expect(s.query({ limit: 1, agent: 'c0' }).events).toHaveLength(0)
  })

  it('reads another process’s files read-only (the CLI with no owner)', () => {
    const dir = tmp()
    const a = open(dir)
    for (let i = 0; i < 5; i++) a.append(call(i, { outcome: i % 2 ? 'error' : 'ok' }))
    const r = open(dir, BIG, true)
    expect(r.query({ limit: 10, outcome: 'error' }).events.map((e) => e.id)).toEqual(['4', '2'])
    expect(() => r.append(call(9))).toThrow(/closed/)
  })
})

describe('activity queries', () => {
  it('answers a page with next_cursor, and bad parameters with a 400 naming them', () => {
    const s = open(tmp())
    for (let i = 0; i < 5; i++) s.append(call(i))
    const page = queryPage(s, { limit: '2' }, Date.now())
    expect(page.events.map((e: ActivityEvent) => e.id)).toEqual(['5', '4'])
    expect(page.next_cursor).toBe('4')
    expect(queryPage(s, { limit: '2', cursor: '2' }, Date.now())).toEqual({ events: [expect.objectContaining({ id: '1' })], next_cursor: null })
    // relative since, counted back from "now"
    expect(queryPage(s, { since: '2s' }, T0 + 4500).events.map((e) => e.id)).toEqual(['5', '4'])
    const bad = (q: Record<string, string>): string => {
      try {
        queryPage(s, q, Date.now())
      } catch (e) {
        expect(e).toBeInstanceOf(ApiError)
        expect((e as ApiError).status).toBe(400)
        return (e as Error).message
      }
      throw new Error('no error')
    }
    expect(bad({ kind: 'calls' })).toMatch(/kind must be one of search, call, decision/)
    expect(bad({ outcome: 'fine' })).toMatch(/outcome must be one of ok, error, blocked, timeout, cancelled/)
    expect(bad({ since: 'yesterday' })).toMatch(/since must be an ISO time .* 10m/)
    expect(bad({ limit: '0' })).toMatch(/limit must be an integer from 1 to 500/)
    expect(bad({ limit: 'ten' })).toMatch(/limit must be an integer/)
    expect(bad({ cursor: 'abc' })).toMatch(/cursor must be the next_cursor/)
    expect(bad({ agnt: 'x' })).toMatch(/unknown parameter\(s\) agnt/)
  })
})

describe('records from before the argument digest was keyed', () => {
  it('lose their plain SHA-256 once, when the owner opens the store; the rest of each record, its id and the segment time stay', () => {
    const dir = tmp()
    fs.mkdirSync(dir, { recursive: true })
    const plain = 'a'.repeat(64)
    const lines = [
      {
        id: '1',
        kind: 'call',
        ts: new Date(T0).toISOString(),
        agent: 'a',
        client: null,
        tool: 'x:pin',
        server: 'x',
        variant: 'read',
        outcome: 'ok',
        duration_ms: 1,
        args_sha256: plain,
      },
      {
        id: '2',
        kind: 'decision',
        ts: new Date(T0 + 1).toISOString(),
        agent: null,
        client: null,
        action: 'allow',
        server: 'x',
        tool: 'pin',
        by: 'user',
        via: 'cli',
        message: `Allowed. (arguments SHA-256 ${plain})`,
      },
    ]
    const file = path.join(dir, 'activity-000000000001.jsonl')
    fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n')
    const old = new Date(T0)
    fs.utimesSync(file, old, old)
    // a reader (offline CLI) does not rewrite
    open(dir, BIG, true).close()
    expect(fs.readFileSync(file, 'utf8')).toContain(plain)
    const store = open(dir)
    const text = fs.readFileSync(file, 'utf8')
    expect(text).not.toContain(plain)
    expect(fs.statSync(file).mtimeMs).toBe(old.getTime())
    const { events } = store.query({ limit: 10 })
    expect(events.map((e) => e.id)).toEqual(['2', '1'])
    expect(events[1]).not.toHaveProperty('args_sha256')
    expect(events[1]).toMatchObject({ tool: 'x:pin', outcome: 'ok' })
    expect((events[0] as { message: string }).message).toBe('Allowed. (arguments digest removed: it was not keyed)')
    expect(fs.existsSync(path.join(dir, '.args-keyed'))).toBe(true)
  })
})
