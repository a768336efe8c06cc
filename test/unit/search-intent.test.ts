// Ranking by what a request means to do: a request to read prefers tools whose
// call variant reads, a request to change prefers tools that change, neither kind is hidden; a
// tool without hints (its variant is the MCP spec's default) counts as neither for ranking.
// Filler words in a description weigh nothing. Through the index, and through the real catalog
// and retrieve_tools.
import { describe, expect, it } from 'vitest'
import { ToolIndex, type IndexedTool } from '../../src/main/core/search/tool-index'
import { requestEffect } from '../../src/main/core/search/intent'
import { leadingVerb } from '../../src/main/core/search/synonyms'
import { isStopWord, splitIdentifier } from '../../src/main/core/search/tokenize'
import { retrieve } from '../../src/main/core/discovery/retrieve'
import { FULL_SCOPE } from '../../src/main/core/access/scope'
import type { Variant } from '../../src/shared/call-variant'
import { DESTRUCTIVE, READ, WRITE, makeFixture, runServer, tool } from '../helpers/catalog-fixture'

const doc = (name: string, description: string, variant?: Variant, hinted = true): IndexedTool => ({
  id: `fs:${name}`,
  server: 'fs',
  name,
  description,
  paramNames: ['path'],
  ...(variant ? { variant, hinted } : {}),
})

// read_file and write_file share "file"; the request's verb names neither ("peek", "jot").
const FILES = [
  doc('read_file', 'Return the contents of a file.', 'read'),
  doc('write_file', 'Put new contents into a file.', 'write'),
  doc('delete_file', 'Remove a file for good.', 'destructive'),
]
function index(tools: IndexedTool[], options: ConstructorParameters<typeof ToolIndex>[0] = {}): ToolIndex {
  const i = new ToolIndex(options)
  i.setServerTools('fs', tools)
  return i
}
const ids = (i: ToolIndex, q: string): string[] => i.search(q).map((h) => h.id)

describe('what a request means to do', () => {
  const effect = (q: string) => {
    const words = splitIdentifier(q)
    const lead = leadingVerb(words, isStopWord)
    return requestEffect(q, words, lead === undefined ? [] : [lead])
  }
  it.each([
    ['show me the file contents', 'read'],
    ['list the branches', 'read'],
    ['I need to see what is inside notes.txt', 'read'],
    ['look up the entity Alice', 'read'],
    ['what files are in my downloads?', 'read'],
    ['is my working tree clean', 'read'],
    ['write a file', 'change'],
    ['please delete the old branch', 'change'],
    ['can you rename notes.txt?', 'change'],
    ['help me add an observation', 'change'],
    ['commit my changes', 'change'],
    ['convert 3pm Berlin time to Tokyo', undefined],
    ['weather in Paris', undefined],
  ])('%s → %s', (q, expected) => {
    expect(effect(q)).toBe(expected)
  })
})

