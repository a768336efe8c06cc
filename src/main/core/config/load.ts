// Reads and validates mcp_config.json. Every error names the file, the JSON path and the
// problem, so the operator can fix it without guessing.
import fs from 'node:fs'
import path from 'node:path'
import type { z } from 'zod'
import { nearMiss } from '../../../shared/near-miss'
import { parseOnce } from '../../../shared/parse-once'
import {
  ArrayConfigSchema,
  ServerNameSchema,
  KNOWN_SERVER_KEYS,
  KNOWN_TOP_KEYS,
  ObjectConfigSchema,
  type Config,
  type ServerConfig,
  type SkippedServer,
} from '../../../shared/config-schema'

export class ConfigError extends Error {
  constructor(
    public readonly file: string,
    public readonly jsonPath: string,
    public readonly problem: string,
  ) {
    super(`${file}: ${jsonPath ? `at ${jsonPath}: ` : ''}${problem}`)
    this.name = 'ConfigError'
  }
}

export const EMPTY_CONFIG_TEXT = JSON.stringify({ mcpServers: {} }, null, 2) + '\n'

function pathText(p: ReadonlyArray<PropertyKey>): string {
  let out = '$'
  for (const k of p) out += typeof k === 'number' ? `[${k}]` : /^[A-Za-z_][A-Za-z0-9_]*$/.test(String(k)) ? `.${String(k)}` : `[${JSON.stringify(String(k))}]`
  return out
}

function firstIssue(file: string, err: z.ZodError): ConfigError {
  const issue = err.issues[0]
  const more = err.issues.length > 1 ? ` (and ${err.issues.length - 1} more problem(s))` : ''
  let problem = issue.message
  if (issue.code === 'unrecognized_keys') problem = `unknown key(s): ${issue.keys.join(', ')}`
  return new ConfigError(file, pathText(issue.path), problem + more)
}

/** Validates parsed JSON text of a config file into the normalized Config. */
export function parseConfig(file: string, raw: unknown): Config {
  return parseWith(file, raw, raw)
}

/** parseConfig; `written`: the file as written, whose server names the agents' notes check (a lenient load left some out of `raw`). */
function parseWith(file: string, raw: unknown, written: unknown): Config {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
    throw new ConfigError(file, '$', 'the config must be a JSON object like {"mcpServers": {...}}')
  const servers0 = (raw as { mcpServers?: unknown }).mcpServers
  if (servers0 !== undefined && (servers0 === null || typeof servers0 !== 'object')) {
    throw new ConfigError(file, '$.mcpServers', 'mcpServers must be an array of servers with "name", or an object keyed by server name')
  }
  if (servers0 && !Array.isArray(servers0)) {
    for (const key of Object.keys(servers0)) {
      const ok = ServerNameSchema.safeParse(key)
      if (!ok.success) throw new ConfigError(file, pathText(['mcpServers', key]), `server name "${key}": ${ok.error.issues[0].message}`)
    }
  }
  // Pick the style first, so errors point into the entry instead of "invalid union".
  const parsed = parseOnce(Array.isArray(servers0) ? ArrayConfigSchema : ObjectConfigSchema, raw)
  if (!parsed.success) throw firstIssue(file, parsed.error)
  const { mcpServers, ...rest } = parsed.data
  const agentNames = new Set<string>()
  rest.agents.forEach((a, i) => {
    if (agentNames.has(a.name)) throw new ConfigError(file, `$.agents[${i}].name`, `duplicate agent name "${a.name}"`)
    agentNames.add(a.name)
  })
  const { warnings, notes } = unknownKeys(file, raw as Record<string, unknown>)
  const servers: ServerConfig[] = []
  const seen = new Set<string>()
  let style: Config['style'] = 'object'
  if (Array.isArray(mcpServers)) {
    style = 'array'
    mcpServers.forEach((s, i) => {
      if (seen.has(s.name)) throw new ConfigError(file, `$.mcpServers[${i}].name`, `duplicate server name "${s.name}"`)
      seen.add(s.name)
      servers.push(s)
    })
  } else {
    for (const [key, s] of Object.entries(mcpServers)) {
      const where = pathText(['mcpServers', key])
      if (!/^[A-Za-z0-9._-]+$/.test(key)) throw new ConfigError(file, where, `server name "${key}" may contain only letters, digits, "-", "_" and "." (no ":")`)
      if (s.name !== undefined && s.name !== key) throw new ConfigError(file, `${where}.name`, `name "${s.name}" differs from its key "${key}"`)
      servers.push({ ...s, name: key })
    }
  }
  return { ...rest, servers, style, warnings, notes: [...notes, ...agentNotes(written as Record<string, unknown>, rest.agents)], skipped: [] }
}

