// Hidden files covered where they lie (a read-only bind on the file itself: the way left for a
// file in a folder the server may write, which cannot be re-created without it). A rename over
// such a file detaches the cover in the server's view, so while a server runs with one, Toolgate
// writes that file in place (same inode, the cover holds) instead of renaming a new file over it.
import fs from 'node:fs'
import path from 'node:path'

const held = new Map<string, number>()

/** Marks `files` as covered in place until the returned release is called (once). */
export function holdCovers(files: readonly string[]): () => void {
  const keys = files.map((f) => real(f))
  for (const k of keys) held.set(k, (held.get(k) ?? 0) + 1)
  let released = false
  return () => {
    if (released) return
    released = true
    for (const k of keys) {
      const n = (held.get(k) ?? 1) - 1
      if (n <= 0) held.delete(k)
      else held.set(k, n)
    }
  }
}

/** Whether a running sandbox covers `file` in place (then it must be rewritten in place). */
export function coveredInPlace(file: string): boolean {
  return held.has(real(file))
}

/** The path with every symlink resolved, as far as it exists (as the sandbox plan resolves it). */
function real(p: string): string {
  try {
    return fs.realpathSync.native(p)
  } catch {
    const parent = path.dirname(p)
    return parent === p ? p : path.join(real(parent), path.basename(p))
  }
}
