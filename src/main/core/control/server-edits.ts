// Servers added, edited and removed by the user (the window's form, `toolgate servers add|remove`,
// POST/PUT/DELETE /api/v1/servers). Every write goes through the one config writer (the operator's
// style and other keys kept) and is validated by the loader (the config's schema and messages).
// A server the user adds waits in quarantine until it is inspected and approved; operator policy
// (quarantined, trust, enabled_tools, disabled_tools) is never changed here; a removed server's
// approvals are kept in memory for an undo, then dropped.
import { z } from 'zod'
import { ApiError, type ActionResult, type RemoveResult } from '../../../shared/api'
import { POLICY_FIELDS, type ServerEntryView, type ServerInput } from '../../../shared/server-entry'
import { ProtocolSchema } from '../../../shared/config-schema'
import type { Catalog } from '../catalog/catalog'
import { markNeedsReview } from '../catalog/server-decisions'
import { ConfigError } from '../config/load'
import { addServerEntry, checkConfigEdit, editConfig, readServerEntry, removeServerEntry } from '../config/write'
import type { PromptRecord, ServerRecord, State, TemplateRecord, ToolRecord } from '../state/schema'
import { envValueMasked, maskArgs, maskUrl } from '../masking/mask'
import { organisationFieldsFor } from '../../../shared/policy'
import { blockedText, writtenLaunchBlocked } from '../config/policy'
import { organisationRefusal } from '../catalog/decisions'

/** How long a removed server can be brought back with its approvals. */
export const UNDO_WINDOW_MS = 10 * 60 * 1000

export interface ServerEditsDeps {
  catalog: Catalog
  configPath: string
  reloadConfig(): void
}

type RawEntry = Record<string, unknown>

/** A removed server's decisions on its tools, prompts and resource templates, held for the undo. */
interface HeldRecords {
  tools: Record<string, ToolRecord>
  prompts: Record<string, PromptRecord>
  templates: Record<string, TemplateRecord>
}

function ofServer<T>(records: Record<string, T> | undefined, name: string): Record<string, T> {
  return Object.fromEntries(Object.entries(records ?? {}).filter(([id]) => id.startsWith(`${name}:`)))
}

function heldRecords(state: State, name: string): HeldRecords {
  return { tools: ofServer(state.tools, name), prompts: ofServer(state.prompts, name), templates: ofServer(state.resource_templates, name) }
}

/** Removing a server takes every decision on what it offered with it: a later server of that name starts without them. */
function forgetRecords(s: State, name: string): void {
  for (const id of Object.keys(ofServer(s.tools, name))) delete s.tools[id]
  for (const id of Object.keys(ofServer(s.prompts, name))) delete s.prompts[id]
  if (s.resource_templates) for (const id of Object.keys(ofServer(s.resource_templates, name))) delete s.resource_templates[id]
}

const EDITABLE = ['command', 'args', 'env', 'cwd', 'url', 'headers', 'protocol', 'enabled'] as const

const valueMap = z.lazy(() => z.record(z.string(), z.string().nullable()))
// built on first use (an add or edit): docs/performance.md, memory
const InputSchema = z.lazy(() =>
  z
    .object({
      name: z.string({ error: 'name is required' }),
      command: z.string().optional(),
      args: z.array(z.string()).optional(),
      env: valueMap.optional(),
      cwd: z.string().optional(),
      url: z.string().optional(),
      headers: valueMap.optional(),
      protocol: ProtocolSchema.optional(),
      enabled: z.boolean().optional(),
    })
    .catchall(z.unknown()),
)

const LOCK_SENTENCE = 'it is operator policy in mcp_config.json and can only be changed there by the operator, not from Toolgate'

/** A policy key in an add or edit: the operator's in mcp_config.json, or the organisation's (set by your organisation). */
function policyError(field: string, organisation = false): ApiError {
  if (organisation) return organisationRefusal(`"${field}" cannot be set here`)
  return new ApiError('operator_policy', `"${field}" cannot be set here: ${LOCK_SENTENCE}.`, 409)
}