/** The names of the server entries as written (also the ones a lenient load left out). */
function writtenServerNames(raw: Record<string, unknown>): string[] {
  const servers = raw.mcpServers
  if (Array.isArray(servers))
    return servers.flatMap((s) => (s && typeof s === 'object' && typeof (s as { name?: unknown }).name === 'string' ? [(s as { name: string }).name] : []))
  return servers && typeof servers === 'object' ? Object.keys(servers) : []
}

/**
 * An agent scoped to a server that does not exist sees nothing of it: not an error (a scope only
 * narrows, and the server may be added later), but a note with the near name when there is one.
 */
function agentNotes(raw: Record<string, unknown>, agents: Config['agents']): string[] {
  const names = writtenServerNames(raw)
  const known = new Set(names)
  const out: string[] = []
  agents.forEach((a, i) => {
    if (a.servers === '*') return
    a.servers.forEach((name, j) => {
      if (known.has(name)) return
      const meant = nearMiss(name, names)
      out.push(
        `$.agents[${i}].servers[${j}]: no server named "${name}" in mcpServers, so agent "${a.name}" reaches nothing there${meant ? `; did you mean "${meant}"?` : ''}`,
      )
    })
  })
  return out
}

/** The server entry a JSON path points into (`$.mcpServers.NAME…`, `$.mcpServers["NAME"]…`, `$.mcpServers[i]…`), or null. */
export function serverEntryOf(jsonPath: string): { key: string } | { index: number } | null {
  const m = /^\$\.mcpServers(?:\.([A-Za-z_][A-Za-z0-9_]*)|\["((?:[^"\\]|\\.)*)"\]|\[(\d+)\])/.exec(jsonPath)
  if (!m) return null
  if (m[1] !== undefined) return { key: m[1] }
  if (m[2] !== undefined) return { key: JSON.parse(`"${m[2]}"`) as string }
  return { index: Number(m[3]) }
}

/** The protocol and enabled flag of an entry as written, for the entry left out. */
function written(entry: unknown): { protocol: string; enabled: boolean } {
  const e = entry && typeof entry === 'object' ? (entry as Record<string, unknown>) : {}
  const protocol =
    typeof e.protocol === 'string' && e.protocol !== 'auto'
      ? e.protocol
      : typeof e.command === 'string'
        ? 'stdio'
        : typeof e.url === 'string'
          ? 'http'
          : 'stdio'
  return { protocol, enabled: e.enabled !== false }
}

/**
 * parseConfig, except that a mistake inside one server entry leaves that entry out (recorded in
 * `skipped`) instead of refusing the whole file. Leaving an entry out never loosens anything: a
 * server whose policy key is misspelled does not run at all. Mistakes outside server entries
 * (top-level values, agents, mcpServers itself) still throw.
 */
export function parseConfigLenient(file: string, raw: unknown): Config {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return parseConfig(file, raw)
  let current = raw as Record<string, unknown>
  const skipped: SkippedServer[] = []
  // array style: the index each remaining entry had in the file, so a path names the entry as written
  let indices = Array.isArray(current.mcpServers) ? current.mcpServers.map((_, i) => i) : []
  for (;;) {
    try {
      // notes about agents see every entry as written, the skipped ones included
      return { ...parseWith(file, current, raw), skipped }
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e
      const entry = serverEntryOf(e.jsonPath)
      const servers = current.mcpServers
      if (!entry || !servers || typeof servers !== 'object') throw e
      if ('index' in entry) {
        if (!Array.isArray(servers) || entry.index >= servers.length) throw e
        const s = servers[entry.index] as { name?: unknown } | null
        const at = indices[entry.index]
        const name = s && typeof s === 'object' && typeof s.name === 'string' ? s.name : `mcpServers[${at}]`
        const path = e.jsonPath.replace(/^\$\.mcpServers\[\d+\]/, `$.mcpServers[${at}]`)
        skipped.push({ name, path, problem: e.problem, ...written(s) })
        current = { ...current, mcpServers: servers.filter((_, i) => i !== entry.index) }
        indices = indices.filter((_, i) => i !== entry.index)
      } else {
        if (Array.isArray(servers) || !Object.hasOwn(servers, entry.key)) throw e
        skipped.push({ name: entry.key, path: e.jsonPath, problem: e.problem, ...written((servers as Record<string, unknown>)[entry.key]) })
        current = { ...current, mcpServers: Object.fromEntries(Object.entries(servers).filter(([k]) => k !== entry.key)) }
      }
    }
  }
}

