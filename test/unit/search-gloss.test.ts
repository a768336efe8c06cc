// Tools described in Chinese are found by English requests: the index adds the English glosses
// of their Chinese words (CC-CEDICT, resources/cedict-gloss.tsv) in a field of their own.
// The table is read only for text with Chinese in it, dropped after use, and an upstream's long
// text costs a bounded amount of work.
import fs from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { ToolIndex, type IndexedTool } from '../../src/main/core/search/tool-index'
import { GLOSS_FILE, MAX_GLOSSED_CHARS, glossOf, glossesLoaded, releaseGlosses } from '../../src/main/core/search/gloss'

const tool = (server: string, name: string, description: string): IndexedTool => ({
  id: `${server}:${name}`,
  server,
  name,
  description,
  paramNames: [],
})

// Tool names that say nothing in English; what they do is said only in Chinese.
const TRENDS = [
  tool('trends', 'get-hub-a', '获取最新新闻头条，提供全球政治、经济和体育资讯'), // latest news headlines
  tool('trends', 'get-hub-b', '根据菜谱名称查询做菜的步骤和食材'), // recipe steps and ingredients
  tool('trends', 'get-hub-c', '查询火车票余票和列车时刻表'), // train tickets and timetables
]
const ENGLISH = [
  tool('notes', 'create_note', 'Create a new note with a title and body.'),
  tool('weather', 'get_forecast', 'Get the weather forecast for a city.'),
  tool('files', 'read_file', 'Read the contents of a file.'),
]

function build(options: ConstructorParameters<typeof ToolIndex>[0] = {}): ToolIndex {
  const index = new ToolIndex(options)
  for (const [server, tools] of [
    ['trends', TRENDS],
    ['notes', ENGLISH.slice(0, 1)],
    ['weather', ENGLISH.slice(1, 2)],
    ['files', ENGLISH.slice(2)],
  ] as const)
    index.setServerTools(server, [...tools])
  return index
}
const top = (index: ToolIndex, q: string): string | undefined => index.search(q)[0]?.id

afterEach(() => releaseGlosses())

describe('Chinese descriptions and English requests', () => {
  it('an English request finds the tool whose Chinese description says it', () => {
    const index = build()
    expect(top(index, 'latest world news on politics')).toBe('trends:get-hub-a')
    expect(top(index, 'find a recipe and its ingredients')).toBe('trends:get-hub-b')
    expect(top(index, 'what is the train timetable')).toBe('trends:get-hub-c')
  })

  it('without the glosses those requests cannot reach them (the Chinese text shares no word with English)', () => {
    const index = build({ gloss: false })
    expect(index.search('latest world news on politics').map((h) => h.id)).not.toContain('trends:get-hub-a')
    expect(index.search('find a recipe and its ingredients').map((h) => h.id)).not.toContain('trends:get-hub-b')
  })

  it('English tools rank as before: a gloss is a weak match, the English request still finds its English tool', () => {
    const index = build()
    expect(top(index, 'weather forecast for Paris')).toBe('weather:get_forecast')
    expect(top(index, 'create a note')).toBe('notes:create_note')
  })

  it('a Chinese request still matches the Chinese text itself (CJK bigrams)', () => {
    expect(top(build(), '新闻头条')).toBe('trends:get-hub-a')
  })

  it('glosses come from the dictionary only, by the longest word at each position', () => {
    expect(glossOf('获取 BBC 新闻').split(' ')).toContain('news')
    expect(glossOf('菜谱')).toContain('recipe')
    // the first and last entries in byte order, and one outside the Basic Multilingual Plane
    expect(glossOf('㓥房')).toContain('apartment')
    expect(glossOf('吃𰻝𰻝面')).toContain('noodles')
    expect(glossOf('麻辣烫')).toContain('spicy')
    // a single character is not glossed on its own (too ambiguous)
    expect(glossOf('热')).toBe('')
    expect(glossOf('Read the contents of a file.')).toBe('')
  })
})

