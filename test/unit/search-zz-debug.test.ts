import fs from 'node:fs'
import path from 'node:path'
import { it } from 'vitest'
import { ToolIndex, type IndexedTool, type ToolIndexOptions } from '../../src/main/core/search/tool-index'
import { tokenize } from '../../src/main/core/search/tokenize'
const SHARED = path.resolve(process.cwd(), '../shared')
const safeName = (s: string): string => s.replace(/[^A-Za-z0-9._-]+/g, '-')
interface RawTool { server: string; tool: string; description?: string | null; schema?: { properties?: Record<string, unknown> }; inputSchema?: { properties?: Record<string, unknown> } }
function load(file: string): IndexedTool[] {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as { tools: RawTool[] }
  return raw.tools.map((t) => { const server = safeName(t.server); return { id: `${server}:${t.tool}`, server, name: t.tool, description: t.description ?? '', paramNames: Object.keys((t.schema ?? t.inputSchema)?.properties ?? {}) } })
}
it('debug', () => {
  const opts = JSON.parse(process.env.OPTS ?? '{}') as Partial<ToolIndexOptions>
  const which = process.env.WHICH ?? 'dev'
  const corpus = load(path.join(SHARED, which === 'dev' ? 'datasets/corpus_v2.tools.json' : 'datasets/livemcptool/tools.json'))
  const idx = new ToolIndex(opts)
  const by = new Map<string, IndexedTool[]>()
  for (const t of corpus) by.set(t.server, [...(by.get(t.server) ?? []), t])
  for (const [s, l] of by) idx.setServerTools(s, l)
  const qs = which === 'dev' ? (JSON.parse(fs.readFileSync(path.join(SHARED, 'datasets/retrieval_golden_dev.json'), 'utf8')) as { queries: Array<{ id: string; query: string; labels: Array<{ tool_id: string; relevance: number }> }> }).queries
    : (JSON.parse(process.env.QS ?? '[]') as Array<{ id: string; query: string; labels: Array<{ tool_id: string; relevance: number }> }>)
  const out: string[] = []
  for (const q of qs) {
    const hits = idx.search(q.query)
    const ranks = q.labels.filter((l) => l.relevance > 0).map((l) => `${l.tool_id.split(':')[1]}(${l.relevance})@${hits.findIndex((h) => h.id === l.tool_id) + 1}`)
    out.push(`${q.id}: [${tokenize(q.query).join(' ')}] ${ranks.join(' ')}\n    top: ${hits.slice(0, 4).map((h) => `${h.id.split(':')[1]}=${h.score.toFixed(2)}`).join(' ')}`)
  }
  console.log(out.join('\n'))
})
