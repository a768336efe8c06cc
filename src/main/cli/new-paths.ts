// Paths the user named that do not exist yet: a typo in --data-dir must not start a
// whole new data dir (key, logs, config, "No servers configured"), nor a typo in connect --file
// create folders. Outside the default places Toolgate asks first in a terminal; without one (a
// script, a client's `toolgate stdio`) it refuses what looks like a typo, with the near name.
import fs from 'node:fs'
import path from 'node:path'
import { nearMiss } from '../../shared/near-miss'
import { resolveDataDir } from '../core/paths'
import { UsageError } from './errors'
import { askYes } from './ask-yes'

/** Files a Toolgate data dir holds: a sibling with one of them is a data dir the user may have meant. */
const DATA_DIR_MARKS = ['mcp_config.json', 'state.json', 'toolgate.lock', 'instance.json']

const isDir = (p: string): boolean => {
  try {
    return fs.statSync(p).isDirectory()
  } catch {
    return false
  }
}

/** The nearest existing folder above `p` (or `p` itself), and the first part of `p` under it that is missing. */
function firstMissing(p: string): { existing: string; missing: string } {
  let cur = path.resolve(p)
  let child = cur
  while (!fs.existsSync(cur)) {
    child = cur
    const up = path.dirname(cur)
    if (up === cur) break
    cur = up
  }
  return { existing: cur, missing: child }
}

/**
 * A folder near `missing` that exists beside it (a typo of a name, not a new name), or null.
 * `dataDir`: the new data dir's own name, where names of at most 5 letters are left alone ("data2"
 * beside "data" is a choice, ".toolgat" beside ".toolgate" a typo); folders on the way always count.
 */
function nearFolder(missing: string, accept: (dir: string) => boolean = () => true, dataDir = false): string | null {
  const parent = path.dirname(missing)
  const name = path.basename(missing)
  if (dataDir && name.replace(/[^A-Za-z0-9]/g, '').length <= 5) return null
  let entries: string[]
  try {
    entries = fs.readdirSync(parent).filter((e) => isDir(path.join(parent, e)) && accept(path.join(parent, e)))
  } catch {
    return null
  }
  const meant = nearMiss(name, entries)
  return meant ? path.join(parent, meant) : null
}

export interface Asking {
  /** a person answers on this terminal (stdin and stderr are TTYs, and stdin is not an MCP stream) */
  interactive: boolean
}

/** --data-dir: an existing one, the default one, or a new one the user confirms (or, without a terminal, one that is no typo). */
export async function checkDataDirFlag(flag: string, o: Asking): Promise<void> {
  const dir = path.resolve(flag)
  if (fs.existsSync(dir)) {
    if (!isDir(dir)) throw new UsageError(`--data-dir ${dir} is a file, not a folder`)
    return
  }
  if (dir === resolveDataDir(undefined)) return
  const { existing, missing } = firstMissing(dir)
  const meant = missing === dir ? nearFolder(dir, (d) => DATA_DIR_MARKS.some((m) => fs.existsSync(path.join(d, m))), true) : nearFolder(missing)
  const hint = meant ? ` Did you mean ${missing === dir ? meant : `${meant}${dir.slice(missing.length)}`}?` : ''
  const folders = missing === dir ? '' : ` and the folders under ${existing}`
  if (o.interactive) {
    if (hint) process.stderr.write(`${dir} does not exist.${hint}\n`)
    if (await askYes(`Create a new Toolgate data dir at ${dir}${folders}? [y/N] `)) return
    throw new UsageError(`nothing created; check the --data-dir path${hint ? ` (${hint.trim()})` : ''}`)
  }
  if (!hint && !folders) return // a new data dir beside existing folders: created as before
  throw new UsageError(
    `--data-dir ${dir} does not exist${folders ? `, nor ${missing}` : ''}.${hint} ` +
      `Toolgate does not create it from a command without a terminal (a typo would start a whole new data dir); create it first (mkdir -p ${dir}) if it is meant.`,
  )
}

/** connect --file: the client's file may be new, but its folder must exist (or be confirmed): a typo there would create folders. */
export async function checkNewFileFolder(file: string, o: Asking): Promise<void> {
  const abs = path.resolve(file)
  const folder = path.dirname(abs)
  if (fs.existsSync(folder)) return
  const { existing, missing } = firstMissing(folder)
  const meant = nearFolder(missing)
  const hint = meant ? ` Did you mean ${meant}${abs.slice(missing.length)}?` : ''
  if (o.interactive) {
    if (hint) process.stderr.write(`${folder} does not exist.${hint}\n`)
    if (await askYes(`Create ${folder} (folders under ${existing}) for ${path.basename(abs)}? [y/N] `)) return
    throw new UsageError(`nothing written; check the --file path${hint ? ` (${hint.trim()})` : ''}`)
  }
  throw new UsageError(
    `--file ${abs}: its folder ${folder} does not exist.${hint} Toolgate does not create folders for it; check the path, or create the folder first.`,
  )
}