describe('the index ranks by the request and the call variant, hiding nothing', () => {
  it('"write a file" ranks the writing tool above read_file; "read a file" the other way round', () => {
    const i = index(FILES)
    expect(ids(i, 'write a file')[0]).toBe('fs:write_file')
    expect(ids(i, 'read a file')[0]).toBe('fs:read_file')
  })

  it('a request whose verb names no tool still gets the tools of its kind first', () => {
    const i = index(FILES.slice(0, 2))
    expect(ids(i, 'show me the file')[0]).toBe('fs:read_file')
    expect(ids(i, 'what is in this file?')[0]).toBe('fs:read_file')
    expect(ids(i, 'save this file')[0]).toBe('fs:write_file')
  })

  it('tools of the other kind stay in the results, only lower', () => {
    const i = index(FILES)
    expect(ids(i, 'show me the file').sort()).toEqual(FILES.map((t) => t.id).sort())
    expect(ids(i, 'save this file').sort()).toEqual(FILES.map((t) => t.id).sort())
  })

  it('without the feature (weight 0) equal texts tie whatever their variants', () => {
    const twins = [doc('a_file_tool', 'Works on a file.', 'write'), doc('b_file_tool', 'Works on a file.', 'read')]
    const off = index(twins, { intent: { weight: 0, unhinted: 'change' } })
    expect(ids(off, 'show the file')).toEqual(['fs:a_file_tool', 'fs:b_file_tool'])
    expect(ids(index(twins), 'show the file')).toEqual(['fs:b_file_tool', 'fs:a_file_tool'])
  })

  it('a tool without hints is neither kind: it keeps its place against a reader and a writer alike', () => {
    const tools = [
      doc('a_file_tool', 'Works on a file.', 'destructive', false),
      doc('b_file_tool', 'Works on a file.', 'read'),
      doc('c_file_tool', 'Works on a file.', 'write'),
    ]
    const i = index(tools)
    expect(ids(i, 'show the file')).toEqual(['fs:a_file_tool', 'fs:b_file_tool', 'fs:c_file_tool'])
    expect(ids(i, 'delete the file')).toEqual(['fs:a_file_tool', 'fs:c_file_tool', 'fs:b_file_tool'])
    // with unhinted: 'change' (measured worse, docs/retrieval.md) it would count as changing
    const asChange = index(tools, { intent: { weight: 0.5, unhinted: 'change' } })
    expect(ids(asChange, 'show the file')).toEqual(['fs:b_file_tool', 'fs:a_file_tool', 'fs:c_file_tool'])
  })

  it('a changed variant re-ranks at once (the document is re-indexed, not skipped as unchanged)', () => {
    const i = index([doc('a_file_tool', 'Works on a file.', 'write'), doc('b_file_tool', 'Works on a file.', 'read')])
    expect(ids(i, 'show the file')[0]).toBe('fs:b_file_tool')
    i.setServerTools('fs', [doc('a_file_tool', 'Works on a file.', 'read'), doc('b_file_tool', 'Works on a file.', 'write')])
    expect(ids(i, 'show the file')[0]).toBe('fs:a_file_tool')
  })
})

describe('filler words in a description do not weigh like content words', () => {
  it('"simply", "actually", "clearly" in a description earn nothing for a request that says them', () => {
    const i = index([doc('a_notes', 'Simply, actually, clearly the notes.'), doc('b_notes', 'The notes.')])
    const hits = i.search('simply actually clearly the notes')
    expect(hits).toHaveLength(2)
    expect(hits[0].score).toBe(hits[1].score)
    expect(i.search('simply actually clearly')).toEqual([])
  })
})

describe('through the catalog: retrieve_tools uses the call variant the gate uses', () => {
  it('"write a file" answers write_file before read_file, "read a file" read_file first; both stay listed', async () => {
    const fx = makeFixture({ mcpServers: { files: { command: 'x' } } })
    await runServer(fx, 'files', [
      tool('read_file', 'Return the contents of a file.', { annotations: READ }),
      tool('write_file', 'Put new contents into a file.', { annotations: WRITE }),
      tool('delete_file', 'Remove a file for good.', { annotations: DESTRUCTIVE }),
    ])
    const names = (query: string) => retrieve(fx.catalog, { query }, FULL_SCOPE).tools.map((t) => t.name)
    expect(names('write a file')[0]).toBe('files:write_file')
    expect(names('write a file')).toContain('files:read_file')
    expect(names('read a file')[0]).toBe('files:read_file')
    expect(names('show me the contents of a file')[0]).toBe('files:read_file')
    expect(names('show me the contents of a file')).toHaveLength(3)
  })

  it("a classification stands in for missing hints (the operator's tool_classes): it counts, the spec's default does not", async () => {
    const twins = [tool('a_notes', 'Works on the notes.'), tool('b_notes', 'Works on the notes.')]
    const plain = makeFixture({ mcpServers: { n: { command: 'x' } } })
    await runServer(plain, 'n', twins)
    const classified = makeFixture({ mcpServers: { n: { command: 'x', tool_classes: { a_notes: 'read' } } } })
    await runServer(classified, 'n', twins)
    const first = (fx: typeof plain) => retrieve(fx.catalog, { query: 'delete the notes' }, FULL_SCOPE).tools[0].name
    expect(first(plain)).toBe('n:a_notes') // both unknown: a tie, id order
    expect(first(classified)).toBe('n:b_notes') // a_notes is known to read, the request changes
  })
})
