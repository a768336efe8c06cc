// Path answers a sandbox plan asks thousands of times: whether one path lies in another, by depth.
import path from 'node:path'

/** Whether `child` is `parent` or lies below it (path.relative's answer: neither '' nor '..' first, nor absolute). */
export function isInside(child: string, parent: string): boolean {
  if (child === parent) return true
  // a plan asks this thousands of times, mostly of plain absolute paths: then it is a prefix check
  // with path.relative's exact answer, and without its two path.resolve() calls
  if (POSIX && plainPath(child) && plainPath(parent)) {
    const base = parent === '/' ? '/' : `${parent}/`
    return child.startsWith(base) && !child.startsWith('..', base.length)
  }
  const rel = path.relative(parent, child)
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)
}

const POSIX = path.sep === '/'

/** An absolute path path.resolve() leaves as it is: no empty, '.' or '..' segment, no trailing slash. */
export function plainPath(p: string): boolean {
  if (p.charCodeAt(0) !== 47) return false
  if (p.length === 1) return true
  return !p.endsWith('/') && !p.endsWith('/.') && !p.endsWith('/..') && !p.includes('//') && !p.includes('/./') && !p.includes('/../')
}

export function unique<T>(xs: T[]): T[] {
  return [...new Set(xs)]
}

/** How many segments `p` has (runs of characters between `/` or `\\`): sorted by thousands of times per start, so no split. */
export function depth(p: string): number {
  let n = 0
  let inSegment = false
  for (let i = 0; i < p.length; i++) {
    const c = p.charCodeAt(i)
    const separator = c === 47 || c === 92
    if (!separator && !inSegment) n++
    inSegment = !separator
  }
  return n
}