describe('cost and memory', () => {
  it('text without Chinese never loads the table; Chinese text loads it; release drops it', () => {
    releaseGlosses()
    expect(glossOf('list the open pull requests')).toBe('')
    const english = new ToolIndex()
    english.setServerTools('notes', ENGLISH)
    expect(glossesLoaded()).toBe(false)
    expect(glossOf('新闻')).not.toBe('')
    expect(glossesLoaded()).toBe(true)
    releaseGlosses()
    expect(glossesLoaded()).toBe(false)
  })

  it("an upstream's huge Chinese description is glossed only up to MAX_GLOSSED_CHARS characters", () => {
    // "新闻" (news) 50,000 times: 100,000 characters, of which the first MAX_GLOSSED_CHARS count
    const words = glossOf('新闻'.repeat(50_000)).split(' ')
    expect(words.filter((w) => w === 'news')).toHaveLength(MAX_GLOSSED_CHARS / 2)
    const index = new ToolIndex()
    index.setServerTools('evil', [tool('evil', 'flood', '新闻'.repeat(50_000))])
    expect(index.search('news')[0]?.id).toBe('evil:flood')
  })

  it('a server re-sending its unchanged Chinese tools (every list_changed, every refresh) does not gloss them again', () => {
    // attack: 1,000 tools of 2,000 Chinese characters each re-sent again and again cost the main
    // thread their whole glossing (and a read of the 3.7 MB table once it was released) each time
    const index = new ToolIndex()
    const tools = TRENDS.map((t) => ({ ...t, id: `evil:${t.name}`, server: 'evil' }))
    index.setServerTools('evil', tools)
    releaseGlosses()
    index.setServerTools(
      'evil',
      tools.map((t) => ({ ...t })),
    )
    expect(glossesLoaded()).toBe(false)
    expect(top(index, 'latest world news on politics')).toBe('evil:get-hub-a')
    // a changed description is glossed anew
    index.setServerTools('evil', [{ ...tools[0], description: '查询火车票余票' }, ...tools.slice(1)])
    expect(glossesLoaded()).toBe(true)
    expect(index.search('latest world news on politics').map((h) => h.id)).not.toContain('evil:get-hub-a')
  })

  it('the lookup finds the longest headword at each position, as a plain dictionary scan does', () => {
    // oracle: the table as a Map, every length tried from the longest down (the textbook
    // forward maximum matching), over text from the table itself: whole words, words run
    // together, cut at the start and end of a run, and characters outside the BMP
    const lines = fs
      .readFileSync(GLOSS_FILE(), 'utf8')
      .split('\n')
      .filter((l) => l && !l.startsWith('#'))
    const dict = new Map(lines.map((l) => [l.slice(0, l.indexOf('\t')), l.slice(l.indexOf('\t') + 1)]))
    const naive = (run: string): string => {
      const cs = Array.from(run)
      const out: string[] = []
      for (let i = 0; i < cs.length;) {
        let step = 1
        for (let n = Math.min(8, cs.length - i); n >= 2; n--) {
          const g = dict.get(cs.slice(i, i + n).join(''))
          if (g !== undefined) {
            out.push(g)
            step = n
            break
          }
        }
        i += step
      }
      return out.join(' ')
    }
    let seed = 7
    const rand = (n: number): number => (seed = (seed * 1103515245 + 12345) % 2147483648) % n
    const heads = [...dict.keys()]
    for (let round = 0; round < 300; round++) {
      let run = ''
      for (let w = 0; w < 1 + rand(6); w++) {
        const h = Array.from(heads[rand(heads.length)])
        run += h.slice(rand(2), h.length - rand(2)).join('')
      }
      expect(glossOf(run)).toBe(naive(run))
    }
    for (const h of [heads[0], heads[heads.length - 1], ...heads.filter((x) => Array.from(x).length === 8).slice(0, 20)])
      expect(glossOf(`${h}x${h}`)).toBe(naive(h) + ' ' + naive(h))
  })

  it('the shipped table is CC-CEDICT-derived, attributed, and holds two-to-eight-character headwords only', () => {
    const text = fs.readFileSync(GLOSS_FILE(), 'utf8')
    const lines = text.split('\n').filter(Boolean)
    expect(lines[0]).toMatch(/^# CC-CEDICT \(CC BY-SA 4\.0/)
    const heads = lines.slice(1).map((l) => l.slice(0, l.indexOf('\t')))
    expect(heads.length).toBeGreaterThan(100_000)
    expect(heads.every((h) => [...h].length >= 2 && [...h].length <= 8)).toBe(true)
    // sorted by UTF-8 bytes, which the lookup's binary search relies on
    const bytes = heads.map((h) => Buffer.from(h))
    expect(bytes.findIndex((b, i) => i > 0 && Buffer.compare(bytes[i - 1], b) >= 0)).toBe(-1)
  })
})
