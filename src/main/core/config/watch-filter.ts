// chokidar's `ignored` for a folder watched for a few files in it (the config's folder, the data
// dir): the folder and those files are followed; every other entry (a log file written line by
// line, the activity folder, an atomic write's temp file) gets no watch and no stat of its own.
import path from 'node:path'

/** `ignored` for chokidar: true for every path but `dirs` and `files`. */
export function followOnly(dirs: readonly string[], files: readonly string[]): (p: string) => boolean {
  const keep = new Set([...dirs, ...files].map((p) => path.resolve(p)))
  return (p) => !keep.has(path.resolve(p))
}
