// The call variant a tool needs (docs/contract.md §3), as the MCP spec defines the hints:
// readOnlyHint defaults to false, destructiveHint to true, and a classification stands in for
// missing hints without ever weakening a server's own stricter hint.
import { describe, expect, it } from 'vitest'
import { decideVariant, hasVariantHints, requiredVariant, type ToolAnnotations } from '../../src/shared/call-variant'

describe('the variant a definition needs by its annotations', () => {
  it.each<[string, ToolAnnotations | undefined, 'read' | 'write' | 'destructive']>([
    ['no annotations at all', undefined, 'destructive'],
    ['an empty annotations object', {}, 'destructive'],
    ['only a title and the other hints', { title: 'Delete', idempotentHint: true, openWorldHint: false }, 'destructive'],
    ['hints given as strings (not booleans)', { readOnlyHint: 'true' as unknown as boolean, destructiveHint: 'false' as unknown as boolean }, 'destructive'],
    ['readOnlyHint: true', { readOnlyHint: true }, 'read'],
    ['readOnlyHint: true, destructiveHint: false', { readOnlyHint: true, destructiveHint: false }, 'read'],
    ['readOnlyHint: false alone', { readOnlyHint: false }, 'write'],
    ['readOnlyHint: false, destructiveHint: false', { readOnlyHint: false, destructiveHint: false }, 'write'],
    ['destructiveHint: false alone (readOnlyHint defaults to false)', { destructiveHint: false }, 'write'],
    ['destructiveHint: true', { destructiveHint: true }, 'destructive'],
    ['readOnlyHint: false, destructiveHint: true', { readOnlyHint: false, destructiveHint: true }, 'destructive'],
    ['contradictory readOnlyHint: true with destructiveHint: true (the stricter)', { readOnlyHint: true, destructiveHint: true }, 'destructive'],
  ])('%s → %s', (_what, annotations, variant) => {
    expect(requiredVariant(annotations)).toBe(variant)
    expect(decideVariant(annotations)).toEqual({ variant, source: hasVariantHints(annotations) ? 'annotations' : 'no_annotations' })
  })

  it('annotations_missing is about the two hints only', () => {
    expect(hasVariantHints(undefined)).toBe(false)
    expect(hasVariantHints({ title: 'x', idempotentHint: true })).toBe(false)
    expect(hasVariantHints({ destructiveHint: false })).toBe(true)
    expect(hasVariantHints({ readOnlyHint: false })).toBe(true)
  })
})

describe('a classification stands in for missing hints and never weakens a stricter hint', () => {
  it.each<[string, ToolAnnotations | undefined, 'read' | 'write' | 'destructive', 'operator' | 'user', string]>([
    ['no hints, the user says read', undefined, 'read', 'user', 'read/user'],
    ['no hints, the operator says write', { title: 'x' }, 'write', 'operator', 'write/operator'],
    ['no hints, the user says destructive', undefined, 'destructive', 'user', 'destructive/user'],
    ['the server says destructive, the user says read: the server wins', { destructiveHint: true }, 'read', 'user', 'destructive/annotations'],
    ['the server says write, the operator says read: the server wins', { readOnlyHint: false }, 'read', 'operator', 'write/annotations'],
    ['the server says read, the user says destructive: the stricter classification', { readOnlyHint: true }, 'destructive', 'user', 'destructive/user'],
    ['the server says write, the classification says write too: the server decides', { readOnlyHint: false }, 'write', 'user', 'write/annotations'],
  ])('%s', (_what, annotations, cls, by, expected) => {
    const d = decideVariant(annotations, { class: cls, by })
    expect(`${d.variant}/${d.source}`).toBe(expected)
  })
})
