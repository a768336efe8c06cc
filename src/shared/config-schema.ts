// The mcp_config.json schema (docs/contract.md §2). Pure zod: used by the core to validate the
// operator's file and by the UI to know the shape.
import { z } from 'zod'
import { findReferences, referenceProblem, referencingStrings, withPlaceholders } from './secret-refs'
import { VARIANTS } from './call-variant'
import { CONFIRM_LEVELS, CONFIRM_TIMEOUT_DEFAULT_S, CONFIRM_TIMEOUT_MAX_S } from './confirmations'
import { parseEgressRule } from './egress'
import type { OrganisationLocks, OrganisationPolicy } from './policy'
import { IdleStopSchema, LifecycleSchema } from './lifecycle'

export const SERVER_NAME_RE = /^[A-Za-z0-9._-]+$/

export const ProtocolSchema = z.enum(['stdio', 'http', 'streamable-http', 'sse', 'auto'])
export type Protocol = z.infer<typeof ProtocolSchema>

/** An absolute path (POSIX or Windows) or one starting with "~/" (the user's home). */
export function isSandboxPath(p: string): boolean {
  return p === '~' || p.startsWith('~/') || p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\\\')
}

const SandboxPathSchema = z
  .string({ error: 'each path must be a string' })
  .min(1, 'a path must not be empty')
  .refine(isSandboxPath, { message: 'use an absolute path or one starting with "~/" (a relative path would depend on where Toolgate runs)' })

const NETWORK_SHAPE = 'network must be true (open), false (none) or a list of the hosts it may reach, like ["api.github.com", "host:8443"]'

const SandboxObjectSchema = z.strictObject({
  fs_read: z.array(SandboxPathSchema, { error: 'fs_read must be a list of paths the server may read' }).optional(),
  fs_write: z.array(SandboxPathSchema, { error: 'fs_write must be a list of paths the server may read and write' }).optional(),
  network: z
    .unknown()
    .superRefine((v, ctx) => {
      if (typeof v === 'boolean') return
      if (!Array.isArray(v)) return void ctx.addIssue({ code: 'custom', message: NETWORK_SHAPE })
      v.forEach((h: unknown, i) => {
        const problem = typeof h === 'string' ? parseEgressRule(h) : 'each host must be a string, like "api.github.com" or "api.github.com:8443"'
        if (typeof problem === 'string') ctx.addIssue({ code: 'custom', message: problem, path: [i] })
      })
    })
    .transform((v) => v as boolean | string[])
    .optional(),
  loopback: z
    .array(
      z
        .number({ error: 'each loopback port must be a number' })
        .int('a port is a whole number')
        .min(1, 'a port is 1 to 65535')
        .max(65535, 'a port is 1 to 65535'),
      {
        error: 'loopback must be a list of port numbers on this machine the server may connect to, e.g. [5432]',
      },
    )
    .optional(),
})

const SANDBOX_SHAPE = 'sandbox must be false (no isolation) or an object {"fs_read": [paths], "fs_write": [paths], "network": true|false, "loopback": [ports]}'

/**
 * A stdio server's isolation (docs/contract.md §7): absent or `true` = the default profile; an object
 * grants paths and sets the network; `false` = the operator's opt-out (runs unisolated).
 */
export const SandboxSchema = z.union([z.boolean(), SandboxObjectSchema], {
  error: (iss) => {
    // An object with a problem inside: say which key and what, not "invalid input".
    const inner = (iss as { errors?: Array<Array<{ path: PropertyKey[]; message: string; code: string; keys?: string[] }>> }).errors?.[1]?.[0]
    const input = (iss as { input?: unknown }).input
    if (inner && input !== null && typeof input === 'object' && !Array.isArray(input)) {
      const where = inner.path.length ? `${inner.path.map(String).join('.')}: ` : ''
      return `sandbox.${where}${inner.message}`
    }
    return SANDBOX_SHAPE
  },
})
export type SandboxConfig = z.infer<typeof SandboxSchema>

/** The OAuth grants Toolgate signs in with: a person in the browser, or the client alone (machine to machine). */
export const OAUTH_GRANTS = ['authorization_code', 'client_credentials'] as const

/**
 * Sign-in for an HTTP server (RFC 6749 + the MCP authorization spec): a pre-registered client
 * (when the server offers no dynamic registration), the client-credentials grant (no browser), or
 * a client ID metadata document Toolgate offers where the authorization server takes one.
 */