/** The body, checked: known fields only (policy fields named as such). */
function parseInput(raw: unknown): ServerInput & Record<string, unknown> {
  const parsed = InputSchema.safeParse(raw)
  if (!parsed.success) {
    const i = parsed.error.issues[0]
    throw new ApiError('invalid_server', `${i.path.join('.') || 'body'}: ${i.message}`, 400)
  }
  const extra = Object.keys(parsed.data).filter(
    (k) => k !== 'name' && !(EDITABLE as readonly string[]).includes(k) && !(POLICY_FIELDS as readonly string[]).includes(k),
  )
  if (extra.length) throw new ApiError('invalid_server', `unknown field(s) ${extra.join(', ')}; a server has ${['name', ...EDITABLE].join(', ')}`, 400)
  return parsed.data as ServerInput & Record<string, unknown>
}

function configError(e: unknown): never {
  if (e instanceof ConfigError) {
    const invalidFile = /cannot change the config while it is invalid/.test(e.message)
    throw new ApiError(invalidFile ? 'config_invalid' : 'invalid_server', e.message, invalidFile ? 409 : 400)
  }
  throw e
}

const isSet = (v: unknown): boolean => v !== undefined

export class ServerEdits {
  private readonly trash = new Map<string, { entry: RawEntry; server?: ServerRecord; records: HeldRecords; until: number; timer: NodeJS.Timeout }>()

  constructor(private readonly d: ServerEditsDeps) {}

  private existing(name: string): RawEntry {
    const entry = readServerEntry(this.d.configPath, name)
    if (!entry || !this.d.catalog.serverConfig(name)) {
      throw new ApiError('unknown_server', `no server named "${name}"; \`toolgate servers list\` shows the configured servers.`, 404)
    }
    return { ...entry }
  }

  /** The entry for the edit form: values that may be secret are hidden, policy read-only. */
  view(name: string): ServerEntryView {
    const raw = this.existing(name)
    const cfg = this.d.catalog.serverConfig(name)!
    const hide = (o: unknown): Record<string, string | null> | undefined =>
      o && typeof o === 'object'
        ? Object.fromEntries(Object.entries(o as Record<string, string>).map(([k, v]) => [k, envValueMasked(k, String(v)) ? null : String(v)]))
        : undefined
    const masked: ServerEntryView['masked'] = []
    let args = Array.isArray(raw.args) ? raw.args.map(String) : undefined
    if (args) {
      const m = maskArgs(args)
      if (m.some((a, i) => a !== args![i])) masked.push('args')
      args = m
    }
    let url = typeof raw.url === 'string' ? raw.url : undefined
    // maskUrl keeps ${secret:…}/${env:…} as written and masks a literal credential beside one
    if (url !== undefined && maskUrl(url) !== url) {
      masked.push('url')
      url = maskUrl(url)
    }
    const policy: ServerEntryView['policy'] = {}
    for (const f of POLICY_FIELDS) if (isSet(raw[f])) Object.assign(policy, { [f]: raw[f] })
    const org = cfg.organisation
    const organisation: ServerEntryView['organisation'] = org
      ? {
          fields: Object.fromEntries(
            org.fields.map((f) => [
              f,
              f === 'enabled_tools' ? org.enabled_tools : f === 'disabled_tools' ? org.disabled_tools : (cfg as Record<string, unknown>)[f],
            ]),
          ),
          ...(org.blocked ? { blocked: blockedText(org.blocked) } : {}),
        }
      : undefined
    return {
      name,
      ...(typeof raw.command === 'string' ? { command: raw.command } : {}),
      ...(args ? { args } : {}),
      ...(raw.env ? { env: hide(raw.env) } : {}),
      ...(typeof raw.cwd === 'string' ? { cwd: raw.cwd } : {}),
      ...(url !== undefined ? { url } : {}),
      ...(raw.headers ? { headers: hide(raw.headers) } : {}),
      protocol: cfg.protocol,
      enabled: cfg.enabled,
      policy,
      ...(organisation ? { organisation } : {}),
      masked,
    }
  }

