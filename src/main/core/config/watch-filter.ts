// Watching a few files through their folder (the config's folder, the data dir), so a file
// written, replaced by a rename over it, or removed is seen: one fs.watch per folder, and an event
// counts only when it names one of those files. Nothing else in the folder costs anything beyond
// that name check: no listing of the folder, no stat of its entries (chokidar, used before, listed
// and lstat'ed the whole folder after every event in it: each of Toolgate's own atomic writes of
// state.json, catalog.json, a log line of a log file kept there).
import fs from 'node:fs'
import path from 'node:path'

/** A watch of a few files; `close` ends it. */
export interface FolderWatch {
  close(): Promise<void>
}

/**
 * Watches `files` through their folders (those that exist now): `changed` runs on every event for
 * one of them (also an event whose file name the platform did not give: it may be one of them),
 * and, unless `ready: false`, once right after the watch is set up (a change made between the
 * caller's first read and then has no event).
 * The caller debounces; errors end nothing (a folder that goes away just stops the events; one
 * that cannot be watched, e.g. no inotify watches left, gives none).
 */
export function watchFolders(files: readonly string[], changed: () => void, o: { ready?: boolean } = {}): FolderWatch {
  const names = new Map<string, Set<string>>()
  for (const f of files.map((x) => path.resolve(x))) {
    const dir = path.dirname(f)
    const set = names.get(dir) ?? new Set<string>()
    set.add(path.basename(f))
    names.set(dir, set)
  }
  const watchers: fs.FSWatcher[] = []
  for (const [dir, ours] of names) {
    if (!fs.existsSync(dir)) continue
    try {
      const w = fs.watch(dir, (_event, name) => {
        if (name === null || ours.has(String(name))) changed()
      })
      w.on('error', () => {})
      watchers.push(w)
    } catch {
      // gone meanwhile, no permission, out of inotify watches: no events from this folder
    }
  }
  const ready = o.ready === false ? null : setImmediate(changed)
  return {
    close() {
      if (ready) clearImmediate(ready)
      for (const w of watchers) w.close()
      return Promise.resolve()
    },
  }
}