export const OAuthConfigSchema = z.strictObject(
  {
    grant_type: z.enum(OAUTH_GRANTS, { error: 'grant_type must be "authorization_code" or "client_credentials"' }).optional(),
    client_id: z.string({ error: 'client_id must be a string' }).min(1, 'client_id must not be empty').optional(),
    client_secret: z.string({ error: 'client_secret must be a string' }).min(1, 'client_secret must not be empty').optional(),
    scopes: z.array(z.string().min(1, 'a scope must not be empty'), { error: 'scopes must be a list of strings' }).optional(),
    client_metadata_url: z.string({ error: 'client_metadata_url must be a string' }).optional(),
  },
  {
    error:
      'oauth must be an object {"client_id": "...", "client_secret": "${secret:NAME}", "scopes": ["..."]}, ' +
      'or {"grant_type": "client_credentials", "client_id": "...", "client_secret": "${secret:NAME}"}, or {"client_metadata_url": "https://..."}',
  },
)
export type OAuthConfig = z.infer<typeof OAuthConfigSchema>

const ConfirmTimeoutSchema = z
  .number({ error: `confirm_timeout_s must be a whole number of seconds from 1 to ${CONFIRM_TIMEOUT_MAX_S}` })
  .int(`confirm_timeout_s must be a whole number of seconds from 1 to ${CONFIRM_TIMEOUT_MAX_S}`)
  .min(1, `confirm_timeout_s must be from 1 to ${CONFIRM_TIMEOUT_MAX_S}`)
  .max(CONFIRM_TIMEOUT_MAX_S, `confirm_timeout_s must be from 1 to ${CONFIRM_TIMEOUT_MAX_S}`)

