// Changes Toolgate itself makes to the operator's config file (server enable/disable from the
// UI, servers added by agents). Keeps the operator's style (array or keyed object), other keys
// and order; writes atomically. The watcher then reloads it like any other edit.
import fs from 'node:fs'
import writeFileAtomic from 'write-file-atomic'
import { ConfigError, parseConfig } from './load'

type RawEntry = Record<string, unknown>
type RawConfig = Record<string, unknown> & { mcpServers?: RawEntry[] | Record<string, RawEntry> }

function readRaw(file: string): RawConfig {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '{"mcpServers":{}}'
  try {
    const raw = JSON.parse(text) as unknown
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Error('the top level must be an object')
    return raw as RawConfig
  } catch (e) {
    throw new ConfigError(file, '', `cannot change the config while it is invalid: ${(e as Error).message}`)
  }
}

/** Applies `mutate` to the raw config, validates the result, and writes it atomically. */
export function editConfig(file: string, mutate: (raw: RawConfig) => void): void {
  const raw = readRaw(file)
  mutate(raw)
  parseConfig(file, raw) // never write a file the loader would reject
  writeFileAtomic.sync(file, JSON.stringify(raw, null, 2) + '\n', { fsync: true })
}

function findEntry(raw: RawConfig, name: string): RawEntry | undefined {
  const servers = raw.mcpServers
  if (Array.isArray(servers)) return servers.find((s) => s && s.name === name)
  if (servers && typeof servers === 'object') return Object.hasOwn(servers, name) ? servers[name] : undefined
  return undefined
}

/** The server's entry as the operator wrote it (no defaults filled in), or undefined. */
export function readServerEntry(file: string, name: string): Readonly<RawEntry> | undefined {
  return findEntry(readRaw(file), name)
}

export function setServerField(file: string, name: string, field: string, value: unknown): void {
  editConfig(file, (raw) => {
    const entry = findEntry(raw, name)
    if (!entry) throw new ConfigError(file, '$.mcpServers', `no server named "${name}"`)
    if (value === undefined) delete entry[field]
    else entry[field] = value
  })
}

export function addServerEntry(file: string, entry: RawEntry & { name: string }): void {
  editConfig(file, (raw) => {
    if (findEntry(raw, entry.name)) throw new ConfigError(file, '$.mcpServers', `a server named "${entry.name}" already exists`)
    const servers = raw.mcpServers ?? {}
    if (Array.isArray(servers)) servers.push(entry)
    else {
      const { name, ...rest } = entry
      servers[name] = rest
    }
    raw.mcpServers = servers
  })
}

export function removeServerEntry(file: string, name: string): void {
  editConfig(file, (raw) => {
    const servers = raw.mcpServers
    if (!findEntry(raw, name)) throw new ConfigError(file, '$.mcpServers', `no server named "${name}"`)
    if (Array.isArray(servers)) raw.mcpServers = servers.filter((s) => s.name !== name)
    else if (servers) delete servers[name]
  })
}
