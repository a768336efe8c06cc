// isInside (sandbox/plan.ts) answers exactly what path.relative says for every pair of paths:
// its fast path for plain absolute paths must never disagree (a wrong "outside" would leave a
// hidden path in view or a grant into Toolgate's data dir unrefused).
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { depth, isInside } from '../../src/main/core/upstream/sandbox/plan'

/** The definition: path.relative's answer. */
const byRelative = (child: string, parent: string): boolean => {
  if (child === parent) return true
  const rel = path.relative(parent, child)
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)
}

const SEGMENTS = ['a', 'ab', 'b', '.ssh', '..x', '.', '..', '', 'a.b', '...', 'x..', 'home', 'u']

/** Every path of up to three segments from SEGMENTS, absolute and relative, with and without a trailing slash. */
function corpus(): string[] {
  const out = new Set<string>(['/', '//', '.', '..', ''])
  const walk = (parts: string[]): void => {
    if (parts.length > 0) {
      const joined = parts.join('/')
      for (const p of [`/${joined}`, joined, `/${joined}/`, `//${joined}`]) out.add(p)
    }
    if (parts.length < 3) for (const s of SEGMENTS) walk([...parts, s])
  }
  walk([])
  return [...out]
}

describe('isInside', () => {
  it('agrees with path.relative on every pair of a corpus of tricky paths', () => {
    const paths = corpus()
    expect(paths.length).toBeGreaterThan(2000)
    const parents = paths.filter((_, i) => i % 83 === 0)
    let inside = 0
    const wrong: string[] = []
    for (const parent of parents) {
      for (const child of paths) {
        const want = byRelative(child, parent)
        if (want) inside++
        if (isInside(child, parent) !== want) wrong.push(`${child} in ${parent}: ${!want}`)
      }
    }
    expect(wrong.slice(0, 20)).toEqual([])
    expect(inside).toBeGreaterThan(200)
  })

  it('knows a sibling with a longer name from a child', () => {
    expect(isInside('/home/u/.sshx', '/home/u/.ssh')).toBe(false)
    expect(isInside('/home/u/.ssh/id', '/home/u/.ssh')).toBe(true)
    expect(isInside('/home/u', '/')).toBe(true)
    expect(isInside('/home/u/../v', '/home/u')).toBe(false)
  })
})

describe('depth', () => {
  it('counts the segments between slashes and backslashes, as splitting on them does, for every path of the corpus', () => {
    const bySplit = (p: string): number => p.split(/[\\/]+/).filter(Boolean).length
    const paths = [...corpus(), 'C:\\Users\\u\\.ssh', '\\\\server\\share\\x', 'a\\/b//\\c', '/ü/日本/x']
    expect(paths.filter((p) => depth(p) !== bySplit(p))).toEqual([])
    expect([depth('/'), depth('/home/u/.ssh'), depth('a//b/'), depth('')]).toEqual([0, 3, 2, 0])
  })
})