const serverFields = {
  command: z.string().min(1).optional(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
  cwd: z.string().optional(),
  // may hold ${secret:NAME} / ${env:NAME}: the URL must be valid with them in place
  url: z
    .string()
    .refine((v) => z.string().url().safeParse(withPlaceholders(v)).success, 'Invalid URL')
    .optional(),
  headers: z.record(z.string(), z.string()).optional(),
  protocol: ProtocolSchema.default('auto'),
  enabled: z.boolean().default(true),
  quarantined: z.boolean().optional(),
  trust: z.enum(['manual', 'auto']).default('manual'),
  enabled_tools: z.array(z.string()).optional(),
  disabled_tools: z.array(z.string()).optional(),
  /** exact-name allow/deny lists of the server's prompts (operator policy, like enabled_tools/disabled_tools) */
  enabled_prompts: z.array(z.string(), { error: 'enabled_prompts must be a list of exact prompt names' }).optional(),
  disabled_prompts: z.array(z.string(), { error: 'disabled_prompts must be a list of exact prompt names' }).optional(),
  sandbox: SandboxSchema.optional(),
  /** the server's questions to the user (elicitation) reach the agent's client during its call, unless "off" */
  elicitation: z.enum(['relay', 'off'], { error: 'elicitation must be "relay" (default) or "off"' }).optional(),
  /** the server may use the user's model (sampling) only when "allow"; off by default ("ask" is refused until built) */
  sampling: z.enum(['off', 'ask', 'allow'], { error: 'sampling must be "off" (default), "ask" or "allow"' }).optional(),
  /** the folders the server is told as its roots (default: its sandbox's fs_read, fs_write and cwd) */
  roots: z.array(SandboxPathSchema, { error: 'roots must be a list of folders (absolute or starting with "~/")' }).optional(),
  oauth: OAuthConfigSchema.optional(),
  /** calls that wait for the user's OK; `confirm_tools` by exact tool name (any variant) */
  confirm: z.enum(CONFIRM_LEVELS, { error: 'confirm must be "never", "destructive" or "write"' }).optional(),
  confirm_tools: z.array(z.string(), { error: 'confirm_tools must be a list of exact tool names' }).optional(),
  confirm_timeout_s: ConfirmTimeoutSchema.optional(),
  /** the operator's call variant per tool name; stands in for missing hints, never weakens a server's stricter hint */
  tool_classes: z
    .record(
      z.string().min(1, 'a tool name in tool_classes must not be empty'),
      z.enum(VARIANTS, { error: 'a tool class must be "read", "write" or "destructive"' }),
      { error: 'tool_classes must be an object {"<tool>": "read" | "write" | "destructive"}' },
    )
    .optional(),
  /** "on_demand" (absent) starts the server at its first use and stops it after idle_stop_s; "always" keeps it running */
  lifecycle: LifecycleSchema.optional(),
  /** seconds without use before an on-demand server is stopped (0 = never); absent = the top-level idle_stop_s */
  idle_stop_s: IdleStopSchema.optional(),
}

const ServerBody = z.object(serverFields)

function checkServer(s: z.infer<typeof ServerBody>, ctx: z.RefinementCtx): void {
  if (s.enabled_tools && s.disabled_tools) {
    ctx.addIssue({ code: 'custom', message: 'set either enabled_tools or disabled_tools, not both', path: ['disabled_tools'] })
  }
  if (s.enabled_prompts && s.disabled_prompts) {
    ctx.addIssue({ code: 'custom', message: 'set either enabled_prompts or disabled_prompts, not both', path: ['disabled_prompts'] })
  }
  // both: an unused command (or url) could stand in for what runs in a review, and which one runs is a guess
  if (s.command !== undefined && s.url !== undefined) {
    ctx.addIssue({
      code: 'custom',
      message:
        '"command" and "url" in one entry: a server is either a program Toolgate starts ("command", "args") or an HTTP server it connects to ("url"), not both; ' +
        'keep the one you mean (did you mean two servers? give each its own entry)',
      path: ['url'],
    })
  }
  const stdio = s.protocol === 'stdio' || (s.protocol === 'auto' && !s.url)
  if (stdio && !s.command) {
    ctx.addIssue({ code: 'custom', message: 'a stdio server needs "command" (or give "url" for an HTTP server)', path: ['command'] })
  }
  if (!stdio && typeof s.sandbox === 'object') {
    ctx.addIssue({
      code: 'custom',
      message: 'sandbox applies only to stdio servers (Toolgate does not run an HTTP server, so it cannot isolate it); remove it',
      path: ['sandbox'],
    })
  }
  if (s.oauth) {
    if (stdio) ctx.addIssue({ code: 'custom', message: 'oauth applies only to HTTP servers (a "url"); remove it', path: ['oauth'] })
    if (s.oauth.client_secret !== undefined && !s.oauth.client_id) {
      ctx.addIssue({ code: 'custom', message: 'client_secret needs client_id', path: ['oauth', 'client_secret'] })
    }
    if (s.oauth.grant_type === 'client_credentials' && (!s.oauth.client_id || s.oauth.client_secret === undefined)) {
      ctx.addIssue({
        code: 'custom',
        message: 'the client_credentials grant needs client_id and client_secret ("${secret:NAME}"): the client signs in alone, with no browser',
        path: ['oauth', 'grant_type'],
      })
    }
    if (s.oauth.client_metadata_url !== undefined) {
      const problem = clientMetadataUrlProblem(s.oauth.client_metadata_url)
      if (problem) ctx.addIssue({ code: 'custom', message: problem, path: ['oauth', 'client_metadata_url'] })
      else if (s.oauth.client_id || s.oauth.grant_type === 'client_credentials') {
        ctx.addIssue({
          code: 'custom',
          message: 'set either client_id (a client registered at the provider) or client_metadata_url (a client ID metadata document), not both',
          path: ['oauth', 'client_metadata_url'],
        })
      }
    }
    if (s.oauth.client_secret !== undefined && findReferences(s.oauth.client_secret).length === 0) {
      ctx.addIssue({
        code: 'custom',
        message: 'a client secret is never written in the config: store it with `toolgate secrets set NAME` and write "${secret:NAME}" here',
        path: ['oauth', 'client_secret'],
      })
    }
    if (Object.keys(s.headers ?? {}).some((k) => k.toLowerCase() === 'authorization')) {
      ctx.addIssue({
        code: 'custom',
        message: 'set either an Authorization header or oauth, not both (oauth signs in and sends its own token)',
        path: ['oauth'],
      })
    }
  }
  if (!stdio && !s.url) {
    ctx.addIssue({ code: 'custom', message: `protocol "${s.protocol}" needs "url"`, path: ['url'] })
  }
  for (const { path, value } of referencingStrings(s)) {
    const problem = referenceProblem(value)
    if (problem) ctx.addIssue({ code: 'custom', message: problem, path })
  }
}

/** An IPv4 or IPv6 literal, or a name, that means this machine or a private network. */
const LOCAL_HOST =
  /^(localhost|.*\.localhost|0\.0\.0\.0|127(\.\d{1,3}){3}|10(\.\d{1,3}){3}|192\.168(\.\d{1,3}){2}|172\.(1[6-9]|2\d|3[01])(\.\d{1,3}){2}|169\.254(\.\d{1,3}){2}|\[(::1?|f[cd][0-9a-f:]*|fe80:[0-9a-f:]*|::ffff:[0-9a-f.:]*)\])$/i

/**
 * Why a client ID metadata document URL cannot work, or null: the authorization server fetches
 * it, so it must be https on a public host with a path (draft-ietf-oauth-client-id-metadata-document);
 * a URL on this machine or a private network would make the authorization server fetch its own
 * neighbourhood (and no remote one can read Toolgate's loopback anyway).
 */
export function clientMetadataUrlProblem(value: string): string | null {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return 'client_metadata_url must be a URL like https://example.org/toolgate/client.json'
  }
  if (url.protocol !== 'https:') return 'client_metadata_url must be an https URL (the authorization server fetches it)'
  if (url.pathname === '/' || url.hash || url.username || url.password) {
    return 'client_metadata_url must name a document by its path (https://host/path), without credentials or a fragment'
  }
  if (LOCAL_HOST.test(url.hostname)) {
    return `client_metadata_url must be on a public host, not ${url.hostname} (this machine or a private network): the authorization server fetches it`
  }
  return null
}

