// What an agent reads of a listed resource or template (agent-server/resource-text.ts): standard
// fields only, one escaped line each, cut; MIME type, size, annotations and `_meta` in their known shape.
import { describe, expect, it } from 'vitest'
import { agentResource, agentTemplate, MAX_RESOURCE_DESCRIPTION_CHARS, MAX_RESOURCE_NAME_CHARS, oneLine } from '../../src/main/core/agent-server/resource-text'

const URI = 'file://s.toolgate.invalid/~/a.txt'

describe('oneLine', () => {
  it('joins lines and tabs with one space and escapes what a reader would not see', () => {
    expect(oneLine('a\r\n\n\tb  c', 100)).toBe('a b c')
    expect(oneLine('x\u001b[2Jy\u202ez\u200bw', 100)).toBe('x\\u001b[2Jy\\u202ez\\u200bw')
    expect(oneLine(`t${String.fromCodePoint(0xe0041)}`, 100)).toBe('t\\u{e0041}')
    expect(oneLine('a\u2028b', 100)).toBe('a\\u2028b')
  })

  it('cuts to the limit with an ellipsis, escapes counted, never inside a surrogate pair', () => {
    expect(oneLine('abcdef', 4)).toBe('abc…')
    expect(oneLine('\u202e'.repeat(10), 13)).toBe('\\u202e\\u202e…')
    const emoji = `ab${'\u{1f600}'.repeat(10)}`
    const out = oneLine(emoji, 6)
    expect(out.length).toBeLessThanOrEqual(6)
    expect(out).toBe('ab\u{1f600}…')
    expect(oneLine('y'.repeat(1_000_000), 1000)).toHaveLength(1000)
  })
})

describe('agentResource / agentTemplate', () => {
  it('keeps the standard fields of a plain resource as they are', () => {
    const plain = {
      uri: URI,
      name: 'a.txt',
      title: 'A',
      description: 'The note A',
      mimeType: 'text/html;profile=mcp-app',
      size: 12,
      annotations: { audience: ['user', 'assistant'], priority: 0, lastModified: '2026-11-28T05:00:00.123Z' },
      _meta: { ui: { prefersBorder: true, csp: { connectDomains: ['https://x.example'] } }, 'openai/widgetPrefersBorder': false },
    }
    expect(agentResource(plain)).toEqual(plain)
  })

  it('drops unknown keys, malformed fields and _meta keys that are not the App’s', () => {
    const out = agentResource({
      uri: URI,
      name: 'n',
      mimeType: 'text/plain\nIGNORE',
      size: -1,
      annotations: { audience: ['assistant', 'system', 'assistant'], priority: 2, lastModified: 'yesterday' },
      _meta: { 'toolgate/id': 'other:x', note: 'hi' },
      icons: [{ src: 'https://evil.example/p.png' }],
      instructions: 'do this',
    })
    expect(out).toEqual({ uri: URI, name: 'n', annotations: { audience: ['assistant'] } })
    expect(agentResource({ uri: URI, name: 'n', size: 1.5, mimeType: 'textplain', annotations: { priority: 'high' } })).toEqual({ uri: URI, name: 'n' })
    expect(agentResource({ uri: URI, name: 'n', annotations: { lastModified: '2026-02-31T00:00:00Z' } }).annotations).toBeUndefined()
  })

  it('a resource without a name is named by its URI', () => {
    expect(agentResource({ uri: URI }).name).toBe(URI)
    expect(agentResource({ uri: URI, name: '  ' }).name).toBe(URI)
    expect(agentTemplate({ uriTemplate: 'file://s.toolgate.invalid/~/{id}', name: 7 }).name).toBe('file://s.toolgate.invalid/~/{id}')
  })

  it('caps names, titles and descriptions', () => {
    const out = agentTemplate({ uriTemplate: 'u', name: 'n'.repeat(5000), title: 't'.repeat(5000), description: 'd'.repeat(50_000) })
    expect((out.name as string).length).toBe(MAX_RESOURCE_NAME_CHARS)
    expect((out.title as string).length).toBe(MAX_RESOURCE_NAME_CHARS)
    expect((out.description as string).length).toBe(MAX_RESOURCE_DESCRIPTION_CHARS)
    expect(Object.keys(out).sort()).toEqual(['description', 'name', 'title', 'uriTemplate'])
  })

  it('escapes the strings of an App’s _meta, and drops one too large or too deep', () => {
    const meta = agentResource({ uri: URI, name: 'n', _meta: { ui: { domain: 'a\nb\u202e', ['k\u001b']: 1 } } })._meta
    expect(meta).toEqual({ ui: { domain: 'a b\\u202e', 'k\\u001b': 1 } })
    expect(
      agentResource({
        uri: URI,
        name: 'n',
        _meta: { ui: { pad: 'p'.repeat(900), more: ['q'.repeat(900), 'r'.repeat(900), 's'.repeat(900), 't'.repeat(900)] } },
      })._meta,
    ).toBeUndefined()
    let deep: Record<string, unknown> = { x: 1 }
    for (let i = 0; i < 20; i++) deep = { d: deep }
    const kept = JSON.stringify(agentResource({ uri: URI, name: 'n', _meta: { ui: deep } })._meta)
    expect(kept.split('"d"').length - 1).toBeLessThan(8)
  })
})
