// The organisation's policy file: where it is, reading it, and applying it to
// the user's config. The machine-wide file wins when it exists; TOOLGATE_POLICY names one only
// where there is none (tests, or an organisation that deploys it elsewhere), so a user cannot point
// Toolgate away from the machine's policy. A file that exists but cannot be used (unreadable, not
// JSON, an unknown or misspelled key, a bad value) fails closed: no server runs until it is fixed.
import fs from 'node:fs'
import path from 'node:path'
import type { Config, ServerConfig } from '../../../shared/config-schema'
import { usesStdio } from '../../../shared/config-schema'
import { parseOnce } from '../../../shared/parse-once'
import {
  commandBlocked,
  PolicySchema,
  SET_BY_ORGANISATION,
  urlBlocked,
  type OrganisationLocks,
  type OrganisationPolicy,
  type Policy,
  type PolicyServer,
  type PolicyServerKey,
} from '../../../shared/policy'
import { jsonErrorText } from './load'

export const POLICY_ENV = 'TOOLGATE_POLICY'

/** The machine-wide policy file of this platform. */
export function machinePolicyFile(platform: NodeJS.Platform = process.platform, env: NodeJS.ProcessEnv = process.env): string {
  if (platform === 'win32') return path.win32.join(env.ProgramData ?? env.ALLUSERSPROFILE ?? 'C:\\ProgramData', 'Toolgate', 'policy.json')
  if (platform === 'darwin') return '/Library/Application Support/Toolgate/policy.json'
  return '/etc/toolgate/policy.json'
}

export interface PolicyLocation {
  file: string
  /** the machine's own file, or the one TOOLGATE_POLICY names */
  from: 'machine' | 'env'
}

/**
 * Whether a file is there: a file that exists but cannot be looked at (EACCES), and a link to
 * nothing (its target on a share not mounted, removed, or not yet made by a switch), count as there
 * (and then fail to read: fail closed). A dangling link at the machine's path is not "no policy".
 */
function present(file: string): boolean {
  try {
    fs.lstatSync(file)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code !== 'ENOENT' && (e as NodeJS.ErrnoException).code !== 'ENOTDIR'
  }
}

/** Which policy file applies, or null when there is none. */
export function policyLocation(env: NodeJS.ProcessEnv = process.env, machine = machinePolicyFile(process.platform, env)): PolicyLocation | null {
  if (present(machine)) return { file: machine, from: 'machine' }
  const named = env[POLICY_ENV]
  if (named) return { file: path.resolve(named), from: 'env' }
  return null
}

export interface PolicyState {
  file: string
  policy: Policy | null
  /** why the file cannot be used (then every server is blocked) */
  error: string | null
  /** the text read, to tell a real change from a touch */
  text: string | null
}

function zodPath(p: ReadonlyArray<PropertyKey>): string {
  return p.map((k) => (typeof k === 'number' ? `[${k}]` : `.${String(k)}`)).join('')
}

/** Reads and validates the policy file; never throws (a problem is the state's `error`). */
export function readPolicy(loc: PolicyLocation | null): PolicyState | null {
  if (!loc) return null
  const { file } = loc
  let text: string
  try {
    text = fs.readFileSync(file, 'utf8')
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code
    const why =
      code === 'ENOENT'
        ? loc.from === 'env'
          ? `it does not exist (${POLICY_ENV} names it)`
          : 'it is a link to a file that does not exist'
        : `it cannot be read (${(e as Error).message})`
    return { file, policy: null, error: why, text: null }
  }
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (e) {
    return { file, policy: null, error: `not valid JSON: ${jsonErrorText(text, (e as Error).message)}`, text }
  }
  const parsed = parseOnce(PolicySchema, raw)
  if (!parsed.success) {
    const i = parsed.error.issues[0]
    const problem = i.code === 'unrecognized_keys' ? `unknown key(s) ${i.keys.join(', ')} (a misspelled key would leave the policy off)` : i.message
    return { file, policy: null, error: `at $${zodPath(i.path)}: ${problem}`, text }
  }
  return { file, policy: parsed.data, error: null, text }
}

/** The keys whose policy value replaces the user's (the tool lists are kept apart: they add to the user's). */
const REPLACED: readonly PolicyServerKey[] = ['quarantined', 'trust', 'sandbox', 'confirm', 'confirm_tools', 'confirm_timeout_s']

/** The policy's rule for one server: its own entry, key by key over `"*"` (a tool list of its own replaces both lists of `"*"`). */
function ruleFor(p: Policy, name: string): PolicyServer {
  const all = p.mcpServers?.['*'] ?? {}
  const own = p.mcpServers?.[name] ?? {}
  const rule: PolicyServer = { ...all, ...own }
  if (all.tool_classes && own.tool_classes) rule.tool_classes = { ...all.tool_classes, ...own.tool_classes }
  if (own.enabled_tools || own.disabled_tools) {
    delete rule.enabled_tools
    delete rule.disabled_tools
    if (own.enabled_tools) rule.enabled_tools = own.enabled_tools
    if (own.disabled_tools) rule.disabled_tools = own.disabled_tools
  }
  return rule
}

