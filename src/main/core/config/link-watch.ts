// The symlinks among the folders of a watched file (a dotfiles or Nix-managed config folder): a watch
// of the file's folder stays on the folder the link pointed to when it started, so a swap of the
// link (`ln -sfn`, a home-manager switch) is no event there, and neither is any later edit of the
// file now read. Each such link is watched in its own parent, not followed; a swap calls `onSwap`,
// which watches the folder anew and reads the file again. Most configs have no linked folder: then
// nothing is watched here. `watchFiles` is the one watch of a few files that both the config and
// the policy watcher use: their folders, and these links.
import chokidar, { type FSWatcher } from 'chokidar'
import fs from 'node:fs'
import path from 'node:path'
import { followOnly, watchFolders } from './watch-filter'

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

/** Calls `onSwap` when a linked folder of any of `files` is replaced or removed; returns the stop. */
export function watchLinks(files: readonly string[], onSwap: () => void): () => Promise<void> {
  const links = [...new Set(files.flatMap(linkedFolders))]
  if (links.length === 0) return async () => undefined
  const parents = [...new Set(links.map((l) => path.dirname(l)))]
  const watcher: FSWatcher = chokidar.watch(parents, { ignoreInitial: true, depth: 0, followSymlinks: false, ignored: followOnly(parents, links) })
  const linked = new Set(links)
  watcher.on('all', (_event, p) => {
    if (linked.has(path.resolve(p))) onSwap()
  })
  watcher.on('error', () => {})
  return () => watcher.close()
}

/**
 * Watches `files` through their folders (watch-filter.ts: `changed` on every event for one of them
 * and once the watch is ready), and when a linked folder on their path is swapped, watches the
 * folders anew, whose readiness calls `changed` again. The caller debounces.
 */
export function watchFiles(files: readonly string[], changed: () => void): { close(): Promise<void> } {
  let watcher = watchFolders(files, changed)
  const stopLinks = watchLinks(files, () => {
    void watcher.close()
    watcher = watchFolders(files, changed)
  })
  return {
    async close() {
      await stopLinks()
      await watcher.close()
    },
  }
}
