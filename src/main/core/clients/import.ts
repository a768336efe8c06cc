// `toolgate import claude-desktop|cursor|FILE`: turns the MCP servers configured in another
// client into Toolgate servers. Pure over the parsed Toolgate config (`importServers`), plus a
// file-level wrapper that validates and writes atomically (`importIntoConfigFile`).
import path from 'node:path'
import { z } from 'zod'
import { ServerEntrySchema } from '../../../shared/config-schema'
import { parseConfig } from '../config/load'
import { CLIENT_LABELS, clientConfigPath, isClientName, type ClientName, type ClientPathOptions } from './paths'
import { DEFAULT_LAYOUT, getOwn, isJsonObject, jsonEqual, readJsonFile, setOwn, writeJsonFile, type JsonLayout, type JsonObject } from './json-file'

export type ImportFormat = ClientName | 'auto'

export interface ImportSource {
  file: string
  /** which key holds the servers: `mcpServers` (Claude Desktop, Cursor, Claude Code) or `servers` (VS Code); auto = whichever is present */
  format?: ImportFormat
}

export interface ImportOptions {
  /** mark imported servers `quarantined: false` (the user trusts them); default: normal quarantine rule */
  trust?: boolean
  /** report only; `importIntoConfigFile` then writes nothing */
  dryRun?: boolean
}

export interface ImportedServer {
  /** the name in Toolgate */
  name: string
  /** the name in the source file */
  from: string
  /** true when `name` differs from `from` (sanitized or clash-renamed) */
  renamed: boolean
}

export interface SkippedServer {
  /** the name in the source file */
  name: string
  reason: string
}

export interface ImportWarning {
  /** the Toolgate name of an added server, or absent for the file as a whole */
  name?: string
  message: string
}

/** The raw mcp_config.json object; `mcpServers` keeps the operator's array or object style. */
export type RawToolgateConfig = JsonObject & { mcpServers?: JsonObject[] | Record<string, JsonObject> }

export interface ImportResult {
  config: RawToolgateConfig
  added: ImportedServer[]
  skipped: SkippedServer[]
  warnings: ImportWarning[]
  dryRun: boolean
}

const ExistingConfigSchema = z
  .object({
    mcpServers: z.union([z.array(z.object({ name: z.string() }).loose()), z.record(z.string(), z.object({}).loose())]).optional(),
  })
  .loose()

// What other clients write: Claude Desktop / Cursor / Claude Code `{command,args,env}` or
// `{url,headers,type}`; VS Code the same with `type`. Numbers/booleans in args/env become strings.
const Scalar = z.union([z.string(), z.number(), z.boolean()]).transform(String)
const SourceEntrySchema = z
  .object({
    name: z.string().optional(),
    command: z.string().optional(),
    args: z.array(Scalar).optional(),
    env: z.record(z.string(), Scalar).optional(),
    cwd: z.string().optional(),
    url: z.string().optional(),
    headers: z.record(z.string(), Scalar).optional(),
    type: z.string().optional(),
    protocol: z.string().optional(),
    envFile: z.string().optional(),
  })
  .loose()
type SourceEntry = z.infer<typeof SourceEntrySchema>

const HTTP_TYPES: Record<string, 'http' | 'streamable-http' | 'sse'> = {
  http: 'http',
  'streamable-http': 'streamable-http',
  streamablehttp: 'streamable-http',
  sse: 'sse',
}

/** Other characters (runs of them) become one "-"; leading/trailing "-" from that are dropped. */
export function sanitizeServerName(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '')
  if (clean === '') return 'server'
  // names of JavaScript object members are reserved by the config schema: rename like a clash
  return clean in Object.prototype || clean === 'prototype' ? `${clean}-2` : clean
}

/** An entry that starts Toolgate itself (`… toolgate … stdio …`) or points at its default endpoint. */
export function isToolgateEntry(entry: { command?: string; args?: string[]; url?: string }): boolean {
  const args = entry.args ?? []
  if ([entry.command ?? '', ...args].some((w) => /toolgate/i.test(w)) && args.includes('stdio')) return true
  if (entry.url) {
    try {
      const u = new URL(entry.url)
      const loopback = ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)
      return loopback && u.port === '8719' && u.pathname.replace(/\/+$/, '') === '/mcp'
    } catch {
      return false
    }
  }
  return false
}

/** Maps a source entry to a Toolgate entry (without name), or a reason it cannot be imported. */
type Mapped = { ok: true; entry: JsonObject } | { ok: false; reason: string }

