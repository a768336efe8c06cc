// The organisation's machine-wide policy (docs/config.md, docs/contract.md §8): `policy.json` in
// /etc/toolgate/ (Linux), /Library/Application Support/Toolgate/ (macOS), %ProgramData%\Toolgate\
// (Windows), in the shape of the config (`mcpServers` keyed by name, `"*"` for every server) with
// the operator keys only, plus which commands and URLs may run and which agents may change
// servers. It wins over the user's mcp_config.json and over agents; nothing in Toolgate writes
// it. Pure: the schema, the matching of commands and URLs, and the words every surface uses.
import { z } from 'zod'
import { CONFIRM_LEVELS, CONFIRM_TIMEOUT_MAX_S } from './confirmations'
import { SandboxSchema, ServerNameSchema } from './config-schema'
import { VARIANTS, type Variant } from './call-variant'

/** What API entries carry on what the organisation's policy locks (`"policy": "organisation"`). */
export const ORGANISATION = 'organisation' as const
/** The words every surface uses for it. */
export const SET_BY_ORGANISATION = 'set by your organisation'

/** Server keys the policy may set, per server or for all (`"*"`); each replaces the user's value, the tool lists add to the user's. */
export const POLICY_SERVER_KEYS = [
  'quarantined',
  'trust',
  'enabled_tools',
  'disabled_tools',
  'sandbox',
  'confirm',
  'confirm_tools',
  'confirm_timeout_s',
  'tool_classes',
] as const
export type PolicyServerKey = (typeof POLICY_SERVER_KEYS)[number]

const names = (what: string) => z.array(z.string().min(1, `${what} must not hold an empty string`), { error: `${what} must be a list of strings` })

export const PolicyServerSchema = z.lazy(() =>
  z.strictObject(
    {
      quarantined: z.boolean({ error: 'quarantined must be true or false' }).optional(),
      trust: z.enum(['manual', 'auto'], { error: 'trust must be "manual" or "auto"' }).optional(),
      enabled_tools: names('enabled_tools').optional(),
      disabled_tools: names('disabled_tools').optional(),
      sandbox: SandboxSchema.optional(),
      confirm: z.enum(CONFIRM_LEVELS, { error: 'confirm must be "never", "destructive" or "write"' }).optional(),
      confirm_tools: names('confirm_tools').optional(),
      confirm_timeout_s: z
        .number({ error: `confirm_timeout_s must be a whole number of seconds from 1 to ${CONFIRM_TIMEOUT_MAX_S}` })
        .int()
        .min(1)
        .max(CONFIRM_TIMEOUT_MAX_S)
        .optional(),
      /** the organisation's call variant per tool name: wins over the user's config and the user's classification */
      tool_classes: z
        .record(
          z.string().min(1, 'a tool name in tool_classes must not be empty'),
          z.enum(VARIANTS, { error: 'a tool class must be "read", "write" or "destructive"' }),
          {
            error: 'tool_classes must be an object {"<tool>": "read" | "write" | "destructive"}',
          },
        )
        .optional(),
    },
    { error: 'a server entry of the policy must be an object of operator keys (quarantined, enabled_tools, disabled_tools, sandbox, confirm, …)' },
  ),
)
export type PolicyServer = z.infer<typeof PolicyServerSchema>

