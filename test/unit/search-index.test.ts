import MiniSearch from 'minisearch'
import { describe, expect, it } from 'vitest'
import { DEFAULT_OPTIONS, ToolIndex, firstSentence, type IndexedTool } from '../../src/main/core/search/tool-index'
import { makeAnalyzer } from '../../src/main/core/search/tokenize'

const tool = (server: string, name: string, description: string, paramNames: string[] = [], paramText?: string): IndexedTool => ({
  id: `${server}:${name}`,
  server,
  name,
  description,
  paramNames,
  ...(paramText ? { paramText } : {}),
})

const FILES = [
  tool('files', 'read_file', 'Read the complete contents of a file as text.', ['path']),
  tool('files', 'write_file', 'Create a new file or overwrite an existing file with new content.', ['path', 'content']),
  tool('files', 'delete_file', 'Delete a file from disk.', ['path']),
  tool('files', 'list_directory', 'List the entries of a directory.', ['path']),
  tool('files', 'create_directory', 'Create a new directory.', ['path']),
]
const ISSUES = [
  tool('tracker', 'createIssue', 'Open a new issue in a project.', ['title', 'body']),
  tool('tracker', 'closeIssue', 'Close an issue.', ['issueId']),
  tool('tracker', 'searchIssues', 'Search issues by keyword.', ['query']),
]

function indexOf(...servers: IndexedTool[][]): ToolIndex {
  const index = new ToolIndex()
  for (const tools of servers) index.setServerTools(tools[0].server, tools)
  return index
}

const ids = (index: ToolIndex, q: string): string[] => index.search(q).map((h) => h.id)

describe('ToolIndex ranking (hand-written cases)', () => {
  const index = indexOf(FILES, ISSUES)

  it('ranks the tool whose name says what was asked first', () => {
    expect(ids(index, 'read a file')[0]).toBe('files:read_file')
    expect(ids(index, 'delete file')[0]).toBe('files:delete_file')
    expect(ids(index, 'list directory')[0]).toBe('files:list_directory')
  })

  it('matches camelCase names by their words', () => {
    expect(ids(index, 'close issue')[0]).toBe('tracker:closeIssue')
    expect(ids(index, 'closeIssue')[0]).toBe('tracker:closeIssue')
  })

  it('matches inflections through stemming', () => {
    expect(ids(index, 'deleting files')[0]).toBe('files:delete_file')
    expect(ids(index, 'searching for issues')[0]).toBe('tracker:searchIssues')
  })

  it('uses the synonym table: folder → directory, remove → delete, make → create', () => {
    expect(ids(index, 'show what is in a folder')[0]).toBe('files:list_directory')
    expect(ids(index, 'remove a file')[0]).toBe('files:delete_file')
    expect(ids(index, 'make a folder')[0]).toBe('files:create_directory')
  })

  it('a typed word outranks its synonym', () => {
    const both = indexOf([tool('a', 'remove_item', 'Remove an item.'), tool('a', 'delete_item', 'Delete an item.')])
    expect(ids(both, 'delete item')).toEqual(['a:delete_item', 'a:remove_item'])
    expect(ids(both, 'remove item')).toEqual(['a:remove_item', 'a:delete_item'])
  })

  it('returns every matching tool, and nothing for queries without content words', () => {
    expect(ids(index, 'contents').sort()).toEqual(['files:read_file', 'files:write_file'])
    // the server name is indexed too: every tool of server "files" matches "file"
    expect(ids(index, 'file').sort()).toEqual(FILES.map((t) => t.id).sort())
    expect(index.search('the of and')).toEqual([])
    expect(index.search('')).toEqual([])
    expect(index.search('zebra')).toEqual([])
    expect(new ToolIndex().search('file')).toEqual([])
  })

  it('a very long query (past the 32-word cap, camel-cased words at the end) lists each tool once', () => {
    const words = Array.from({ length: 40 }, (_, i) => `word${String.fromCharCode(97 + (i % 26))}${i}`).join(' ')
    const hits = index.search(`${words} readFile createIssue directory`)
    expect(new Set(hits.map((h) => h.id)).size).toBe(hits.length)
    expect(hits.every((h) => h.score > 0)).toBe(true)
    const all = index.search(`file issue ${words} closeIssue`)
    expect(new Set(all.map((h) => h.id)).size).toBe(all.length)
  })

  it('scores are positive and non-increasing', () => {
    const hits = index.search('create a new file in a directory')
    expect(hits.length).toBeGreaterThan(2)
    for (let i = 1; i < hits.length; i++) expect(hits[i].score).toBeLessThanOrEqual(hits[i - 1].score)
    expect(hits.every((h) => h.score > 0)).toBe(true)
  })

  it('indexes parameter names and optional parameter descriptions', () => {
    const withParams = indexOf([
      tool('p', 'fetch', 'Fetch a URL.', ['maxLength'], 'Maximum number of characters to return.'),
      tool('p', 'other', 'Something else.'),
    ])
    expect(ids(withParams, 'max length')).toEqual(['p:fetch'])
    expect(ids(withParams, 'characters')).toEqual(['p:fetch'])
  })

  it('a text of millions of letters in one run (an upstream’s, untrusted) is indexed by its start, not thrown on', () => {
    // V8's regular-expression stack gave out on runs of non-Latin-1 letters from ~4.5 million characters: RangeError
    const run = 'ж'.repeat(5_000_000)
    const index = indexOf([
      tool('h', 'long_desc', `Invoice tracker ${run}`),
      tool('h', 'long_params', 'Something else.', ['q'], `Lunch menu ${run}`),
      tool('h', 'plain', 'Get the weather.'),
    ])
    expect(ids(index, 'invoice')).toEqual(['h:long_desc'])
    expect(ids(index, 'lunch menu')).toEqual(['h:long_params'])
    expect(ids(index, 'weather')).toEqual(['h:plain'])
  })

  it('matches a camel-cased query word against a lowercase name and vice versa', () => {
    const idx = indexOf([tool('gh', 'get_github_trending', 'Get trending repositories.'), tool('yt', 'fetchYouTubeTranscript', 'Get a transcript.')])
    expect(ids(idx, 'GitHub trending')[0]).toBe('gh:get_github_trending')
    expect(ids(idx, 'youtube transcript')[0]).toBe('yt:fetchYouTubeTranscript')
  })
})

