// The shape of a request: paths and URLs say where, not what; every clause's leading
// verb counts, and clauses that disagree on reading or changing leave the intent open.
import { describe, expect, it } from 'vitest'
import { clauses, reduceLocations } from '../../src/main/core/search/query-form'
import { ToolIndex, type IndexedTool } from '../../src/main/core/search/tool-index'

const doc = (name: string, description: string, variant?: 'read' | 'write'): IndexedTool => ({
  id: `s:${name}`,
  server: 's',
  name,
  description,
  paramNames: [],
  ...(variant ? { variant, hinted: true } : {}),
})
function search(tools: IndexedTool[], q: string, options: ConstructorParameters<typeof ToolIndex>[0] = {}): string[] {
  const i = new ToolIndex(options)
  i.setServerTools('s', tools)
  return i.search(q).map((h) => h.id)
}

describe('paths and URLs in a request', () => {
  it.each([
    ['save it to /data/home/yzx/markdown/report.md', 'save it to report.md'],
    ['summarize https://www.youtube.com/watch?v=arj7oStGLkU for me', 'summarize youtube for me'],
    ['fetch https://api.github.com/repos/x/y', 'fetch api github'],
    ['ls ~/Downloads', 'ls Downloads'],
    ['mkdir -p src/components/forms', 'mkdir -p forms'],
    ['open ./notes/todo.txt', 'open todo.txt'],
    ['read the file notes.txt', 'read the file notes.txt'],
  ])('%s → %s', (q, expected) => {
    expect(reduceLocations(q)).toBe(expected)
  })

  it('the folders on the way to a file do not match tools about those words', () => {
    const tools = [doc('plan_commute', 'Plan the commute between home and work.'), doc('write_file', 'Write a file.')]
    const q = 'save the report to /data/home/me/report.md'
    expect(search(tools, q)).toEqual(['s:write_file'])
    expect(search(tools, q, { queryForm: { locations: false, files: true, clauses: true } })).toContain('s:plan_commute')
  })
})

describe('a file name in a path says a file is meant (round 3)', () => {
  it.each([
    ['save it to /data/home/yzx/markdown/report.md', 'save it to report.md file'],
    ['open ./notes/todo.txt', 'open todo.txt file'],
    ['ls ~/Downloads', 'ls Downloads'],
    ['mkdir -p src/components/forms', 'mkdir -p forms'],
    ['fetch https://api.github.com/repos/x/y.json', 'fetch api github'],
    ['read the file notes.txt', 'read the file notes.txt'],
  ])('%s → %s', (q, expected) => {
    expect(reduceLocations(q, true)).toBe(expected)
  })

  it('a request to store something at a path prefers the tool that stores a file', () => {
    // store_entry would win a tie (id order); only "file" tells them apart
    const tools = [doc('store_entry', 'Store an entry.'), doc('store_file', 'Store a file.')]
    const q = 'store the summary in /tmp/out/summary.md'
    expect(search(tools, q)[0]).toBe('s:store_file')
    expect(search(tools, q, { queryForm: { locations: true, files: false, clauses: true } })[0]).toBe('s:store_entry')
  })
})

describe('clauses', () => {
  it('splits at sentence ends, semicolons, "and" and "then"', () => {
    expect(clauses('Find the repos, then save a summary. Also mail it; and archive')).toEqual(['Find the repos,', 'save a summary', 'Also mail it', 'archive'])
    expect(clauses('read notes.txt')).toEqual(['read notes.txt'])
  })

  it("a later clause's verb searches its synonyms at full weight and opens the intent", () => {
    const tools = [doc('a_store_entry', 'Store an entry.', 'write'), doc('b_get_entry', 'Get an entry.', 'read')]
    const q = 'check the entry and then save it'
    const score = (clauses: boolean): number => {
      const i = new ToolIndex({ queryForm: { locations: true, files: true, clauses } })
      i.setServerTools('s', tools)
      return i.search(q).find((h) => h.id === 's:a_store_entry')?.score ?? 0
    }
    expect(search(tools, q)[0]).toBe('s:a_store_entry')
    // as one clause led by "check": "save" counts at the weight of a word further in (0.1), and
    // the request reads as a read, so the writer ranks at half its score
    expect(score(false)).toBeLessThan(score(true) / 2)
  })
})
