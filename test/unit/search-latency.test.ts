// Prints in-process search latency at 527 (livemcptool), 5,000 and 10,000 tools. No timed
// assertions (benchmarks print numbers; DESIGN.md): the numbers go to docs/retrieval.md.
//
// The 5k/10k catalogs are synthetic but made of real text: tool i copies the name, parameters
// and description of real tool (i mod 572) from the two shared corpora, appends one sentence of
// another real tool's description (so documents differ), and lives on server "s<i/100>".
// Queries: the dev golden queries, the first sentences of 100 real descriptions, and 200
// short keyword queries built from real tool names — a mix of long and short requests.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import MiniSearch from 'minisearch'
import { describe, expect, it } from 'vitest'
import { DEFAULT_OPTIONS, ToolIndex, firstSentence, type IndexedTool } from '../../src/main/core/search/tool-index'
import { makeAnalyzer, splitIdentifier } from '../../src/main/core/search/tokenize'

const SHARED = path.resolve(process.cwd(), '../shared')

interface RawTool {
  server: string
  tool: string
  description?: string | null
  schema?: { properties?: Record<string, unknown> }
  inputSchema?: { properties?: Record<string, unknown> }
}

function load(file: string): IndexedTool[] {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as { tools: RawTool[] }
  return raw.tools.map((t) => ({
    id: `${t.server}:${t.tool}`,
    server: t.server,
    name: t.tool,
    description: t.description ?? '',
    paramNames: Object.keys((t.schema ?? t.inputSchema)?.properties ?? {}),
  }))
}

function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function synthetic(real: IndexedTool[], n: number): IndexedTool[] {
  const rand = rng(42)
  const out: IndexedTool[] = []
  for (let i = 0; i < n; i++) {
    const base = real[i % real.length]
    const other = real[Math.floor(rand() * real.length)]
    const server = `s${Math.floor(i / 100)}`
    const name = `${base.name}_${i}`
    out.push({ id: `${server}:${name}`, server, name, description: `${base.description} ${firstSentence(other.description)}`, paramNames: base.paramNames })
  }
  return out
}

function indexOf(tools: IndexedTool[]): { index: ToolIndex; buildMs: number } {
  const started = performance.now()
  const index = new ToolIndex()
  const byServer = new Map<string, IndexedTool[]>()
  for (const t of tools) byServer.set(t.server, [...(byServer.get(t.server) ?? []), t])
  for (const [server, list] of byServer) index.setServerTools(server, list)
  return { index, buildMs: performance.now() - started }
}

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]

/** Reference point measured in the same run: minisearch 7.2 with the same fields, analyzer and boosts. */
function minisearchP50(tools: IndexedTool[], queries: string[]): number {
  const analyze = makeAnalyzer(DEFAULT_OPTIONS.analyzer)
  const ms = new MiniSearch({
    fields: ['name', 'summary', 'desc', 'params', 'server'],
    tokenize: (text: string) => analyze(text),
    processTerm: (term: string) => term,
    searchOptions: { boost: DEFAULT_OPTIONS.boost, bm25: DEFAULT_OPTIONS.bm25 },
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
  for (const q of queries) ms.search(q)
  const times: number[] = []
  for (const q of queries) {
    const t0 = performance.now()
    ms.search(q)
    times.push(performance.now() - t0)
  }
  return pct(
    times.sort((a, b) => a - b),
    50,
  )
}

describe('search latency (prints numbers, asserts nothing about time)', () => {
  it('at 527, 5k and 10k tools', { timeout: 300_000 }, () => {
    const live = load(path.join(SHARED, 'datasets/livemcptool/tools.json'))
    const real = [...live, ...load(path.join(SHARED, 'datasets/corpus_v2.tools.json'))]
    const golden = (
      JSON.parse(fs.readFileSync(path.join(SHARED, 'datasets/retrieval_golden_dev.json'), 'utf8')) as { queries: Array<{ query: string }> }
    ).queries.map((q) => q.query)
    const rand = rng(7)
    const sentences = Array.from({ length: 100 }, () => firstSentence(real[Math.floor(rand() * real.length)].description)).filter(Boolean)
    const keywords = Array.from({ length: 200 }, () => {
      const words = splitIdentifier(real[Math.floor(rand() * real.length)].name)
      return words.slice(0, 1 + Math.floor(rand() * Math.min(3, words.length))).join(' ')
    })
    const queries = [...golden, ...sentences, ...keywords]

    const lines: string[] = [
      '| tools | build | p50 | p95 | p99 | max | mean hits | replace one server (100 tools) | minisearch p50, same run |',
      '|---|---|---|---|---|---|---|---|---|',
    ]
    for (const [label, tools] of [
      ['527 (livemcptool)', live],
      ['5,000', synthetic(real, 5000)],
      ['10,000', synthetic(real, 10000)],
    ] as const) {
      const { index, buildMs } = indexOf([...tools])
      expect(index.size).toBe(tools.length)
      for (const q of queries) index.search(q) // warm-up
      const times: number[] = []
      let hits = 0
      for (let round = 0; round < 3; round++) {
        for (const q of queries) {
          const t0 = performance.now()
          hits += index.search(q).length
          times.push(performance.now() - t0)
        }
      }
      times.sort((a, b) => a - b)
      // Incremental update: re-describe every tool of one server.
      const server = tools[0].server
      const changed = tools.filter((t) => t.server === server).map((t) => ({ ...t, description: `${t.description} (v2)` }))
      const u0 = performance.now()
      index.setServerTools(server, changed)
      const updateMs = performance.now() - u0
      const ms = (x: number): string => `${x.toFixed(3)} ms`
      const reference = minisearchP50([...tools], queries)
      lines.push(
        `| ${label} | ${buildMs.toFixed(0)} ms | ${ms(pct(times, 50))} | ${ms(pct(times, 95))} | ${ms(pct(times, 99))} | ${ms(times[times.length - 1])} | ` +
          `${(hits / times.length).toFixed(0)} | ${updateMs.toFixed(1)} ms (${changed.length} tools) | ${ms(reference)} |`,
      )
    }
    const loadAvg = os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')
    console.log(
      `\n${queries.length} queries × 3 rounds per size, Node ${process.version}, ${os.cpus().length} CPUs, load average ${loadAvg}\n${lines.join('\n')}\n`,
    )
  })
})
