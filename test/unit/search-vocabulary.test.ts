// The restored vocabulary (docs/retrieval.md, "The vocabulary rule"): each entry that
// the dev-set tuning removed without a held-out set showing harm, checked by what it does for a request.
// Removing one of them makes its case fail here; the rule asks for held-out evidence first
// (bench/retrieval-vocab.mjs), and this file and the docs then change with it.
import { describe, expect, it } from 'vitest'
import { ToolIndex, type IndexedTool } from '../../src/main/core/search/tool-index'

const tool = (server: string, name: string, description: string): IndexedTool => ({ id: `${server}:${name}`, server, name, description, paramNames: [] })

/**
 * The request, the tool the entry links it to (server b) and a twin that differs only in the
 * linked word (server a, so it would come first on a tie): without the entry both match the
 * request's other words equally and the twin wins.
 */
const CASES: Array<[string, string, IndexedTool, IndexedTool]> = [
  ['define: a table defined is a table created', 'define a table', tool('b', 'create_table', 'Create a table.'), tool('a', 'drop_table', 'Drop a table.')],
  ['attach: attaching a label is adding one', 'attach a label', tool('b', 'add_label', 'Add a label.'), tool('a', 'remove_label', 'Remove a label.')],
  ['append: appending is adding at the end', 'append a line', tool('b', 'add_line', 'Add a line.'), tool('a', 'sort_line', 'Sort a line.')],
  ['strip: stripping tags is deleting them', 'strip the tags', tool('b', 'delete_tags', 'Delete the tags.'), tool('a', 'count_tags', 'Count the tags.')],
  [
    'translate: translating units is converting them',
    'translate the units',
    tool('b', 'convert_units', 'Convert the units.'),
    tool('a', 'list_units', 'List the units.'),
  ],
  ['history / log', 'commit history', tool('b', 'commit_log', 'Commit log.'), tool('a', 'commit_status', 'Commit status.')],
  ['several / multiple', 'read several files', tool('b', 'read_multiple_files', 'Read multiple files.'), tool('a', 'read_hidden_files', 'Read hidden files.')],
  ['big / size', 'how big is the file', tool('b', 'file_size', 'File size.'), tool('a', 'file_owner', 'File owner.')],
  [
    '-ship: relationships / relations',
    'relationships of people',
    tool('b', 'people_relations', 'People relations.'),
    tool('a', 'people_names', 'People names.'),
  ],
  ['added / add', 'added an item', tool('b', 'add_item', 'Add an item.'), tool('a', 'sell_item', 'Sell an item.')],
]

/** Round 3's entries, the same way: file formats named by their extension. */
const FORMATS: Array<[string, string, IndexedTool, IndexedTool]> = [
  [
    'xlsx / excel',
    'read the numbers in sales.xlsx',
    tool('b', 'read_excel', 'Read the numbers of an Excel workbook.'),
    tool('a', 'read_csv', 'Read the numbers of a CSV table.'),
  ],
  [
    'pptx / presentation',
    'save the deck as talk.pptx',
    tool('b', 'save_presentation', 'Save the presentation.'),
    tool('a', 'save_document', 'Save the document.'),
  ],
]

function first(query: string, tools: IndexedTool[]): string | undefined {
  const index = new ToolIndex()
  for (const t of tools) index.setServerTools(t.server, [t])
  return index.search(query)[0]?.id
}

describe('restored vocabulary (docs/retrieval.md, the vocabulary rule): each entry still answers the request it links', () => {
  it.each(CASES)('%s', (_name, query, linked, twin) => {
    expect(first(query, [linked, twin])).toBe(linked.id)
  })

  it.each(FORMATS)('%s (round 3)', (_name, query, linked, twin) => {
    expect(first(query, [linked, twin])).toBe(linked.id)
  })

  it('request-framing words (SMART stop list) are not content: they neither match nor count', () => {
    const echo = tool('b', 'echo', 'Echo back the given text.')
    const framed = tool('a', 'really_everything', 'Really everything, even something still.')
    expect(first('really everything even something still', [echo, framed])).toBeUndefined()
    expect(first('echo text, really, even everything', [echo, framed])).toBe(echo.id)
  })
})
