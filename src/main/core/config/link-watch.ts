// The folders of a watched file that can be replaced under the watch (and, for a file that is a link, every path its links lead to: linkChain): the file's own folder (removed
// and made again, made after the start, or another folder renamed over it: a package upgrade,
// configuration management)
// and the symlinks among the folders on its path (a dotfiles or Nix-managed config folder swapped
// with `ln -sfn`, a home-manager switch). A watch of the file's folder stays on the folder that was
// there when it started, so such a replacement is no event there, and neither is any later edit of
// the file now read: an organisation policy whose folder was made again stayed lifted until a
// restart. Each such entry is watched in its own parent, not followed; a replacement calls
// `onSwap`, which watches the folder anew and reads the file again. `watchFiles` is the one watch of
// a few files that both the config and the policy watcher use: their folders, and these entries.
import fs from 'node:fs'
import path from 'node:path'
import { watchFolders } from './watch-filter'

/** The folders on the way to `file` that are symlinks, nearest first. */
export function linkedFolders(file: string): string[] {
  const out: string[] = []
  let dir = path.dirname(path.resolve(file))
  for (;;) {
    if (fs.lstatSync(dir, { throwIfNoEntry: false })?.isSymbolicLink()) out.push(dir)
    const up = path.dirname(dir)
    if (up === dir) return out
    dir = up
  }
}

/**
 * The entries whose replacement a watch of `file`'s folder misses: that folder (when it or its
 * parent exists: a folder made later, an organisation's policy deployed while Toolgate runs, is
 * seen too), and the linked folders on its path.
 */
export function swapPoints(file: string): string[] {
  const folder = path.dirname(path.resolve(file))
  return [...new Set([...(fs.existsSync(path.dirname(folder)) ? [folder] : []), ...linkedFolders(file)])]
}

/** What a path is now (device and inode, of the link itself for a symlink), or null when nothing is there. */
function identity(p: string): string | null {
  try {
    const st = fs.lstatSync(p, { throwIfNoEntry: false })
    return st ? `${st.dev}:${st.ino}` : null
  } catch {
    return null
  }
}

/**
 * Calls `onSwap` when the folder of any of `files`, or a linked folder on its path, is replaced,
 * removed or made again; returns the stop. Each is watched in its parent (fs.watch: no listing of
 * the parent, which may be the home folder) and compared by inode at every event there: a folder
 * renamed away and another renamed in its place in one go is one more event for a name that is
 * still a folder, which a watch that only tells added from removed does not report.
 */
export function watchSwaps(files: readonly string[], onSwap: () => void): () => Promise<void> {
  // (a folder at the root of the filesystem has no parent to be watched in)
  const points = [...new Set(files.flatMap(swapPoints))].filter((p) => path.dirname(p) !== p)
  const seen = new Map(points.map((p) => [p, identity(p)]))
  const watchers: fs.FSWatcher[] = []
  for (const parent of new Set(points.map((p) => path.dirname(p)))) {
    const here = points.filter((p) => path.dirname(p) === parent)
    try {
      const w = fs.watch(parent, () => {
        let swapped = false
        for (const p of here) {
          const now = identity(p)
          if (now === seen.get(p)) continue
          seen.set(p, now)
          swapped = true
        }
        if (swapped) onSwap()
      })
      w.on('error', () => {})
      watchers.push(w)
    } catch {
      // a parent that cannot be watched (gone, no permission, out of watches): its swaps take a restart
    }
  }
  return async () => {
    for (const w of watchers) w.close()
  }
}

/** At most this many links are followed from one file (the kernel's own limit is 40). */
const MAX_HOPS = 40

/** The path with its symlinks resolved, or as it is when it cannot be (missing, unreadable). */
function physical(p: string): string {
  try {
    return fs.realpathSync(p)
  } catch {
    return p
  }
}

/**
 * Where a link's text leads from the link's folder, as the kernel goes: a `..` climbs from where
 * the path so far leads, its links followed (`sub/../x` with `sub` a link to another folder is
 * `x` beside that folder, not beside the link: path.resolve folds `sub/..` away as text).
 */
function hop(dir: string, text: string): string {
  let at = path.isAbsolute(text) ? path.parse(path.resolve(text)).root : dir
  for (const seg of text.split(path.sep === '\\' ? /[\\/]/ : '/')) {
    if (seg === '' || seg === '.') continue
    at = seg === '..' ? path.dirname(physical(at)) : path.join(at, seg)
  }
  return at
}

/**
 * `file` and each path its symlinks lead to, one hop at a time (a link's text followed from the
 * link's folder as the kernel follows it: hop): a file that is a link (a dotfiles manager's,
 * NixOS's /etc/x -> /etc/static/x) is read from where its links end, and an edit there, or a swap
 * of a linked folder on any hop's path (/etc/static), is no event in the file's own folder.
 */
export function linkChain(file: string): string[] {
  const out = [path.resolve(file)]
  for (let i = 0; i < MAX_HOPS; i++) {
    const p = out[out.length - 1] as string
    let next: string
    try {
      if (!fs.lstatSync(p).isSymbolicLink()) break
      next = hop(path.dirname(p), fs.readlinkSync(p))
    } catch {
      break
    }
    if (out.includes(next)) break
    out.push(next)
  }
  return out
}

/**
 * Watches `files` through their folders (watch-filter.ts: `changed` on every event for one of them
 * and once the watch is ready), and so every path a file's links lead to (linkChain): the file
 * read is where they end. When a folder of theirs or a linked folder on their path is replaced,
 * or a link of the chain is made to point elsewhere, the chains are followed again and watched
 * anew, whose readiness calls `changed` again. The caller debounces.
 */
export function watchFiles(files: readonly string[], changed: () => void): { close(): Promise<void> } {
  const chains = (): string[] => [...new Set(files.flatMap(linkChain))]
  let watched = chains()
  let closed = false
  const watch = (): { close(): Promise<void> } => {
    const folders = watchFolders(watched, onEvent)
    const stopSwaps = watchSwaps(watched, () => {
      rewatch()
      // read again now too: a folder that is gone has no watch to become ready
      changed()
    })
    return {
      async close() {
        await stopSwaps()
        await folders.close()
      },
    }
  }
  const rewatch = (): void => {
    if (closed) return
    void current.close()
    watched = chains()
    current = watch()
  }
  // a link of a chain retargeted (ln -sf renames a new link over it) is an event for its name
  function onEvent(): void {
    const now = chains()
    if (now.length !== watched.length || now.some((p, i) => p !== watched[i])) rewatch()
    changed()
  }
  let current = watch()
  return {
    async close() {
      closed = true
      await current.close()
    },
  }
}
