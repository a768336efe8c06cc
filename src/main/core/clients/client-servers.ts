// Reading other MCP clients' config files (Claude Desktop, Cursor, Claude Code, VS Code, or any
// file in one of their formats): where their servers live, each entry as Toolgate would write
// it, and which entry is Toolgate itself. Reads only; `import` merges (merge.ts) and writes.
import path from 'node:path'
import { z } from 'zod'
import { CLIENT_LABELS, clientConfigPath, isClientName, type ClientName, type ClientPathOptions } from './paths'
import { getOwn, isJsonObject, readJsonFile, type JsonObject } from '../json-file'

export type ImportFormat = ClientName | 'auto'

export interface ImportSource {
  file: string
  /** which key holds the servers: `mcpServers` (Claude Desktop, Cursor, Claude Code) or `servers` (VS Code); auto = whichever is present */
  format?: ImportFormat
}

export interface ImportWarning {
  /** the Toolgate name of an added server, or absent for the file as a whole */
  name?: string
  message: string
}

// What other clients write: Claude Desktop / Cursor / Claude Code `{command,args,env}` or
// `{url,headers,type}`; VS Code the same with `type`. Numbers/booleans in args/env become strings.
const Scalar = z.lazy(() => z.union([z.string(), z.number(), z.boolean()]).transform(String))
// built on first use (an import from a client's file): docs/performance.md, memory
export const SourceEntrySchema = z.lazy(() =>
  z
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
    .loose(),
)
export type SourceEntry = z.infer<typeof SourceEntrySchema>

/** The servers of a client file: the key that holds them and each `[originalName, rawEntry]`. */
export interface ClientServers {
  file: string
  /** `mcpServers`, `servers` or `mcp.servers`; null when the file has none */
  key: string | null
  entries: Array<[string, unknown]>
  warnings: ImportWarning[]
}

const HTTP_TYPES: Record<string, 'http' | 'streamable-http' | 'sse'> = {
  http: 'http',
  'streamable-http': 'streamable-http',
  streamablehttp: 'streamable-http',
  sse: 'sse',
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
export type Mapped = { ok: true; entry: JsonObject } | { ok: false; reason: string }

export function toToolgateEntry(src: SourceEntry, trust: boolean): Mapped {
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

export function variableWarnings(name: string, src: SourceEntry): ImportWarning[] {
  const warnings: ImportWarning[] = []
  const values = [src.command, ...(src.args ?? []), src.cwd, src.url, ...Object.values(src.env ?? {}), ...Object.values(src.headers ?? {})]
  // ${env:NAME} and ${secret:NAME} are Toolgate's own references; other forms (${VAR}, ${input:…}) are not expanded
  const variable = values.map((v) => (v ? /\$\{(?!(?:secret|env):)[^}]*\}/.exec(v)?.[0] : undefined)).find((v) => v !== undefined)
  if (variable) {
    warnings.push({ name, message: `uses variables like "${variable}" that Toolgate does not expand; edit its entry in mcp_config.json` })
  }
  if (src.envFile) warnings.push({ name, message: `"envFile" (${src.envFile}) is not supported; copy the variables into "env" in mcp_config.json` })
  return warnings
}

/** Picks the server container of a client file: `mcpServers`, `servers`, or VS Code settings' `mcp.servers`. */
export function serverContainer(root: JsonObject, format: ImportFormat): { key: string; value: unknown } | undefined {
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
export function readClientServers(source: ImportSource): ClientServers {
  const format = source.format ?? 'auto'
  const read = readJsonFile(source.file, { allowJsonc: true })
  if (!read.exists) {
    const hint = isClientName(format) ? ` (is ${CLIENT_LABELS[format]} installed and configured with MCP servers?)` : ''
    throw new Error(`Nothing to import: ${source.file} does not exist${hint}.`)
  }
  if (!isJsonObject(read.value)) throw new Error(`Cannot import from ${source.file}: the top level is not a JSON object.`)
  const found = serverContainer(read.value, format)
  if (!found) {
    const keys = format === 'vscode' ? '"servers"' : format === 'auto' ? '"mcpServers" or "servers"' : '"mcpServers"'
    return { file: source.file, key: null, entries: [], warnings: [{ message: `${source.file} has no ${keys}: no MCP servers to import.` }] }
  }
  if (Array.isArray(found.value)) {
    return {
      file: source.file,
      key: found.key,
      entries: found.value.map((e, i): [string, unknown] => [isJsonObject(e) && typeof e.name === 'string' ? e.name : `${found.key}[${i}]`, e]),
      warnings: [],
    }
  }
  if (!isJsonObject(found.value)) throw new Error(`Cannot import from ${source.file}: "${found.key}" is not an object of servers.`)
  return { file: source.file, key: found.key, entries: Object.entries(found.value), warnings: [] }
}

/** `claude-desktop` / `cursor` / `claude-code` / `vscode` → that client's default file; anything else is a file path. */
export function resolveImportSource(arg: string, opts: ClientPathOptions = {}): Required<ImportSource> {
  if (isClientName(arg)) return { file: clientConfigPath(arg, opts), format: arg }
  return { file: path.resolve(opts.cwd ?? process.cwd(), arg), format: 'auto' }
}