describe('ToolIndex determinism', () => {
  it('same query, same order; equal scores in id order', () => {
    const twins = ['b', 'c', 'a'].map((s) => tool(s, 'get_weather', 'Get the weather for a city.'))
    const index = new ToolIndex()
    for (const t of twins) index.setServerTools(t.server, [t])
    const first = index.search('weather in a city')
    expect(first.map((h) => h.id)).toEqual(['a:get_weather', 'b:get_weather', 'c:get_weather'])
    expect(new Set(first.map((h) => h.score)).size).toBe(1)
    for (let i = 0; i < 5; i++) expect(index.search('weather in a city')).toEqual(first)
  })

  it('gives the same results whatever order the servers were indexed in', () => {
    const a = indexOf(FILES, ISSUES)
    const b = indexOf(ISSUES, FILES)
    for (const q of ['create a new file', 'issue', 'list everything in the directory', 'close']) expect(b.search(q)).toEqual(a.search(q))
  })
})

describe('ToolIndex incremental updates', () => {
  it('replacing one server leaves the others untouched', () => {
    const index = indexOf(FILES, ISSUES)
    const issuesBefore = index.search('issue')
    index.setServerTools('files', [tool('files', 'read_file', 'Read a file.', ['path'])])
    expect(index.size).toBe(1 + ISSUES.length)
    expect(ids(index, 'delete file')).not.toContain('files:delete_file')
    expect(ids(index, 'issue').sort()).toEqual(issuesBefore.map((h) => h.id).sort())
    expect(ids(index, 'read file')[0]).toBe('files:read_file')
  })

  it('after any sequence of updates, results equal a fresh index of the same tools', () => {
    const index = indexOf(FILES, ISSUES)
    index.setServerTools('files', FILES.slice(0, 2))
    index.setServerTools('tracker', [])
    index.setServerTools('files', [...FILES.slice(1), tool('files', 'move_file', 'Move or rename a file.', ['from', 'to'])])
    index.setServerTools(
      'tracker',
      ISSUES.map((t) => ({ ...t, description: `${t.description} Works on any tracker.` })),
    )
    const fresh = indexOf(
      [...FILES.slice(1), tool('files', 'move_file', 'Move or rename a file.', ['from', 'to'])],
      ISSUES.map((t) => ({ ...t, description: `${t.description} Works on any tracker.` })),
    )
    expect(index.size).toBe(fresh.size)
    for (const q of ['file', 'rename a file', 'create a new issue in the tracker', 'directory', 'works']) {
      expect(index.search(q)).toEqual(fresh.search(q))
    }
  })

  it('removeServer drops exactly that server; an unknown server is a no-op', () => {
    const index = indexOf(FILES, ISSUES)
    index.removeServer('tracker')
    index.removeServer('nope')
    expect(index.size).toBe(FILES.length)
    expect(index.search('issue')).toEqual([])
    index.removeServer('files')
    expect(index.size).toBe(0)
    expect(index.search('file')).toEqual([])
  })

  it('a tool listed twice keeps the last definition', () => {
    const index = new ToolIndex()
    index.setServerTools('s', [tool('s', 't', 'Old text about apples.'), tool('s', 't', 'New text about pears.')])
    expect(index.size).toBe(1)
    expect(index.search('apples')).toEqual([])
    expect(ids(index, 'pears')).toEqual(['s:t'])
  })
})