/** Whether a server entry is reached over stdio (else over HTTP at its url). */
export function usesStdio(config: { protocol: Protocol; command?: string; url?: string }): boolean {
  if (config.protocol === 'stdio') return true
  if (config.protocol === 'auto') return config.command !== undefined || !config.url
  return false
}

export const ServerNameSchema = z
  .string()
  .min(1, 'name must not be empty')
  .regex(SERVER_NAME_RE, 'name may contain only letters, digits, "-", "_" and "." (no ":")')
  .refine((n) => n !== '.' && n !== '..', 'the names "." and ".." are not allowed (they mean directories in paths and URLs); choose another')
  .refine((n) => !(n in Object.prototype) && n !== 'prototype', 'this name is reserved (it collides with a JavaScript object member); choose another')

export const ServerEntrySchema = ServerBody.extend({ name: ServerNameSchema }).superRefine(checkServer)
const KeyedServerSchema = ServerBody.extend({ name: ServerNameSchema.optional() }).superRefine(checkServer)

export const AgentSchema = z.object({
  name: ServerNameSchema,
  servers: z.union([z.literal('*'), z.array(z.string())]).default('*'),
  permissions: z.array(z.enum(['read', 'write', 'destructive'])).default(['read', 'write', 'destructive']),
  /**
   * Questions for this agent's calls (a confirmation, an access request) may also go to its own
   * client, when the client can show them (MCP elicitation): only where a person answers them
   * there, never a model. Absent: the user decides (the Agents view; off until they turn it on);
   * true or false: the operator decides, and the user's switch shows it locked (shared/ask-in-client.ts).
   */
  ask_in_client: z.boolean({ error: 'ask_in_client must be true or false' }).optional(),
})
export type AgentConfig = z.infer<typeof AgentSchema>

export const ActivityConfigSchema = z.object({
  /** records older than this many days are deleted (whole segments) */
  retention_days: z.number().min(0.001).max(3650).default(30),
  /** the activity files never grow past this many MB (oldest segments are deleted first) */
  max_mb: z.number().min(1).max(100_000).default(50),
  /** false: calls keep only the SHA-256 of their arguments, no preview */
  record_args: z.boolean().default(true),
})
export type ActivityConfig = z.infer<typeof ActivityConfigSchema>

