// Property: after any sequence of per-server updates (add, replace, change, remove
// tools; remove servers), the incremental index answers every query exactly as a fresh index
// built from the final tool set does: same ids, same order, same scores.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ToolIndex, type IndexedTool } from '../../src/main/core/search/tool-index'

const WORDS = [
  'read',
  'file',
  'files',
  'list',
  'directory',
  'create',
  'delete',
  'git',
  'commit',
  'branch',
  'search',
  'note',
  'notes',
  'image',
  'weather',
  'city',
  'the',
  'a',
]
const SERVERS = ['alpha', 'beta', 'gamma']
const NAMES = ['read_file', 'list_dir', 'createNote', 'delete-branch', 'search', 'get_weather', 'commit']
const QUERIES = ['read a file', 'list directory', 'create note', 'delete', 'git commit branch', 'weather in the city', 'search notes images', 'files']

const text = fc.array(fc.constantFrom(...WORDS), { minLength: 0, maxLength: 8 }).map((w) => w.join(' '))
const toolOf = (server: string) =>
  fc
    .record({ name: fc.constantFrom(...NAMES), description: text, params: fc.array(fc.constantFrom(...WORDS), { maxLength: 3 }) })
    .map((t): IndexedTool => ({ id: `${server}:${t.name}`, server, name: t.name, description: t.description, paramNames: t.params }))
const op = fc.oneof(
  fc
    .constantFrom(...SERVERS)
    .chain((server) => fc.record({ kind: fc.constant('set' as const), server: fc.constant(server), tools: fc.array(toolOf(server), { maxLength: 6 }) })),
  fc.record({ kind: fc.constant('remove' as const), server: fc.constantFrom(...SERVERS) }),
)

/** ids are unique per server: the last definition of a name wins, as a tool list would. */
const dedupe = (tools: IndexedTool[]): IndexedTool[] => [...new Map(tools.map((t) => [t.id, t])).values()]

describe('ToolIndex incremental updates (property)', () => {
  it('answers like a fresh index of the final tool set', () => {
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 25 }), (ops) => {
        const incremental = new ToolIndex()
        const final = new Map<string, IndexedTool[]>()
        for (const o of ops) {
          if (o.kind === 'set') {
            const tools = dedupe(o.tools)
            incremental.setServerTools(o.server, tools)
            if (tools.length) final.set(o.server, tools)
            else final.delete(o.server)
          } else {
            incremental.removeServer(o.server)
            final.delete(o.server)
          }
        }
        const fresh = new ToolIndex()
        for (const [server, tools] of final) fresh.setServerTools(server, tools)
        expect(incremental.size).toBe(fresh.size)
        for (const q of QUERIES) expect(incremental.search(q)).toEqual(fresh.search(q))
      }),
      { numRuns: 300, seed: 19 },
    )
  })
})