describe('ToolIndex scoring: the summed model matches minisearch BM25+', () => {
  // With fieldModel 'sum', synonyms and feedback off and minisearch's own coordination (distinct matched terms), the
  // scores must equal minisearch 7.2 configured with the same fields, analyzer, boosts and BM25 params.
  it('on a small catalog', () => {
    const tools = [...FILES, ...ISSUES, tool('web', 'fetch', 'Fetch a URL from the internet. Optionally extract contents as markdown.', ['url', 'max_length'])]
    const bm25 = { k: 1.2, b: 0.7, d: 0.5 }
    const options = {
      fieldModel: 'sum' as const,
      bm25,
      synonymWeight: 0,
      coordination: 'terms' as const,
      weakMatch: 1,
      feedback: { docs: 0, terms: 0, weight: 0 },
    }
    const index = indexOf(
      tools.filter((t) => t.server === 'files'),
      tools.filter((t) => t.server === 'tracker'),
      tools.filter((t) => t.server === 'web'),
    )
    const ours = new ToolIndex(options)
    for (const s of ['files', 'tracker', 'web'])
      ours.setServerTools(
        s,
        tools.filter((t) => t.server === s),
      )
    expect(index.size).toBe(ours.size)
    const analyze = makeAnalyzer(DEFAULT_OPTIONS.analyzer)
    const ms = new MiniSearch({
      fields: ['name', 'summary', 'desc', 'params', 'server'],
      tokenize: (text: string) => analyze(text),
      processTerm: (term: string) => term,
      searchOptions: { boost: DEFAULT_OPTIONS.boost, bm25 },
    })
    ms.addAll(
      tools.map((t) => ({
        id: t.id,
        name: t.name,
        summary: firstSentence(t.description),
        desc: t.description,
        params: t.paramNames.join(' '),
        server: t.server,
      })),
    )
    for (const q of ['read a file', 'create a new directory', 'fetch url contents', 'issue', 'close the issue by id']) {
      const expected = ms.search(q).map((r) => ({ id: String(r.id), score: r.score }))
      const actual = ours.search(q)
      expect(actual.map((h) => h.id).sort()).toEqual(expected.map((h) => h.id).sort())
      for (const e of expected) expect(actual.find((h) => h.id === e.id)?.score).toBeCloseTo(e.score, 5)
    }
  })
})