/** `https://host[:port][/path]`, the host may start with `*.` (any subdomain). */
export function urlPatternProblem(p: string): string | null {
  const m = /^(https?):\/\/(\*\.)?([^/*?#@\s]+)(\/[^*?#\s]*)?$/.exec(p)
  if (!m) return `"${p}" is not a URL pattern: write https://host, https://host/path or https://*.domain (no query, no credentials)`
  try {
    new URL(`${m[1]}://${m[3]}${m[4] ?? ''}`)
  } catch {
    return `"${p}" is not a URL pattern: its host does not parse`
  }
  return null
}

const UrlPatternSchema = z.lazy(() =>
  z.string({ error: 'each entry of allowed_urls must be a string' }).superRefine((p, ctx) => {
    const problem = urlPatternProblem(p)
    if (problem) ctx.addIssue({ code: 'custom', message: problem })
  }),
)

/** Built on first use (a policy file is read): most users have none (docs/performance.md, memory). */
export const PolicySchema = z.lazy(() =>
  z
    .strictObject(
      {
        mcpServers: z.record(z.string(), PolicyServerSchema, { error: 'mcpServers must be an object keyed by server name ("*" for every server)' }).optional(),
        allowed_commands: names('allowed_commands').optional(),
        blocked_commands: names('blocked_commands').optional(),
        allowed_urls: z.array(UrlPatternSchema, { error: 'allowed_urls must be a list of URL patterns' }).optional(),
        /** false: no agent adds or changes servers; a list: only these agents may (and only as far as the user's config allows) */
        allow_agent_server_changes: z
          .union([z.boolean(), z.array(ServerNameSchema)], { error: 'allow_agent_server_changes must be true, false or a list of agent names' })
          .optional(),
        /** false: no agent is asked in its own client (ask_in_client); a list: only these agents may be (as far as the config and the user turn it on) */
        ask_in_client: z.union([z.boolean(), z.array(ServerNameSchema)], { error: 'ask_in_client must be true, false or a list of agent names' }).optional(),
        /** true: every server the user adds waits for review, whatever the user's config says */
        quarantine_enabled: z.boolean({ error: 'quarantine_enabled must be true or false' }).optional(),
      },
      { error: 'the policy must be a JSON object like {"mcpServers": {...}, "allowed_commands": [...]}' },
    )
    .superRefine((p, ctx) => {
      for (const [name, s] of Object.entries(p.mcpServers ?? {})) {
        if (name !== '*' && !ServerNameSchema.safeParse(name).success)
          ctx.addIssue({ code: 'custom', path: ['mcpServers', name], message: `"${name}" is not a server name (or "*" for every server)` })
        if (s.enabled_tools && s.disabled_tools)
          ctx.addIssue({ code: 'custom', path: ['mcpServers', name, 'disabled_tools'], message: 'set either enabled_tools or disabled_tools, not both' })
      }
    }),
)
export type Policy = z.infer<typeof PolicySchema>

/** The last part of a command (`/usr/bin/npx`, `C:\\x\\npx.cmd` → `npx`). */
export function commandName(command: string): string {
  const base = command.split(/[\\/]/).pop() ?? command
  return base.replace(/\.(exe|cmd|bat|com)$/i, '')
}

const windowsPath = (p: string): boolean => /^[A-Za-z]:|\\/.test(p)

/**
 * An entry with a path names that file only; a bare name matches that program wherever it is
 * (`npx` matches `/usr/local/bin/npx`), whatever its case (`CURL.EXE` is curl where file names
 * ignore case, as on Windows and macOS). A Windows path compares without case too.
 */
export function commandMatches(entry: string, command: string): boolean {
  if (/[\\/]/.test(entry)) {
    const norm = (p: string): string => (windowsPath(entry) || windowsPath(p) ? p.replace(/\\/g, '/').toLowerCase() : p)
    return norm(entry) === norm(command)
  }
  return commandName(entry).toLowerCase() === commandName(command).toLowerCase()
}

/** Why the policy does not let this command run, or null. */
export function commandBlocked(p: Pick<Policy, 'allowed_commands' | 'blocked_commands'>, command: string): string | null {
  if (p.blocked_commands?.some((e) => commandMatches(e, command))) return `the command "${command}" is in blocked_commands`
  if (p.allowed_commands && !p.allowed_commands.some((e) => commandMatches(e, command))) return `the command "${command}" is not in allowed_commands`
  return null
}

/** Whether a URL falls under a pattern: same scheme and port, the host (or a subdomain for `*.`), the path or below it. */
export function urlMatches(pattern: string, url: URL): boolean {
  const m = /^(https?):\/\/(\*\.)?([^/]+)(\/.*)?$/.exec(pattern)
  if (!m) return false
  let base: URL
  try {
    base = new URL(`${m[1]}://${m[3]}${m[4] ?? ''}`)
  } catch {
    return false
  }
  if (url.protocol !== base.protocol || url.port !== base.port) return false
  const host = url.hostname.toLowerCase()
  const want = base.hostname.toLowerCase()
  if (m[2] ? !host.endsWith(`.${want}`) : host !== want) return false
  const prefix = base.pathname.replace(/\/+$/, '')
  return prefix === '' || url.pathname === prefix || url.pathname.startsWith(`${prefix}/`)
}

/** Why the policy does not let this URL be used, or null. `raw` may hold references: a host that comes from one cannot be checked. */
export function urlBlocked(p: Pick<Policy, 'allowed_urls'>, raw: string): string | null {
  if (!p.allowed_urls) return null
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(raw)?.[1] ?? ''
  // credentials may come from references; the host may not (it could be anything once resolved)
  if (authority.slice(authority.lastIndexOf('@') + 1).includes('${')) {
    return `the host of "${raw}" comes from a reference, so allowed_urls cannot be checked`
  }
  let url: URL
  try {
    url = new URL(raw.replace(/\$\{(secret|env):[^}]*\}/g, 'x'))
  } catch {
    return `"${raw}" is not a URL allowed_urls can check`
  }
  url.username = ''
  url.password = ''
  if (!p.allowed_urls.some((pattern) => urlMatches(pattern, url))) return `the URL ${url.origin}${url.pathname} is not in allowed_urls`
  return null
}

/** The facts of the policy on one server, carried by the effective server config (`organisation`). */
export interface OrganisationLocks {
  /** the server keys whose value is the organisation's (quarantined, sandbox, confirm, …) */
  fields: PolicyServerKey[]
  /** the organisation's own tool lists (the user's stay in enabled_tools/disabled_tools) */
  enabled_tools?: string[]
  disabled_tools?: string[]
  /** the organisation's tool classes (merged into tool_classes, where they win over the user's) */
  tool_classes?: Record<string, Variant>
  /** why the server may not run (its command or URL, or an invalid policy file): it is off and cannot be switched on */
  blocked?: string
}

/** The policy as the core applies it (on the effective Config). */
export interface OrganisationPolicy {
  /** the policy file */
  file: string
  /** why the file could not be used; every server is then blocked (fail closed) */
  error: string | null
  allow_agent_server_changes?: boolean | string[]
  /** which agents may be asked in their own client at all (shared/ask-in-client.ts) */
  ask_in_client?: boolean | string[]
  allowed_commands?: string[]
  blocked_commands?: string[]
  allowed_urls?: string[]
  quarantine_enabled?: boolean
  /** the keys the policy sets per server name (`"*"` for every server) */
  servers?: Record<string, PolicyServerKey[]>
}

/** The server keys the policy sets for a server of this name (its own entry and `"*"`). */
export function organisationFieldsFor(p: OrganisationPolicy | undefined, name: string): PolicyServerKey[] {
  if (!p?.servers) return []
  return [...new Set([...(p.servers['*'] ?? []), ...(p.servers[name] ?? [])])]
}

/** Whether the organisation's lists deny this tool. */
export function organisationDenies(tool: string, o: OrganisationLocks | undefined): boolean {
  if (!o) return false
  if (o.enabled_tools && !o.enabled_tools.includes(tool)) return true
  return o.disabled_tools?.includes(tool) ?? false
}

/** Whether the policy lets this agent add or change servers at all (the user's config may still say no). */
export function agentMayChangeServers(p: OrganisationPolicy | undefined, agent: string | null): boolean {
  if (!p) return true
  if (p.error) return false
  const a = p.allow_agent_server_changes
  if (a === undefined || a === true) return true
  if (a === false) return false
  return agent !== null && a.includes(agent)
}
