// Writing an MCP client's own config file: `toolgate connect <client> --write` merges the
// Toolgate entry in; `toolgate import … --move` takes imported servers out. Backup before the
// first change, idempotent, edited in place (every other key and server, the comments and the
// formatting kept; JSONC files too), atomic write. A file Toolgate cannot read is left untouched
// with a clear error.
import fs from 'node:fs'
import type { ClientSnippet } from './snippet'
import { isToolgateEntry, serverContainer, SourceEntrySchema } from './client-servers'
import { DEFAULT_LAYOUT, JsonFileError, editJsonText, getOwn, isJsonObject, jsonEqual, readJsonFile, writeTextFile, type JsonEdit } from '../json-file'

export interface WriteClientResult {
  /** false when the file already had exactly this entry (nothing written, no backup) */
  changed: boolean
  /** the copy of the previous file, when one existed and was changed */
  backup?: string
  /** true when the file did not exist and was created */
  created?: boolean
}

export interface WriteClientOptions {
  /** clock for the backup name (tests) */
  now?: Date
}

function untouched(file: string, problem: string): JsonFileError {
  return new JsonFileError(
    file,
    `${file}: ${problem}. Nothing was changed. Fix the file, or add the Toolgate entry by hand (run the same command without --write to print it).`,
  )
}

/** Merges every server of `snippet` into `file` (see module comment). */
export function writeClientConfig(file: string, snippet: ClientSnippet, opts: WriteClientOptions = {}): WriteClientResult {
  let read
  try {
    read = readJsonFile(file, { allowJsonc: true })
  } catch (e) {
    if (e instanceof JsonFileError) throw untouched(file, e.message.replace(`${file} is `, 'the file is '))
    throw untouched(file, `cannot read the file (${(e as Error).message})`)
  }
  const root: unknown = read.exists ? read.value : {}
  if (!isJsonObject(root)) throw untouched(file, 'the top level is not a JSON object')

  const edits: JsonEdit[] = []
  for (const [key, servers] of Object.entries(snippet as Record<string, Record<string, unknown>>)) {
    const current = getOwn(root, key)
    if (current !== undefined && !isJsonObject(current)) throw untouched(file, `"${key}" is not an object of servers`)
    for (const [name, entry] of Object.entries(servers)) {
      if (current && Object.hasOwn(current, name) && jsonEqual(current[name], entry)) continue
      // replaces in place (keeps position) or appends; a missing key is appended after the others
      edits.push({ path: [key, name], value: entry })
    }
  }
  if (edits.length === 0) return { changed: false }

  const result: WriteClientResult = { changed: true }
  if (read.exists) result.backup = backupFile(file, opts.now ?? new Date())
  else result.created = true
  // edited where it changes: the file's comments, trailing commas and formatting stay
  writeTextFile(file, editJsonText(read.exists ? read.text : '', edits, read.exists ? read.layout : DEFAULT_LAYOUT))
  return result
}

/** Names in the client's file (under `key`, as the snippet uses) of servers that are not Toolgate: the client reaches them directly. */
export function bypassingServers(file: string, snippet: ClientSnippet): string[] {
  const read = readJsonFile(file, { allowJsonc: true })
  if (!read.exists || !isJsonObject(read.value)) return []
  const [key, ours] = Object.entries(snippet as Record<string, Record<string, unknown>>)[0]
  const servers = getOwn(read.value, key)
  if (!isJsonObject(servers)) return []
  return Object.entries(servers)
    .filter(([name, entry]) => {
      if (Object.hasOwn(ours, name)) return false
      const parsed = SourceEntrySchema.safeParse(entry)
      return !(parsed.success && isToolgateEntry(parsed.data))
    })
    .map(([name]) => name)
}

export interface RemoveClientResult {
  removed: string[]
  backup?: string
}

/**
 * Takes the servers `names` out of the client's file (under `key`, as read by
 * readClientServers), after a backup; every other key and server is kept, and so are the file's
 * comments and formatting. Nothing to remove → nothing written.
 */
export function removeClientServers(file: string, key: string, names: readonly string[], opts: WriteClientOptions = {}): RemoveClientResult {
  const read = readJsonFile(file, { allowJsonc: true })
  if (!read.exists || !isJsonObject(read.value)) throw untouched(file, 'the file is gone or its top level is not a JSON object')
  const root = read.value
  const container = serverContainer(root, key === 'mcpServers' ? 'claude-desktop' : key === 'servers' ? 'vscode' : 'auto')
  const value = container?.key === key ? container.value : undefined
  const at = key === 'mcp.servers' ? ['mcp', 'servers'] : [key]
  const drop = new Set(names)
  let removed: string[] = []
  const edits: JsonEdit[] = []
  if (Array.isArray(value)) {
    removed = names.filter((n) => value.some((e) => isJsonObject(e) && e.name === n))
    // from the last: each removal leaves the earlier indexes where they were
    for (let i = value.length - 1; i >= 0; i--) {
      const e: unknown = value[i]
      if (drop.has(isJsonObject(e) && typeof e.name === 'string' ? e.name : `${key}[${i}]`)) edits.push({ path: [...at, i], value: undefined })
    }
  } else if (isJsonObject(value)) {
    removed = names.filter((n) => Object.hasOwn(value, n))
    for (const n of removed) edits.push({ path: [...at, n], value: undefined })
  }
  if (removed.length === 0) return { removed }
  const backup = backupFile(file, opts.now ?? new Date())
  writeTextFile(file, editJsonText(read.text, edits, read.layout))
  return { removed, backup }
}

/** Copies `file` byte for byte to `<file>.toolgate-backup-<timestamp>` (never overwrites). */
export function backupFile(file: string, now: Date): string {
  const stamp = now.toISOString().replace(/[:.]/g, '-') // Windows-safe
  for (let n = 1; ; n++) {
    const backup = `${file}.toolgate-backup-${stamp}${n > 1 ? `-${n}` : ''}`
    try {
      fs.copyFileSync(file, backup, fs.constants.COPYFILE_EXCL)
      return backup
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new Error(`${file}: cannot write the backup ${backup} (${(e as Error).message}). Nothing was changed.`)
      }
    }
  }
}