describe('ToolIndex scoring: BM25F (the default field model)', () => {
  // Three tools, query "beta"; synonyms and feedback off; k 2, b 0.5, δ 0.5, the default boosts
  // (name 3, summary 1, desc 0.5, params 0.5, server 2). Worked by hand:
  //   N = 3 tools, all contain "beta": IDF = ln(1 + 0.5 / 3.5) = 0.133531
  //   distinct terms per field: name 1, 1, 1 (avg 1); summary = desc = 2, 2, 5 (avg 3)
  //   length norm 1 − b + b·len/avg: name 1; summary/desc 0.833333 (len 2), 1.333333 (len 5)
  //   s:alpha  tf~ = 1·1/0.833333 + 0.5·1/0.833333 = 1.8          → (1.8·3/3.8 + 0.5)·IDF = 0.256521
  //   s:beta   tf~ = 3·1/1 + 1·2/0.833333 + 0.5·2/0.833333 = 6.6  → (6.6·3/8.6 + 0.5)·IDF = 0.374196
  //   s:omega  tf~ = 1/1.333333 + 0.5/1.333333 = 1.125            → (1.125·3/3.125 + 0.5)·IDF = 0.210979
  const tools = [tool('srv', 'alpha', 'Beta gamma.'), tool('srv', 'beta', 'Beta beta delta.'), tool('srv', 'omega', 'Omega beta zeta eta theta.')]
  const off = { synonymWeight: 0, feedback: { docs: 0, terms: 0, weight: 0 } }

  it('adds a term over the fields, then saturates once (hand-computed scores)', () => {
    const index = new ToolIndex({ ...off, fieldModel: 'bm25f', bm25: { k: 2, b: 0.5, d: 0.5 } })
    index.setServerTools('srv', tools)
    const hits = index.search('beta')
    expect(hits.map((h) => h.id)).toEqual(['srv:beta', 'srv:alpha', 'srv:omega'])
    expect(hits.map((h) => h.score)).toEqual([expect.closeTo(0.374196, 5), expect.closeTo(0.256521, 5), expect.closeTo(0.210979, 5)])
  })

  it('counts a word found in several fields once, where the summed model counts it per field', () => {
    // "report" is in both tools' descriptions; in doc_report it is also the name and the first sentence.
    const pair = [
      tool('d', 'doc_report', 'Report. Writes a report of the document.'),
      tool('d', 'doc_stats', 'Count words in a document. Also usable for a report.'),
    ]
    const ratio = (fieldModel: 'sum' | 'bm25f'): number => {
      const index = new ToolIndex({ ...off, fieldModel, bm25: { k: 1.2, b: 0.75, d: 0 } })
      index.setServerTools('d', pair)
      const byId = new Map(index.search('report').map((h) => [h.id, h.score]))
      return (byId.get('d:doc_report') as number) / (byId.get('d:doc_stats') as number)
    }
    // summed: name + summary + desc each saturate on their own; BM25F saturates the total once
    expect(ratio('bm25f')).toBeLessThan(ratio('sum'))
    expect(ratio('bm25f')).toBeGreaterThan(1)
  })

  it('keeps the document count of a term right through incremental removals', () => {
    const index = new ToolIndex({ ...off, fieldModel: 'bm25f', bm25: { k: 2, b: 0.5, d: 0.5 } })
    index.setServerTools('srv', tools)
    index.setServerTools('other', [tool('other', 'extra', 'Beta and more beta.')])
    index.removeServer('other')
    expect(index.search('beta').map((h) => h.score)).toEqual([expect.closeTo(0.374196, 5), expect.closeTo(0.256521, 5), expect.closeTo(0.210979, 5)])
  })
})

describe('ToolIndex coordination: words found only in passing count less', () => {
  // display_settings mentions "resize", "photo" and "fit" after its first sentence; resize_photo's
  // name and first sentence say two of them. Counted alike, three words found in passing beat two in the name.
  const tools = [
    tool('s', 'resize_photo', 'Resize a photo to the given width and height, keeping its aspect ratio and format.'),
    tool('s', 'display_settings', 'Change the display settings. Resize windows, fit them, set a photo as wallpaper.'),
  ]
  const first = (options: Partial<typeof DEFAULT_OPTIONS>): string | undefined => {
    const index = new ToolIndex(options)
    index.setServerTools('s', tools)
    return index.search('resize the photo to fit')[0]?.id
  }

  it('a tool whose name or first sentence says the job outranks one that mentions more of the words further down', () => {
    expect(DEFAULT_OPTIONS.weakMatch).toBeLessThan(1)
    expect(first({})).toBe('s:resize_photo')
    expect(first({ weakMatch: 1 })).toBe('s:display_settings')
  })

  it('a word in the first sentence is not a weak match', () => {
    // the same sentences in two orders; with the first sentence's own boost at 0 both score alike
    // on the description, so only coordination tells them apart (a tie would go to a_late, by id)
    const pair = [
      tool('s', 'a_late', 'Change the display settings. Resize windows, fit them, set a photo as wallpaper.'),
      tool('s', 'b_early', 'Resize windows, fit them, set a photo as wallpaper. Change the display settings.'),
    ]
    const index = new ToolIndex({ boost: { ...DEFAULT_OPTIONS.boost, summary: 0 }, feedback: { docs: 0, terms: 0, weight: 0 } })
    index.setServerTools('s', pair)
    expect(index.search('resize the photo to fit')[0]?.id).toBe('s:b_early')
  })
})
