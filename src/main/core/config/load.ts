// Reads and validates mcp_config.json. Every error names the file, the JSON path and the
// problem, so the operator can fix it without guessing.
import fs from 'node:fs'
import path from 'node:path'
import type { z } from 'zod'
import { nearMiss } from './near-miss'
import {
  ArrayConfigSchema,
  ServerNameSchema,
  KNOWN_SERVER_KEYS,
  KNOWN_TOP_KEYS,
  ObjectConfigSchema,
  type Config,
  type ServerConfig,
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
  const parsed = (Array.isArray(servers0) ? ArrayConfigSchema : ObjectConfigSchema).safeParse(raw)
  if (!parsed.success) throw firstIssue(file, parsed.error)
  const { mcpServers, ...rest } = parsed.data
  const agentNames = new Set<string>()
  rest.agents.forEach((a, i) => {
    if (agentNames.has(a.name)) throw new ConfigError(file, `$.agents[${i}].name`, `duplicate agent name "${a.name}"`)
    agentNames.add(a.name)
  })
  const warnings = unknownKeys(file, raw as Record<string, unknown>)
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
  return { ...rest, servers, style, warnings }
}

/** Unknown keys (warnings); a server key that is a near-miss of a known one is an error. */
function unknownKeys(file: string, raw: Record<string, unknown>): string[] {
  const out: string[] = []
  for (const k of Object.keys(raw)) if (!KNOWN_TOP_KEYS.includes(k)) out.push(`$.${k}`)
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
  return out
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
 * false (a --config the user named: a typo there must not start an empty Toolgate).
 */
export function loadConfigFile(file: string, o: { create?: boolean } = {}): { config: Config; raw: unknown; text: string } {
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
  return { config: parseConfig(file, raw), raw, text }
}
