// sanitizeTools: an upstream's tool list is untrusted input.
import { describe, expect, it } from 'vitest'
import { sanitizeTools } from '../../src/main/core/upstream'
import { MAX_TOOL_DEPTH, nestsDeeper } from '../../src/main/core/upstream/tools'

const LIMITS = { maxTools: 3, maxDescriptionChars: 10, maxResultBytes: 1000 }

describe('sanitizeTools', () => {
  it('keeps valid tools with their fields, defaulting a missing inputSchema and description', () => {
    const { tools, warnings } = sanitizeTools(
      [
        {
          name: 'a',
          description: 'short',
          inputSchema: { type: 'object' },
          annotations: { readOnlyHint: true },
          title: 'A',
          outputSchema: { type: 'object' },
          extra: 1,
        },
        { name: 'b' },
      ],
      LIMITS,
    )
    expect(tools).toEqual([
      { name: 'a', description: 'short', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true }, title: 'A', outputSchema: { type: 'object' } },
      { name: 'b', description: '', inputSchema: { type: 'object', properties: {} } },
    ])
    expect(warnings).toEqual([])
  })

  it('drops invalid tools with a warning and keeps the rest', () => {
    const { tools, warnings } = sanitizeTools(
      [null, 'x', { name: 42 }, { name: '' }, { name: 'bad\nname' }, { name: 'ok' }, { name: 'ok' }, { name: 's', inputSchema: 'nope' }],
      { ...LIMITS, maxTools: 10 },
    )
    expect(tools.map((t) => t.name)).toEqual(['ok'])
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatch(
      /^dropped 7 invalid tool\(s\): #0: not an object; #1: not an object; #2: invalid name 42; #3: invalid name ""; #4: invalid name "bad\\nname"; …$/,
    )
  })

  it('ignores non-object annotations/schemas and non-string descriptions', () => {
    const { tools } = sanitizeTools([{ name: 'a', description: 5, annotations: [1], outputSchema: 'x', title: {} }], LIMITS)
    expect(tools).toEqual([{ name: 'a', description: '', inputSchema: { type: 'object', properties: {} } }])
  })

  it('truncates long descriptions without splitting a surrogate pair', () => {
    const { tools, warnings } = sanitizeTools([{ name: 'a', description: 'x'.repeat(8) + '😀😀😀' }], LIMITS)
    expect(tools[0].description).toBe(`${'x'.repeat(8)}…`)
    expect(tools[0].description?.length).toBeLessThanOrEqual(10)
    expect(warnings).toEqual(['truncated 1 tool description(s) to 10 characters (limits.max_description_chars)'])
  })

  it('caps the number of tools', () => {
    const { tools, warnings } = sanitizeTools(
      ['a', 'b', 'c', 'd', 'e'].map((name) => ({ name })),
      LIMITS,
    )
    expect(tools.map((t) => t.name)).toEqual(['a', 'b', 'c'])
    expect(warnings).toEqual(['lists 5 tools; only the first 3 are used (limits.max_tools_per_server)'])
  })
})

describe('sanitizeTools caps titles and annotations like descriptions', () => {
  it('a long title is truncated; annotations over the cap keep only the standard hints', () => {
    const huge = { readOnlyHint: false, destructiveHint: true, title: 'T'.repeat(50), note: 'x'.repeat(500) }
    const { tools, warnings } = sanitizeTools([{ name: 'a', title: 'A'.repeat(40), annotations: huge }], {
      ...LIMITS,
      maxTitleChars: 8,
      maxAnnotationsBytes: 100,
    })
    expect(tools[0].title).toBe('AAAAAAA…')
    // the variant hints survive (a destructive tool never becomes a read tool by padding its annotations)
    expect(tools[0].annotations).toEqual({ readOnlyHint: false, destructiveHint: true, title: 'TTTTTTT…' })
    expect(warnings).toEqual([
      'truncated 1 tool title(s) to 8 characters (limits.max_title_chars)',
      '1 tool(s) had annotations over 100 bytes (limits.max_annotations_bytes); only the standard hints were kept',
    ])
  })
})

describe('nestsDeeper (how deep a tool definition may nest)', () => {
  const nested = (levels: number): unknown => {
    let v: unknown = 'leaf'
    for (let i = 0; i < levels; i++) v = i % 2 === 0 ? [v] : { x: v }
    return v
  }
  it('counts objects and arrays alike, and stops at the limit', () => {
    expect(nestsDeeper(nested(MAX_TOOL_DEPTH), MAX_TOOL_DEPTH)).toBe(false)
    expect(nestsDeeper(nested(MAX_TOOL_DEPTH + 1), MAX_TOOL_DEPTH)).toBe(true)
    // far past the stack of a recursive walk
    expect(nestsDeeper(nested(200_000), MAX_TOOL_DEPTH)).toBe(true)
    expect(nestsDeeper({ type: 'object', properties: { a: { type: 'array', items: { type: 'string' } } } }, MAX_TOOL_DEPTH)).toBe(false)
  })
})