const ConfigBase = z.object({
  listen: z
    .string()
    .regex(/^[^:\s]+:\d{1,5}$|^\[[0-9a-fA-F:]+\]:\d{1,5}$/, 'listen must be HOST:PORT')
    .optional(),
  data_dir: z.string().optional(),
  api_key: z.string().min(16, 'api_key must be at least 16 characters').optional(),
  tools_limit: z.number().int().min(1).max(100).default(15),
  call_timeout_ms: z.number().int().min(1).default(60000),
  quarantine_enabled: z.boolean().default(true),
  allow_agent_server_changes: z.boolean().default(false),
  /** how long a call waits for the user's confirmation; a server's own confirm_timeout_s wins */
  confirm_timeout_s: ConfirmTimeoutSchema.default(CONFIRM_TIMEOUT_DEFAULT_S),
  agents: z.array(AgentSchema).default([]),
  /** retrieve_tools: `learn` = lift tools agents called after similar searches (docs/retrieval.md) */
  search: z.object({ learn: z.boolean().default(false) }).default({ learn: false }),
  limits: z
    .object({
      max_tools_per_server: z.number().int().min(1).default(1000),
      max_description_chars: z.number().int().min(1).default(8000),
      max_title_chars: z.number().int().min(1).default(256),
      max_annotations_bytes: z.number().int().min(64).default(4096),
      max_result_bytes: z
        .number()
        .int()
        .min(1024)
        .default(4 * 1024 * 1024),
      /** an MCP session with no request for this long is closed */
      session_idle_s: z.number().int().min(1).default(1800),
      /** open MCP sessions per credential (admin key, or agent) */
      max_sessions_per_principal: z.number().int().min(1).default(64),
    })
    .default({
      max_tools_per_server: 1000,
      max_description_chars: 8000,
      max_title_chars: 256,
      max_annotations_bytes: 4096,
      max_result_bytes: 4 * 1024 * 1024,
      session_idle_s: 1800,
      max_sessions_per_principal: 64,
    }),
  activity: ActivityConfigSchema.default({ retention_days: 30, max_mb: 50, record_args: true }),
  /** seconds without use before an on-demand server is stopped (0 = never); absent = DEFAULT_IDLE_STOP_S */
  idle_stop_s: IdleStopSchema.optional(),
})

/** mcpServers as an array of entries with `name` (mcpproxy style). */
export const ArrayConfigSchema = ConfigBase.extend({ mcpServers: z.array(ServerEntrySchema) })
/** mcpServers as an object keyed by name (Claude Desktop style). */
export const ObjectConfigSchema = ConfigBase.extend({ mcpServers: z.record(z.string(), KeyedServerSchema).default({}) })
export const ConfigFileSchema = z.union([ArrayConfigSchema, ObjectConfigSchema])

/** Top-level keys the schema knows (others are ignored with a warning). */
export const KNOWN_TOP_KEYS = ['mcpServers', ...Object.keys(ConfigBase.shape)]
export const KNOWN_SERVER_KEYS = ['name', ...Object.keys(serverFields)]

export type ConfigFile = z.infer<typeof ConfigFileSchema>
export type ServerConfigInput = z.input<typeof ServerEntrySchema>

/**
 * A validated server entry with its name always set. `organisation`: what the organisation's
 * machine-wide policy sets on it (src/shared/policy.ts); only on the effective config the core
 * applies, never read from or written to mcp_config.json.
 */
export type ServerConfig = z.infer<typeof ServerBody> & { name: string; organisation?: OrganisationLocks }

/** A server entry left out of the running config because it has a mistake (`toolgate stdio` starts anyway: docs/config.md). */
export interface SkippedServer {
  /** the entry's name (its key, or its "name" in the array style; `mcpServers[i]` when it has none) */
  name: string
  /** the JSON path of the mistake, e.g. $.mcpServers.memory.disable_tools */
  path: string
  /** what is wrong, with "did you mean" when a key is a near miss */
  problem: string
  /** as written: "stdio" for a command, "http" for a url (else its "protocol") */
  protocol: string
  /** as written: false only for "enabled": false */
  enabled: boolean
}

/** The normalized config the core works with. */
export interface Config extends Omit<ConfigFile, 'mcpServers'> {
  /** keys that were ignored because the schema does not know them (likely typos) */
  warnings: string[]
  /** what looks wrong but does not stop the config, one sentence each with its JSON path ("did you mean …?") */
  notes: string[]
  /** server entries left out because of a mistake inside them (only a lenient load skips; a strict one throws) */
  skipped: SkippedServer[]
  servers: ServerConfig[]
  /** "array" or "object": how mcpServers was written, so writes keep the operator's style. */
  style: 'array' | 'object'
  /** the organisation's machine-wide policy when one applies (the effective config only) */
  organisation?: OrganisationPolicy
}
