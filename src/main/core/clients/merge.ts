// The pure merge behind `toolgate import`: the servers read from a client file are added to a
// copy of the parsed mcp_config.json. No file is read or written here.
import { z } from 'zod'
import { ServerEntrySchema } from '../../../shared/config-schema'
import { getOwn, jsonEqual, setOwn, type JsonObject } from '../json-file'
import type { Secrets } from '../secrets/store'
import { isToolgateEntry, SourceEntrySchema, toToolgateEntry, variableWarnings, type ImportWarning } from './client-servers'

export interface ImportOptions {
  /** mark imported servers `quarantined: false` (the user trusts them); default: normal quarantine rule */
  trust?: boolean
  /** report only; `importIntoConfigFile` then writes nothing */
  dryRun?: boolean
  /** take the imported servers out of the client's file afterwards (after a backup) */
  move?: boolean
  /** move secret-looking env and header values of the added servers into this store (import --secrets) */
  secrets?: Secrets
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

/** The raw mcp_config.json object; `mcpServers` keeps the operator's array or object style. */
export type RawToolgateConfig = JsonObject & { mcpServers?: JsonObject[] | Record<string, JsonObject> }

export interface ImportResult {
  config: RawToolgateConfig
  added: ImportedServer[]
  skipped: SkippedServer[]
  warnings: ImportWarning[]
  /** names in the source file that Toolgate now has (added now or imported before): what `--move` takes out */
  inToolgate: string[]
  dryRun: boolean
}

// built on first use (a client's file is written): docs/performance.md, memory
const ExistingConfigSchema = z.lazy(() =>
  z
    .object({
      mcpServers: z.union([z.array(z.object({ name: z.string() }).loose()), z.record(z.string(), z.object({}).loose())]).optional(),
    })
    .loose(),
)

/** Other characters (runs of them) become one "-"; leading/trailing "-" from that are dropped. */
export function sanitizeServerName(name: string): string {
  const clean = name.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '')
  // "." and ".." are refused by the config schema (they mean directories)
  if (clean === '' || clean === '.' || clean === '..') return 'server'
  // names of JavaScript object members are reserved by the config schema: rename like a clash
  return clean in Object.prototype || clean === 'prototype' ? `${clean}-2` : clean
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

export function issueText(err: z.ZodError): string {
  const issue = err.issues[0]
  const where = issue.path.length ? `${issue.path.map(String).join('.')}: ` : ''
  return `${where}${issue.message}`
}

/**
 * Adds the servers `entries` (read from a client file) to a copy of `existing` (the parsed
 * mcp_config.json); `existing` is not modified.
 * - The entry that is Toolgate itself is skipped.
 * - Names are sanitized (`sanitizeServerName`). On a name clash, an identical server (same
 *   command, args, cwd and url) is skipped as already imported; a different one is renamed
 *   `name-2`, `name-3`, … (the first free name). A server identical in every field (including
 *   env and headers) to one under another name is skipped too.
 * - Imported servers get no `quarantined` key (the normal quarantine rule applies) unless
 *   `trust` → `quarantined: false`. `type: http|sse|streamable-http` becomes `protocol`.
 */
export function mergeServers(
  entries: ReadonlyArray<[string, unknown]>,
  existing: unknown,
  opts: ImportOptions = {},
  readWarnings: ImportWarning[] = [],
): ImportResult {
  const checked = ExistingConfigSchema.safeParse(existing)
  if (!checked.success)
    throw new Error(
      `Cannot import into the Toolgate config: ${issueText(checked.error)} (mcpServers must be an array of entries with "name" or an object keyed by name).`,
    )
  const config = structuredClone(existing) as RawToolgateConfig
  const warnings = [...readWarnings]
  const added: ImportedServer[] = []
  const skipped: SkippedServer[] = []
  const inToolgate: string[] = []

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
      inToolgate.push(from)
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
    inToolgate.push(from)
    warnings.push(...variableWarnings(name, src))
  }
  return { config, added, skipped, warnings, inToolgate, dryRun: opts.dryRun === true }
}