  async add(rawInput: unknown): Promise<ActionResult> {
    const input = parseInput(rawInput)
    const org = this.d.catalog.currentConfig.organisation
    for (const f of POLICY_FIELDS) if (isSet(input[f])) throw policyError(f, (organisationFieldsFor(org, input.name) as string[]).includes(f))
    const name = input.name
    // a command or URL the organisation's policy does not allow is refused now, not added to sit there blocked
    const blocked = writtenLaunchBlocked(org, input)
    if (blocked) throw organisationRefusal(`${name} cannot be added: ${blocked}`)
    if (this.d.catalog.serverConfig(name) || readServerEntry(this.d.configPath, name)) {
      throw new ApiError('server_exists', `a server named "${name}" already exists; choose another name or edit it.`, 409)
    }
    for (const m of ['env', 'headers'] as const) {
      const nulls = Object.entries(input[m] ?? {}).filter(([, v]) => v === null)
      if (nulls.length)
        throw new ApiError('invalid_server', `${m}.${nulls[0][0]}: a new server needs a value (null keeps a stored value, and there is none)`, 400)
    }
    const entry = this.entryFrom(input, {})
    // validate first (same loader, same messages), then hold it for review, then write it
    try {
      checkConfigEdit(this.d.configPath, (raw) => addTo(raw, name, entry))
    } catch (e) {
      configError(e)
    }
    const restored = await this.restoreRecords(name)
    if (!restored) await markNeedsReview(this.d.catalog, name)
    try {
      addServerEntry(this.d.configPath, { name, ...entry })
    } catch (e) {
      configError(e)
    }
    this.d.reloadConfig()
    const cfg = this.d.catalog.serverConfig(name)
    const waiting = cfg ? this.d.catalog.quarantineOf(cfg) !== null : true
    return {
      ok: true,
      message: waiting
        ? `Added ${name}. It waits in quarantine: Inspect it to see its tools, then Approve server to start it.`
        : `Added ${name} with the approvals it had before it was removed; it starts now.`,
    }
  }

  async edit(name: string, rawInput: unknown): Promise<ActionResult> {
    const input = parseInput(rawInput)
    if (input.name !== name)
      throw new ApiError('invalid_server', `the body names "${input.name}", the path "${name}"; renaming is not supported: remove it and add it again.`, 400)
    const current = this.existing(name)
    const orgFields: string[] = this.d.catalog.serverConfig(name)?.organisation?.fields ?? []
    for (const f of POLICY_FIELDS) {
      if (isSet(input[f]) && JSON.stringify(input[f]) !== JSON.stringify(current[f])) throw policyError(f, orgFields.includes(f))
    }
    // an edit sends the whole entry: the launch it describes is the one to judge
    const blocked = writtenLaunchBlocked(this.d.catalog.currentConfig.organisation, {
      ...(input.protocol ? { protocol: input.protocol } : {}),
      ...(input.command ? { command: input.command } : {}),
      ...(input.url ? { url: input.url } : {}),
    })
    if (blocked) throw organisationRefusal(`${name} cannot be saved: ${blocked}`)
    const before = this.d.catalog.serverConfig(name)
    const wasWaiting = before ? this.d.catalog.quarantineOf(before) !== null : true
    const view = this.view(name)
    const next = this.entryFrom(input, current, view)
    try {
      editConfig(this.d.configPath, (raw) => replaceIn(raw, name, next))
    } catch (e) {
      configError(e)
    }
    this.d.reloadConfig()
    const cfg = this.d.catalog.serverConfig(name)
    const waiting = cfg ? this.d.catalog.quarantineOf(cfg) !== null : false
    return {
      ok: true,
      message:
        waiting && !wasWaiting ? `Saved ${name}. What it runs changed, so it waits for review again: Inspect it, then Approve server.` : `Saved ${name}.`,
    }
  }

  async remove(name: string): Promise<RemoveResult> {
    const entry = this.existing(name)
    const state = this.d.catalog.store.current
    const records = heldRecords(state, name)
    const server = state.servers[name]
    try {
      removeServerEntry(this.d.configPath, name)
    } catch (e) {
      configError(e)
    }
    this.d.reloadConfig()
    await this.d.catalog.decide([name], (s) => {
      delete s.servers[name]
      forgetRecords(s, name)
    })
    this.drop(name)
    const until = Date.now() + UNDO_WINDOW_MS
    const timer = setTimeout(() => this.drop(name), UNDO_WINDOW_MS).unref()
    this.trash.set(name, { entry: stripName(entry), ...(server ? { server: structuredClone(server) } : {}), records: structuredClone(records), until, timer })
    return { ok: true, message: `Removed ${name}.`, undo_until: new Date(until).toISOString() }
  }