function toToolgateEntry(src: SourceEntry, trust: boolean): Mapped {
  const rawType = (src.type ?? src.protocol)?.toLowerCase()
  const type = rawType === 'auto' ? undefined : rawType
  const out: JsonObject = {}
  const stdio = type === 'stdio' || (type === undefined && src.command !== undefined)
  if (stdio) {
    if (!src.command) return { ok: false, reason: 'a stdio server needs "command"' }
    out.command = src.command
    if (src.args) out.args = src.args
    if (src.env) out.env = src.env
    if (src.cwd) out.cwd = src.cwd
  } else {
    if (type !== undefined && !Object.hasOwn(HTTP_TYPES, type))
      return { ok: false, reason: `unsupported transport type "${rawType}" (Toolgate supports stdio, http, streamable-http and sse)` }
    if (!src.url) return { ok: false, reason: type ? `a "${type}" server needs "url"` : 'the entry has neither "command" nor "url"' }
    out.url = src.url
    if (src.headers) out.headers = src.headers
    if (type) out.protocol = HTTP_TYPES[type]
  }
  if (trust) out.quarantined = false
  return { ok: true, entry: out }
}

function identity(e: JsonObject): unknown[] {
  return [getOwn(e, 'command'), getOwn(e, 'args') ?? [], getOwn(e, 'cwd'), getOwn(e, 'url')]
}
function sameIdentity(a: JsonObject, b: JsonObject): boolean {
  return jsonEqual(identity(a), identity(b))
}
function sameDefinition(a: JsonObject, b: JsonObject): boolean {
  return sameIdentity(a, b) && jsonEqual(getOwn(a, 'env') ?? {}, getOwn(b, 'env') ?? {}) && jsonEqual(getOwn(a, 'headers') ?? {}, getOwn(b, 'headers') ?? {})
}

function variableWarnings(name: string, src: SourceEntry): ImportWarning[] {
  const warnings: ImportWarning[] = []
  const values = [src.command, ...(src.args ?? []), src.cwd, src.url, ...Object.values(src.env ?? {}), ...Object.values(src.headers ?? {})]
  const variable = values.map((v) => (v ? /\$\{[^}]*\}/.exec(v)?.[0] : undefined)).find((v) => v !== undefined)
  if (variable) {
    warnings.push({ name, message: `uses variables like "${variable}" that Toolgate does not expand; edit its entry in mcp_config.json` })
  }
  if (src.envFile) warnings.push({ name, message: `"envFile" (${src.envFile}) is not supported; copy the variables into "env" in mcp_config.json` })
  return warnings
}

function issueText(err: z.ZodError): string {
  const issue = err.issues[0]
  const where = issue.path.length ? `${issue.path.map(String).join('.')}: ` : ''
  return `${where}${issue.message}`
}

/** Picks the server container of a client file: `mcpServers`, `servers`, or VS Code settings' `mcp.servers`. */
function sourceServers(root: JsonObject, format: ImportFormat): { key: string; value: unknown } | undefined {
  const mcp = getOwn(root, 'mcp')
  const nested = isJsonObject(mcp) ? getOwn(mcp, 'servers') : undefined
  const candidates: Array<[string, unknown]> =
    format === 'vscode'
      ? [
          ['servers', getOwn(root, 'servers')],
          ['mcp.servers', nested],
        ]
      : format === 'auto'
        ? [
            ['mcpServers', getOwn(root, 'mcpServers')],
            ['servers', getOwn(root, 'servers')],
            ['mcp.servers', nested],
          ]
        : [['mcpServers', getOwn(root, 'mcpServers')]]
  const found = candidates.find(([, v]) => v !== undefined)
  return found ? { key: found[0], value: found[1] } : undefined
}

/** Reads the source file's servers as `[originalName, rawEntry]` pairs. */
function readSource(source: ImportSource): { entries: Array<[string, unknown]>; warnings: ImportWarning[] } {
  const format = source.format ?? 'auto'
  const read = readJsonFile(source.file, { allowJsonc: true })
  if (!read.exists) {
    const hint = isClientName(format) ? ` (is ${CLIENT_LABELS[format]} installed and configured with MCP servers?)` : ''
    throw new Error(`Nothing to import: ${source.file} does not exist${hint}.`)
  }
  if (!isJsonObject(read.value)) throw new Error(`Cannot import from ${source.file}: the top level is not a JSON object.`)
  const found = sourceServers(read.value, format)
  if (!found) {
    const keys = format === 'vscode' ? '"servers"' : format === 'auto' ? '"mcpServers" or "servers"' : '"mcpServers"'
    return { entries: [], warnings: [{ message: `${source.file} has no ${keys}: no MCP servers to import.` }] }
  }
  if (Array.isArray(found.value)) {
    return {
      entries: found.value.map((e, i): [string, unknown] => [isJsonObject(e) && typeof e.name === 'string' ? e.name : `${found.key}[${i}]`, e]),
      warnings: [],
    }
  }
  if (!isJsonObject(found.value)) throw new Error(`Cannot import from ${source.file}: "${found.key}" is not an object of servers.`)
  return { entries: Object.entries(found.value), warnings: [] }
}