/**
 * Unknown keys (warnings); a server key that is a near-miss of a known one is an error. A top-level
 * key close to a known one is a note with "did you mean" instead (no top-level key loosens anything
 * when it is missing: its default is the safe one), and not a plain warning too.
 */
function unknownKeys(file: string, raw: Record<string, unknown>): { warnings: string[]; notes: string[] } {
  const out: string[] = []
  const notes: string[] = []
  for (const k of Object.keys(raw)) {
    if (KNOWN_TOP_KEYS.includes(k)) continue
    const meant = nearMiss(k, KNOWN_TOP_KEYS)
    if (meant) notes.push(`${pathText([k])}: unknown key "${k}" is ignored; did you mean "${meant}"?`)
    else out.push(pathText([k]))
  }
  const servers = raw.mcpServers
  const entries: Array<[string, unknown]> = Array.isArray(servers)
    ? servers.map((s, i) => [`$.mcpServers[${i}]`, s])
    : Object.entries((servers as Record<string, unknown>) ?? {}).map(([k, s]) => [pathText(['mcpServers', k]), s])
  for (const [where, s] of entries) {
    if (!s || typeof s !== 'object') continue
    for (const k of Object.keys(s)) {
      if (KNOWN_SERVER_KEYS.includes(k) || k === 'type') continue
      // A misspelled policy key would silently leave the policy off: refuse it (fail loudly).
      if (k === 'disabled') throw new ConfigError(file, `${where}.${k}`, 'unknown key "disabled": Toolgate switches a server off with "enabled": false')
      const meant = nearMiss(k, KNOWN_SERVER_KEYS)
      if (meant) throw new ConfigError(file, `${where}.${k}`, `unknown key "${k}": did you mean "${meant}"? (a misspelled key is not applied)`)
      out.push(`${where}.${k}`)
    }
  }
  return { warnings: out, notes }
}

/** What the entries left out are and why, in one sentence per entry (logs, the window's banner, agents). */
export function skippedMessage(skipped: readonly SkippedServer[]): string {
  return skipped.map((s) => `server "${s.name}" is left out until the file is fixed: at ${s.path}: ${s.problem}`).join('; ')
}

/** JSON.parse's message with the character offset turned into a line and column (1-based). */
export function jsonErrorText(text: string, message: string): string {
  const m = /\s*(?:in JSON )?at position (\d+)(?: \(line \d+ column \d+\))?/.exec(message)
  const pos = m ? Number(m[1]) : /end of JSON input/.test(message) ? text.length : null
  if (pos === null) return message
  const before = text.slice(0, pos)
  const line = before.split('\n').length
  const column = pos - before.lastIndexOf('\n')
  return `line ${line}, column ${column}: ${(m ? message.replace(m[0], '') : message).trim()}`
}

/**
 * Reads the config file. A missing file is created with no servers, except when `create` is
 * false (a --config the user named: a typo there must not start an empty Toolgate). `lenient`:
 * a mistake inside a server entry leaves that entry out (parseConfigLenient) instead of throwing.
 */
export function loadConfigFile(file: string, o: { create?: boolean; lenient?: boolean } = {}): { config: Config; raw: unknown; text: string } {
  if (!fs.existsSync(file) && o.create === false) {
    throw new ConfigError(file, '', 'the config file does not exist (only the default <data-dir>/mcp_config.json is created when missing)')
  }
  if (!fs.existsSync(file)) {
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, EMPTY_CONFIG_TEXT, { mode: 0o600 })
  }
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (e) {
    throw new ConfigError(file, '', `cannot read the file: ${(e as Error).message}`)
  }
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (e) {
    throw new ConfigError(file, '', `not valid JSON: ${jsonErrorText(text, (e as Error).message)}`)
  }
  return { config: o.lenient ? parseConfigLenient(file, raw) : parseConfig(file, raw), raw, text }
}