type LaunchRules = Pick<Policy, 'allowed_commands' | 'blocked_commands' | 'allowed_urls'>

/** Why the policy does not let this server's launch (as written, or resolved) run, or null. */
export function launchBlocked(p: LaunchRules, s: Pick<ServerConfig, 'protocol' | 'command' | 'url'>): string | null {
  if (usesStdio(s)) return s.command ? commandBlocked(p, s.command) : null
  return s.url ? urlBlocked(p, s.url) : null
}

/** The check of a launch as the user or an agent writes it (add, edit): why the organisation's policy will not let it run, or null. */
export function writtenLaunchBlocked(
  org: OrganisationPolicy | undefined,
  s: { protocol?: ServerConfig['protocol']; command?: string; url?: string },
): string | null {
  return launchCheck(org, { name: '', enabled: true, trust: 'manual', ...s, protocol: s.protocol ?? 'auto' })
}

/**
 * The check at the moment a server starts or is inspected, on its resolved launch (a URL whose
 * path comes from `${env:…}` is judged as it will be used): the sentence that says why not, or null.
 */
export function launchCheck(org: OrganisationPolicy | undefined, resolved: ServerConfig): string | null {
  if (!org) return null
  if (org.error) return blockedText(`your organisation's policy file ${org.file} cannot be used: ${org.error}`)
  const why = launchBlocked(org, resolved)
  return why ? blockedText(why) : null
}

/** The sentence that goes with a block, on every surface. */
export function blockedText(why: string): string {
  return `${why} (${SET_BY_ORGANISATION}: it does not run, and it cannot be switched on from Toolgate)`
}

function applyToServer(s: ServerConfig, state: PolicyState): ServerConfig {
  const locks: OrganisationLocks = { fields: [] }
  const out: ServerConfig = { ...s }
  const p = state.policy
  if (state.error || !p) {
    locks.blocked = `your organisation's policy file ${state.file} cannot be used: ${state.error ?? 'unknown error'}; no server runs until it is fixed`
  } else {
    const rule = ruleFor(p, s.name)
    for (const key of REPLACED) {
      const v = rule[key]
      if (v === undefined) continue
      if (key === 'sandbox' && !usesStdio(s)) continue // isolation is for stdio servers only
      Object.assign(out, { [key]: v })
      locks.fields.push(key)
    }
    if (rule.enabled_tools) {
      locks.enabled_tools = rule.enabled_tools
      locks.fields.push('enabled_tools')
    }
    if (rule.disabled_tools) {
      locks.disabled_tools = rule.disabled_tools
      locks.fields.push('disabled_tools')
    }
    if (rule.tool_classes) {
      // per tool: the organisation's class wins over the user's config
      out.tool_classes = { ...s.tool_classes, ...rule.tool_classes }
      locks.tool_classes = rule.tool_classes
      locks.fields.push('tool_classes')
    }
    const why = launchBlocked(p, s)
    if (why) locks.blocked = why
  }
  if (locks.blocked) out.enabled = false
  if (locks.fields.length || locks.blocked) out.organisation = locks
  return out
}

/**
 * The effective config: the user's config with the policy applied. Each operator key the policy
 * sets replaces the user's value; its tool lists deny on top of the user's; a server whose command
 * or URL it does not allow is off (and says why); its agent rule and quarantine_enabled win.
 */
export function applyPolicy(config: Config, state: PolicyState | null): Config {
  if (!state) return config
  const p = state.policy
  const organisation: OrganisationPolicy = { file: state.file, error: state.error }
  if (p) {
    for (const k of ['allow_agent_server_changes', 'ask_in_client', 'allowed_commands', 'blocked_commands', 'allowed_urls', 'quarantine_enabled'] as const) {
      if (p[k] !== undefined) Object.assign(organisation, { [k]: p[k] })
    }
    if (p.mcpServers) {
      organisation.servers = Object.fromEntries(
        Object.entries(p.mcpServers).map(([name, rule]) => [name, Object.keys(rule).filter((k): k is PolicyServerKey => k in rule)]),
      )
    }
  }
  const agentsMay = !state.error && p?.allow_agent_server_changes !== false
  return {
    ...config,
    servers: config.servers.map((s) => applyToServer(s, state)),
    quarantine_enabled: p?.quarantine_enabled === true ? true : config.quarantine_enabled,
    allow_agent_server_changes: config.allow_agent_server_changes && agentsMay,
    organisation,
  }
}
