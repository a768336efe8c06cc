import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { it } from 'vitest'
import { ToolIndex, DEFAULT_OPTIONS, type IndexedTool, type ToolIndexOptions } from '../../src/main/core/search/tool-index'
const SHARED = path.resolve(process.cwd(), '../shared')
const safeName = (s: string): string => s.replace(/[^A-Za-z0-9._-]+/g, '-')
interface RawTool { server: string; tool: string; description?: string | null; schema?: { properties?: Record<string, unknown> }; inputSchema?: { properties?: Record<string, unknown> } }
interface Label { tool_id: string; relevance: number }
interface Q { id: string; query: string; labels: Label[] }
interface Agg { recall_at: Record<number, number>; mrr: number; ndcg_at_10: number }
function load(file: string): IndexedTool[] {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as { tools: RawTool[] }
  return raw.tools.map((t) => { const server = safeName(t.server); return { id: `${server}:${t.tool}`, server, name: t.tool, description: t.description ?? '', paramNames: Object.keys((t.schema ?? t.inputSchema)?.properties ?? {}) } })
}
function build(c: IndexedTool[], o: Partial<ToolIndexOptions>): ToolIndex {
  const idx = new ToolIndex(o); const by = new Map<string, IndexedTool[]>()
  for (const t of c) by.set(t.server, [...(by.get(t.server) ?? []), t])
  for (const [s, l] of by) idx.setServerTools(s, l)
  return idx
}
function first(d: string): string { const t = d.trim().replace(/\s+/g, ' '); const m = /^(.+?[.!?。！？])(\s|$)/u.exec(t); return (m ? m[1] : t).slice(0, 300) }
it('sweep', async () => {
  const metrics = (await import(pathToFileURL(path.join(SHARED, 'bench/lib/metrics.mjs')).href)) as { aggregate(p: Array<{ id: string; ranked: string[]; labels: Label[] }>): Agg }
  const dev = load(path.join(SHARED, 'datasets/corpus_v2.tools.json'))
  const live = load(path.join(SHARED, 'datasets/livemcptool/tools.json'))
  const devQ = (JSON.parse(fs.readFileSync(path.join(SHARED, 'datasets/retrieval_golden_dev.json'), 'utf8')) as { queries: Q[] }).queries
  const paraQ = JSON.parse(fs.readFileSync('/tmp/para.json', 'utf8')) as Q[]
  const bySent = new Map<string, string[]>()
  for (const t of live) if (t.description.trim()) { const s = first(t.description); bySent.set(s, [...(bySent.get(s) ?? []), t.id]) }
  const knownQ: Q[] = [...bySent].map(([query, ids], i) => ({ id: `k${i}`, query, labels: ids.map((tool_id) => ({ tool_id, relevance: 2 })) }))
  const run = (idx: ToolIndex, qs: Q[]): Agg => metrics.aggregate(qs.map((q) => ({ id: q.id, labels: q.labels, ranked: idx.search(q.query).slice(0, 10).map((h) => h.id) })))
  const grid = JSON.parse(process.env.GRID ?? '[{}]') as Array<Partial<ToolIndexOptions>>
  const lines: string[] = []
  for (const g of grid) {
    const o = { ...DEFAULT_OPTIONS, ...g, boost: { ...DEFAULT_OPTIONS.boost, ...(g.boost ?? {}) }, bm25: { ...DEFAULT_OPTIONS.bm25, ...(g.bm25 ?? {}) } }
    const d = run(build(dev, o), devQ); const li = build(live, o); const k = run(li, knownQ); const p = run(li, paraQ)
    const f = (x: number): string => x.toFixed(3)
    lines.push(`${JSON.stringify(g).padEnd(70)} dev R5 ${f(d.recall_at[5])} MRR ${f(d.mrr)} nDCG ${f(d.ndcg_at_10)} | known R1 ${f(k.recall_at[1])} MRR ${f(k.mrr)} | para R5 ${f(p.recall_at[5])} MRR ${f(p.mrr)} nDCG ${f(p.ndcg_at_10)}`)
  }
  console.log(lines.join('\n'))
})
