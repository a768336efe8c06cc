// Watching a few files through their folder (the config's folder, the data dir), so a file
// written, replaced by a rename over it, or removed is seen: chokidar follows the folder and
// those files only; every other entry (a log file written line by line, the activity folder, an
// atomic write's temp file) gets no watch and no stat of its own.
import chokidar, { type FSWatcher } from 'chokidar'
import fs from 'node:fs'
import path from 'node:path'

/** `ignored` for chokidar: true for every path but `dirs` and `files`. */
export function followOnly(dirs: readonly string[], files: readonly string[]): (p: string) => boolean {
  const keep = new Set([...dirs, ...files].map((p) => path.resolve(p)))
  return (p) => !keep.has(path.resolve(p))
}

/**
 * Watches `files` through their folders (those that exist now): `changed` runs on every event
 * for one of them, and once when the watch is ready (a change made between the caller's first
 * read and then has no event).
 * The caller debounces; errors end nothing (a folder that goes away just stops the events).
 * Callers use `watchFiles` (link-watch.ts), which also follows a swap of a linked folder.
 */
export function watchFolders(files: readonly string[], changed: () => void): FSWatcher {
  const dirs = [...new Set(files.map((f) => path.dirname(f)))].filter((d) => fs.existsSync(d))
  const watched = new Set(files.map((f) => path.resolve(f)))
  const watcher = chokidar.watch(dirs, { ignoreInitial: true, depth: 0, awaitWriteFinish: false, ignored: followOnly(dirs, files) })
  watcher.on('all', (_event, p) => {
    if (watched.has(path.resolve(p))) changed()
  })
  watcher.on('ready', changed)
  watcher.on('error', () => {})
  return watcher
}
