// Learning from use: the records and their lift (learned.ts), the capped lift in the
// index (tool-index.ts), persistence in the data dir and the per-session window (learned-store.ts).
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDir } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { HALF_LIFE_DAYS, LIFT_CAP, LearnedUse, MAX_RECORDS } from '../../src/main/core/search/learned'
import { LearnedStore, WINDOW_MS, sessionRecorder } from '../../src/main/core/search/learned-store'
import { ToolIndex, type IndexedTool } from '../../src/main/core/search/tool-index'
import { silentLogger } from '../../src/main/core/log'

useCleanup()

const DAY = 86_400_000
const T0 = Date.UTC(2026, 10, 26)
const tool = (name: string, description: string): IndexedTool => ({ id: `s:${name}`, server: 's', name, description, paramNames: [] })
const TOOLS = [
  tool('list_notes', 'List all notes in the notebook.'),
  tool('recent_activity', 'Show what changed lately in the notebook.'),
  tool('weather_now', 'Current weather for a city.'),
]
const indexOf = (): ToolIndex => {
  const index = new ToolIndex()
  index.setServerTools('s', TOOLS)
  return index
}
const scoreOf = (index: ToolIndex, q: string, id: string): number | undefined => index.search(q).find((h) => h.id === id)?.score

describe('LearnedUse', () => {
  it('lifts a recorded tool for the same or a similar query, not for an unrelated one', () => {
    const l = new LearnedUse()
    l.record(['list', 'note'], 's:recent_activity', T0)
    expect(l.lifts(['list', 'note'], T0).get('s:recent_activity')).toBeCloseTo(1) // similarity 1 × log2(2)
    expect(l.lifts(['weather', 'citi'], T0).size).toBe(0)
    expect(l.lifts(['list', 'note', 'notebook', 'mine', 'all'], T0).size).toBe(0) // overlap 2/5 < 0.5
  })

  it('counts repeats (log2(1 + count)) and halves with every half-life of age', () => {
    const l = new LearnedUse()
    for (let i = 0; i < 3; i++) l.record(['a1', 'b1'], 's:t', T0)
    expect(l.lifts(['a1', 'b1'], T0).get('s:t')).toBeCloseTo(2)
    expect(l.lifts(['a1', 'b1'], T0 + HALF_LIFE_DAYS * DAY).get('s:t')).toBeCloseTo(1)
  })

  it(`keeps at most ${MAX_RECORDS} records, dropping the weakest`, () => {
    const l = new LearnedUse()
    l.record(['keep'], 's:strong', T0)
    l.record(['keep'], 's:strong', T0)
    for (let i = 0; i < MAX_RECORDS; i++) l.record([`w${i}`], 's:weak', T0 - DAY)
    expect(l.size).toBe(MAX_RECORDS)
    expect(l.lifts(['keep'], T0).has('s:strong')).toBe(true)
  })
})

describe('ToolIndex with learned use', () => {
  it('adds at most LIFT_CAP × the best score, and leaves other tools alone', () => {
    const index = indexOf()
    const q = 'list the notes in my notebook'
    const before = index.search(q)
    const top = before[0].score
    const own = scoreOf(index, q, 's:recent_activity') as number
    const l = new LearnedUse()
    for (let i = 0; i < 50; i++) l.record(index.queryTerms(q), 's:recent_activity', T0) // a huge lift, capped
    index.setLearned(l, () => T0)
    expect(scoreOf(index, q, 's:recent_activity')).toBeCloseTo(own + LIFT_CAP * top, 5)
    expect(scoreOf(index, q, 's:list_notes')).toBe(before[0].score)
  })

  it('brings in a called tool that matches no word of the query, below the best match', () => {
    const index = indexOf()
    const q = 'list the notes in my notebook'
    expect(scoreOf(index, q, 's:weather_now')).toBeUndefined()
    const l = new LearnedUse()
    l.record(index.queryTerms(q), 's:weather_now', T0)
    index.setLearned(l, () => T0)
    const hits = index.search(q)
    expect(hits.map((h) => h.id)).toContain('s:weather_now')
    expect(hits[0].id).toBe('s:list_notes')
    index.setLearned(null)
    expect(scoreOf(index, q, 's:weather_now')).toBeUndefined()
  })
})

describe('LearnedStore and the session recorder', () => {
  const tmp = (): string => tempDir('toolgate-learned-')

  it('persists records atomically and reads them back; an unreadable file starts empty', async () => {
    const dir = tmp()
    const file = path.join(dir, 'search-learned.json')
    const a = new LearnedStore(file, silentLogger())
    a.record(['list', 'note'], 's:recent_activity', T0)
    await a.flush()
    const b = new LearnedStore(file, silentLogger())
    expect(b.use.records()).toEqual([{ terms: ['list', 'note'], tool: 's:recent_activity', count: 1, last: T0 }])
    fs.writeFileSync(file, '{"version":1,"records":[{"terms":[],"tool":"x"}]}')
    expect(new LearnedStore(file, silentLogger()).use.size).toBe(0)
    expect(await b.clear()).toBe(1)
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ version: 1, records: [] })
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it('records a call only after a search in the same session, within the window, and only when enabled', async () => {
    const dir = tmp()
    const store = new LearnedStore(path.join(dir, 'l.json'), silentLogger())
    let now = T0
    const rec = sessionRecorder(store, () => now)
    rec.called('s:a') // no search yet
    expect(store.use.size).toBe(0)
    rec.searched(['x1'])
    now += WINDOW_MS + 1
    rec.called('s:b') // too late
    expect(store.use.size).toBe(0)
    rec.searched(['x2'])
    store.enabled = false
    rec.called('s:c')
    expect(store.use.size).toBe(0)
    store.enabled = true
    rec.called('s:d')
    expect(store.use.records().map((r) => r.tool)).toEqual(['s:d'])
    await store.flush()
    fs.rmSync(dir, { recursive: true, force: true })
  })
})
