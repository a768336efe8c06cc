// The config text a running Toolgate last applied, by file: what its own config writes start from
// while the file is missing (deleted or moved away), so a change made meanwhile writes the running
// config back with that change instead of a file that holds only the change.
import path from 'node:path'

const texts = new Map<string, string>()

/** Records `text` as what the watcher of `file` runs now (set on each applied reload while it watches). */
export function setRunningText(file: string, text: string): void {
  texts.set(path.resolve(file), text)
}

/** The watcher of `file` stopped: a later write no longer has a running config to start from. */
export function forgetRunningText(file: string): void {
  texts.delete(path.resolve(file))
}

/** The text the running watcher of `file` applied last, or undefined when nothing watches it. */
export function runningText(file: string): string | undefined {
  return texts.get(path.resolve(file))
}
