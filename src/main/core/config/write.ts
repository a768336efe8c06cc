// The one writer of mcp_config.json: every change Toolgate makes (server enable/disable from the
// UI, servers added or removed by agents, `toolgate import`) is validated like the loader does,
// keeps the operator's style (array or keyed object), other keys, order and layout, and is
// written atomically; a config that carries secrets is made private (0600). The watcher then
// reloads it like any other edit. While the file is missing, a change starts from the config
// Toolgate runs (running-text.ts), never from an empty one.
import fs from 'node:fs'
import { ConfigError, parseConfig } from './load'
import { DEFAULT_LAYOUT, detectLayout, formatJson, isJsonObject, readJsonFile, writeJsonFile, type JsonLayout } from '../json-file'
import { coveredInPlace } from '../covered-files'
import { MASK, maskArgs, maskUrl } from '../masking/mask'
import { runningText } from './running-text'

type RawEntry = Record<string, unknown>
type RawConfig = Record<string, unknown> & { mcpServers?: RawEntry[] | Record<string, RawEntry> }

/**
 * The file's text; while it is missing, the config the running Toolgate applied last (running-text.ts),
 * so a change made then writes that config back with the change; else null (no file, nothing runs it).
 */
function currentText(file: string): string | null {
  if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8')
  return runningText(file) ?? null
}

function readRaw(file: string): RawConfig {
  const text = currentText(file) ?? '{"mcpServers":{}}'
  try {
    const raw = JSON.parse(text) as unknown
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw new Error('the top level must be an object')
    return raw as RawConfig
  } catch (e) {
    throw new ConfigError(file, '', `cannot change the config while it is invalid: ${(e as Error).message}`)
  }
}

/** Whether any server entry holds a secret: env or header values, URL credentials or secret query values, secret arguments. */
export function carriesSecrets(raw: unknown): boolean {
  if (!isJsonObject(raw)) return false
  const servers = raw.mcpServers
  const entries = Array.isArray(servers) ? servers : isJsonObject(servers) ? Object.values(servers) : []
  return entries.some((e) => {
    if (!isJsonObject(e)) return false
    const filled = (v: unknown): boolean => isJsonObject(v) && Object.values(v).some((x) => x !== '')
    if (filled(e.env) || filled(e.headers)) return true
    if (typeof e.url === 'string' && maskUrl(e.url).includes(MASK)) return true
    return Array.isArray(e.args) && maskArgs(e.args.map(String)).some((a) => a.includes(MASK))
  })
}

/**
 * Validates `raw` like the loader would and writes it atomically, keeping `layout` (default: the
 * existing file's). A new file is created 0600; a file that now carries secrets is made 0600.
 */
export function writeConfigFile(file: string, raw: unknown, layout?: JsonLayout): void {
  parseConfig(file, raw) // never write a file the loader would reject
  let keep = layout
  if (!keep) {
    const read = readJsonFile(file)
    keep = read.exists ? read.layout : undefined
  }
  // A running sandbox that could only cover the file itself loses the cover when a new file is
  // renamed over it (docs/isolation.md): then the file is rewritten in place.
  if (coveredInPlace(file)) fs.writeFileSync(file, formatJson(raw, keep ?? DEFAULT_LAYOUT))
  else writeJsonFile(file, raw, keep)
  if (carriesSecrets(raw) && (fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600)
}

/** Applies `mutate` to the raw config, validates the result, and writes it atomically. */
export function editConfig(file: string, mutate: (raw: RawConfig) => void): void {
  const text = currentText(file) ?? ''
  const raw = readRaw(file)
  mutate(raw)
  writeConfigFile(file, raw, text ? detectLayout(text) : undefined)
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

/** What `editConfig` would write, validated like the loader does, without writing it (throws the loader's ConfigError). */
export function checkConfigEdit(file: string, mutate: (raw: RawConfig) => void): void {
  const raw = readRaw(file)
  mutate(raw)
  parseConfig(file, raw)
}