  /** Undo of a remove: the entry as it was written, with its approvals. */
  async restore(name: string): Promise<ActionResult> {
    const held = this.trash.get(name)
    if (!held)
      throw new ApiError(
        'nothing_to_restore',
        `${name} was not removed in the last ${UNDO_WINDOW_MS / 60000} minutes (or Toolgate restarted since); add it again instead.`,
        404,
      )
    if (this.d.catalog.serverConfig(name))
      throw new ApiError('server_exists', `a server named "${name}" exists again; remove it first to restore the old one.`, 409)
    await this.restoreRecords(name)
    try {
      addServerEntry(this.d.configPath, { name, ...held.entry })
    } catch (e) {
      configError(e)
    }
    this.d.reloadConfig()
    return { ok: true, message: `Restored ${name} with its approvals.` }
  }

  /** Puts a removed server's decisions back (undo, or the same name added again in the window); false when none are held. */
  private async restoreRecords(name: string): Promise<boolean> {
    const held = this.trash.get(name)
    if (!held) return false
    this.drop(name)
    await this.d.catalog.decide([name], (s) => {
      if (held.server) s.servers[name] = held.server
      else delete s.servers[name]
      Object.assign(s.tools, held.records.tools)
      Object.assign(s.prompts, held.records.prompts)
      if (Object.keys(held.records.templates).length > 0) s.resource_templates = { ...s.resource_templates, ...held.records.templates }
    })
    return true
  }

  private drop(name: string): void {
    const held = this.trash.get(name)
    if (held) clearTimeout(held.timer)
    this.trash.delete(name)
  }

  /** The raw entry the input describes: `base` keeps policy and unknown keys; hidden values keep theirs. */
  private entryFrom(input: ServerInput, base: RawEntry, view?: ServerEntryView): RawEntry {
    const out: RawEntry = { ...base }
    delete out.name
    for (const f of EDITABLE) delete out[f]
    if (input.command !== undefined && input.command !== '') out.command = input.command
    if (input.args !== undefined && input.args.length > 0) {
      const keep = view?.masked.includes('args') && JSON.stringify(input.args) === JSON.stringify(view.args)
      out.args = keep ? base.args : input.args
    }
    for (const m of ['env', 'headers'] as const) {
      const given = input[m]
      if (!given || Object.keys(given).length === 0) continue
      const stored = (base[m] ?? {}) as Record<string, string>
      const merged: Record<string, string> = {}
      for (const [k, v] of Object.entries(given)) {
        if (v !== null) merged[k] = v
        else if (Object.hasOwn(stored, k)) merged[k] = stored[k]
        else throw new ApiError('invalid_server', `${m}.${k}: null keeps a stored value, and there is none`, 400)
      }
      out[m] = merged
    }
    if (input.cwd !== undefined && input.cwd !== '') out.cwd = input.cwd
    if (input.url !== undefined && input.url !== '') {
      const keep = view?.masked.includes('url') && input.url === view.url
      out.url = keep ? base.url : input.url
    }
    if (input.protocol !== undefined && input.protocol !== 'auto') out.protocol = input.protocol
    if (input.enabled === false) out.enabled = false
    return out
  }
}

function stripName(entry: RawEntry): RawEntry {
  const { name: _name, ...rest } = entry
  return rest
}

type RawConfig = Record<string, unknown> & { mcpServers?: RawEntry[] | Record<string, RawEntry> }

function addTo(raw: RawConfig, name: string, entry: RawEntry): void {
  const servers = raw.mcpServers ?? {}
  if (Array.isArray(servers)) servers.push({ name, ...entry })
  else servers[name] = entry
  raw.mcpServers = servers
}

/** Replaces the entry in place (its position and, in array style, its name key first). */
function replaceIn(raw: RawConfig, name: string, entry: RawEntry): void {
  const servers = raw.mcpServers
  if (Array.isArray(servers)) {
    const i = servers.findIndex((s) => s && s.name === name)
    servers[i] = { name, ...entry }
  } else if (servers) servers[name] = entry
}