/**
 * Adds the servers of `source` to a copy of `existing` (the parsed mcp_config.json). Never
 * writes anything; `existing` is not modified.
 * - The entry that is Toolgate itself is skipped.
 * - Names are sanitized (`sanitizeServerName`). On a name clash, an identical server (same
 *   command, args, cwd and url) is skipped as already imported; a different one is renamed
 *   `name-2`, `name-3`, … (the first free name). A server identical in every field (including
 *   env and headers) to one under another name is skipped too.
 * - Imported servers get no `quarantined` key (the normal quarantine rule applies) unless
 *   `trust` → `quarantined: false`. `type: http|sse|streamable-http` becomes `protocol`.
 */
export function importServers(source: ImportSource, existing: unknown, opts: ImportOptions = {}): ImportResult {
  const checked = ExistingConfigSchema.safeParse(existing)
  if (!checked.success)
    throw new Error(
      `Cannot import into the Toolgate config: ${issueText(checked.error)} (mcpServers must be an array of entries with "name" or an object keyed by name).`,
    )
  const config = structuredClone(existing) as RawToolgateConfig
  const { entries, warnings } = readSource(source)
  const added: ImportedServer[] = []
  const skipped: SkippedServer[] = []

  const current = (): Array<[string, JsonObject]> => {
    const servers = config.mcpServers
    if (Array.isArray(servers)) return servers.map((s): [string, JsonObject] => [String(s.name), s])
    return servers ? Object.entries(servers) : []
  }
  const find = (name: string): JsonObject | undefined => current().find(([n]) => n === name)?.[1]

  for (const [from, raw] of entries) {
    const parsed = SourceEntrySchema.safeParse(raw)
    if (!parsed.success) {
      skipped.push({ name: from, reason: `invalid entry: ${issueText(parsed.error)}` })
      continue
    }
    const src = parsed.data
    if (isToolgateEntry(src)) {
      skipped.push({ name: from, reason: 'this is Toolgate itself (importing it would make Toolgate proxy to itself)' })
      continue
    }
    const mapped = toToolgateEntry(src, opts.trust === true)
    if (!mapped.ok) {
      skipped.push({ name: from, reason: mapped.reason })
      continue
    }
    const entry = mapped.entry
    const base = sanitizeServerName(from)
    const valid = ServerEntrySchema.safeParse({ name: base, ...entry })
    if (!valid.success) {
      skipped.push({ name: from, reason: `invalid entry: ${issueText(valid.error)}` })
      continue
    }

    let name = base
    let already: string | undefined
    for (let n = 2; ; n++) {
      const clash = find(name)
      if (!clash) break
      if (sameIdentity(clash, entry)) {
        already = name
        break
      }
      name = `${base}-${n}`
    }
    already ??= current().find(([, e]) => sameDefinition(e, entry))?.[0]
    if (already !== undefined) {
      skipped.push({ name: from, reason: already === from ? 'already imported' : `already imported as "${already}"` })
      continue
    }

    const servers = config.mcpServers
    if (Array.isArray(servers)) servers.push({ name, ...entry })
    else {
      const map = servers ?? {}
      setOwn(map, name, entry)
      if (!servers) setOwn(config, 'mcpServers', map)
    }
    added.push({ name, from, renamed: name !== from })
    warnings.push(...variableWarnings(name, src))
  }
  return { config, added, skipped, warnings, dryRun: opts.dryRun === true }
}

/** `claude-desktop` / `cursor` / `claude-code` / `vscode` → that client's default file; anything else is a file path. */
export function resolveImportSource(arg: string, opts: ClientPathOptions = {}): Required<ImportSource> {
  if (isClientName(arg)) return { file: clientConfigPath(arg, opts), format: arg }
  return { file: path.resolve(opts.cwd ?? process.cwd(), arg), format: 'auto' }
}

/** Validates `config` like the loader would and writes it atomically, keeping the file's layout. */
export function writeToolgateConfig(file: string, config: RawToolgateConfig, layout?: JsonLayout): void {
  parseConfig(file, config) // never write a file the loader would reject
  let keep = layout
  if (!keep) {
    const read = readJsonFile(file)
    keep = read.exists ? read.layout : DEFAULT_LAYOUT
  }
  writeJsonFile(file, config, keep)
}

export interface ImportFileResult extends ImportResult {
  configFile: string
  /** true when the Toolgate config file was written */
  written: boolean
}

/**
 * Reads Toolgate's config file (a missing one counts as empty), imports `source` into it and
 * writes it back atomically, unless `dryRun` or nothing was added. The result is validated like
 * the loader does even in a dry run, so a dry run fails where the real run would.
 */
export function importIntoConfigFile(source: ImportSource, configFile: string, opts: ImportOptions = {}): ImportFileResult {
  const read = readJsonFile(configFile, { what: 'the Toolgate config' })
  const existing: unknown = read.exists ? read.value : { mcpServers: {} }
  const result = importServers(source, existing, opts)
  if (result.added.length > 0) parseConfig(configFile, result.config)
  const write = !result.dryRun && result.added.length > 0
  if (write) writeToolgateConfig(configFile, result.config, read.exists ? read.layout : DEFAULT_LAYOUT)
  return { ...result, configFile, written: write }
}
