// Writing an MCP client's own config file: `toolgate connect <client> --write` merges the
// Toolgate entry in; `toolgate import … --move` takes imported servers out. Backup before the
// first change, idempotent, every other key and server kept (in order), atomic write. A file
// Toolgate cannot safely rewrite is left untouched with a clear error.
import fs from 'node:fs'
import { z } from 'zod'
import type { ClientSnippet } from './snippet'
import { isToolgateEntry, serverContainer, SourceEntrySchema } from './client-servers'
import { DEFAULT_LAYOUT, JsonFileError, getOwn, isJsonObject, jsonEqual, readJsonFile, setOwn, writeJsonFile, type JsonObject } from '../json-file'

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

const ServerMapSchema = z.record(z.string(), z.unknown())

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
  if (read.exists && read.jsonc) {
    throw untouched(file, 'the file contains comments or trailing commas, which rewriting would lose')
  }
  const root: unknown = read.exists ? read.value : {}
  if (!isJsonObject(root)) throw untouched(file, 'the top level is not a JSON object')

  let changed = false
  for (const [key, servers] of Object.entries(snippet as Record<string, Record<string, unknown>>)) {
    const current = getOwn(root, key)
    let map: JsonObject
    if (current === undefined) {
      map = {}
    } else {
      const parsed = ServerMapSchema.safeParse(current)
      if (!parsed.success || !isJsonObject(current)) throw untouched(file, `"${key}" is not an object of servers`)
      map = current
    }
    for (const [name, entry] of Object.entries(servers)) {
      if (Object.hasOwn(map, name) && jsonEqual(map[name], entry)) continue
      setOwn(map, name, entry) // replaces in place (keeps position) or appends
      changed = true
    }
    if (current === undefined) setOwn(root, key, map) // appended after the existing keys
  }
  if (!changed) return { changed: false }

  const result: WriteClientResult = { changed: true }
  if (read.exists) result.backup = backupFile(file, opts.now ?? new Date())
  else result.created = true
  writeJsonFile(file, root, read.exists ? read.layout : DEFAULT_LAYOUT)
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
 * readClientServers), after a backup; every other key and server is kept. Nothing to remove →
 * nothing written. A file with comments is left untouched (rewriting would lose them).
 */
export function removeClientServers(file: string, key: string, names: readonly string[], opts: WriteClientOptions = {}): RemoveClientResult {
  const read = readJsonFile(file, { allowJsonc: true })
  if (!read.exists || !isJsonObject(read.value)) throw untouched(file, 'the file is gone or its top level is not a JSON object')
  if (read.jsonc) throw untouched(file, 'the file contains comments or trailing commas, which rewriting would lose; remove the imported servers by hand')
  const root = read.value
  const container = serverContainer(root, key === 'mcpServers' ? 'claude-desktop' : key === 'servers' ? 'vscode' : 'auto')
  const value = container?.key === key ? container.value : undefined
  const drop = new Set(names)
  let removed: string[] = []
  if (Array.isArray(value)) {
    const keep = value.filter((e, i) => !drop.has(isJsonObject(e) && typeof e.name === 'string' ? e.name : `${key}[${i}]`))
    removed = names.filter((n) => value.some((e) => isJsonObject(e) && e.name === n))
    if (removed.length) setContainer(root, key, keep)
  } else if (isJsonObject(value)) {
    removed = names.filter((n) => Object.hasOwn(value, n))
    for (const n of removed) delete value[n]
  }
  if (removed.length === 0) return { removed }
  const backup = backupFile(file, opts.now ?? new Date())
  writeJsonFile(file, root, read.layout)
  return { removed, backup }
}

function setContainer(root: JsonObject, key: string, value: unknown): void {
  if (key === 'mcp.servers') {
    const mcp = getOwn(root, 'mcp')
    if (isJsonObject(mcp)) setOwn(mcp, 'servers', value)
  } else setOwn(root, key, value)
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
