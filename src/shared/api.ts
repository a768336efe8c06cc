// The types of the control API: what its operations take and answer (the operations themselves
// and the `Api` they make are in operations.ts; the actions and their options in actions.ts, a
// server entry in server-entry.ts, a sign-in in auth-status.ts), its events and its error. The renderer talks to
// the core through it only, over HTTP (web UI) or the preload bridge (Electron).
import type { Lifecycle } from './lifecycle'
import type { LockStatus, ServerState, ToolStatus } from './statuses'
import type { CallWith, Classification, ToolAnnotations, VariantSource } from './call-variant'
import type { ServerLaunch } from './launch'
import type { AccessRequest } from './requests'
import type { Confirmation, ConfirmLevel, ConfirmRequirement } from './confirmations'
import type { ServerAuthSummary } from './auth-status'

/** `{callable, <status>: n}`; zero-valued statuses omitted, `callable` always present. */
export type StatusCounts = { callable: number } & Partial<Record<LockStatus, number>>

/** Why a server is quarantined: the config (operator hold), the organisation's policy (a hold nobody in Toolgate can release), the user, or review. */
export type QuarantineSource = 'config' | 'organisation' | 'user' | 'review'

/** What an isolated stdio server may touch beyond the read-only filesystem (docs/isolation.md). */
export interface SandboxProfileInfo {
  /** its network: true = outbound connections, false = none, a list = only those hosts (through Toolgate's egress proxy); never the host's loopback (see `loopback`) */
  network: boolean | string[]
  /** host loopback ports it may connect to (`sandbox.loopback`) */
  loopback: number[]
  /** paths granted for reading that the default profile hides or that are not on the filesystem view */
  fs_read: string[]
  /** paths it may write: its private temp dir, the launchers' package caches, its cwd, granted folders */
  fs_write: string[]
}

/** How a server is isolated from the rest of the machine (docs/contract.md §7: `data-isolated`). */
export interface IsolationInfo {
  isolated: boolean
  /** the sandbox in use when isolated */
  mechanism?: 'bwrap' | 'sandbox-exec'
  /** why it is not isolated (opt-out, platform without a sandbox, HTTP server) */
  reason?: string
  /** true when not being isolated is a risk to show (a local process with the user's full rights) */
  risk?: boolean
  /** the permissions it runs with (or would, where the platform has no sandbox); null for HTTP and `sandbox: false` */
  profile: SandboxProfileInfo | null
  /** isolated, but it shares the host's network (loopback included), and why (Linux without pasta) */
  network_risk?: string
  /**
   * Linux: it may write your home (a grant of ~ or above), so its hidden entries are covered as
   * they were at its start: one made while it runs is visible to it until it restarts
   */
  home_writable?: true
}

/** A time-boxed grant running on a server or tool: when it ends and what comes back then. */
export interface TimedGrantInfo {
  id: string
  /** ISO time of the end */
  until: string
  /** what the end brings back, in words ("switched off again", "back in quarantine") */
  then: string
}

/** A server's confirmation settings: the config's `confirm`/`confirm_tools` (operator policy) and the user's switch. */
export interface ServerConfirmInfo {
  config: ConfirmLevel
  config_tools: string[]
  /** the user's "Ask me before each call" on the whole server */
  user: boolean
  /** how long a call waits for the answer */
  timeout_s: number
}

export interface ServerInfo {
  name: string
  protocol: string
  /**
   * The MCP protocol version the server agreed to when it last connected: "2026-07-28" (the
   * stateless era) or a 2025 one ("2025-11-25", "2025-06-18", "2025-03-26", …); null before it
   * ever connected in this run.
   */
  protocol_version: string | null
  enabled: boolean
  quarantined: boolean
  /** Why it is quarantined: config (operator hold), user (put back by the user), review (never approved). */
  quarantine_source?: QuarantineSource
  state: ServerState
  last_error: string | null
  counts: StatusCounts
  /** the same counts over the server's prompts, all statuses present; `callable` = offered to agents */
  prompt_counts?: StatusCounts
  /** the server's resource templates by status (new or changed ones wait for approval like prompts); absent until it listed them */
  template_counts?: StatusCounts
  trust: 'manual' | 'auto'
  /** command line or URL, secrets masked; env never part of it (logs use it) */
  target: string
  /** the full launch for review: command, every argument, cwd, env keys, URL, header names (secrets masked) */
  launch: ServerLaunch
  /**
   * The review token of this launch: it changes whenever the command, an argument, cwd, an env
   * value (secrets included), the URL, a header or the isolation (`sandbox`) changes. Send it back as `hash` when approving the server
   * (or granting a request that approves it): if the launch changed since, nothing is approved
   * (409 launch_changed). Keyed by the data dir (HMAC), it tells nothing about env values.
   */
  launch_hash: string
  /** true when a config lock list (enabled_tools/disabled_tools) applies */
  config_policy: boolean
  isolation: IsolationInfo
  /** switched on or approved for a time */
  grant?: TimedGrantInfo
  /** present once the server is known to use OAuth sign-in */
  auth?: ServerAuthSummary
  /** confirmation of risky calls: the operator's rule and the user's own switch */
  confirm: ServerConfirmInfo
  /**
   * Set when an agent added the server (`upstream_servers add`): which agent (null: a session
   * without an agent, the admin key) and the client name its session gave (untrusted, made safe).
   */
  added_by?: { agent: string | null; client: string | null }
  /** present when the organisation's machine-wide policy locks something of this server */
  policy?: 'organisation'
  /** what it locks: the server keys it sets, and why the server may not run (it is then off for good) */
  organisation?: { fields: string[]; blocked?: string }
  /** when it runs: "on_demand" (starts at first use, stops after idle_stop_s) or "always" */
  lifecycle: Lifecycle
  /** seconds without use before it is stopped (0 = never; only on_demand servers stop) */
  idle_stop_s: number
  /** stopped now and started by the next use (docs/contract.md §8) */
  starts_on_demand?: true
  /** running unused: when it will be stopped unless used (ISO time) */
  idle_stop_at?: string
  /** the server itself listed its tools at some run; false: what is shown comes from an Inspect or the approvals, or nothing yet */
  has_run: boolean
  /**
   * A quarantined server's Inspect: what it waits for (`waits_for`, in words) and
   * for how long at most; `offline_failure`: the last Inspect failed for want of network, so
   * "Inspect with network" is offered (kept by the core: a reload of the window keeps the offer)
   */
  inspect?: { waits_for: string; timeout_s: number; offline_failure?: string }
}

export type ApprovalStatus = 'approved' | 'pending' | 'changed' | 'unknown'

/** The approved definition of a changed tool, for the approval view to compare field by field. */
export interface PreviousDefinition {
  title?: string
  description: string
  inputSchema: Record<string, unknown>
  outputSchema?: Record<string, unknown>
  annotations?: ToolAnnotations
  /** the call variant it needed as approved; a weaker one now is a risk ("destructive → read") */
  call_with: CallWith
}

export interface ToolInfo {
  name: string
  server: string
  tool: string
  /** set when the name does not read as what it is (invisible, bidi or mixed-script characters): show it escaped */
  name_warning?: string
  title?: string
  description?: string
  status: ToolStatus
  remediation?: string
  /** the lock deciding its status is the organisation's machine-wide policy: set by your organisation */
  policy?: 'organisation'
  call_with: CallWith
  annotations?: ToolAnnotations
  /** the tool gives neither readOnlyHint nor destructiveHint: call_with follows the MCP spec's defaults (destructive) unless it is classified */
  annotations_missing?: true
  /** where call_with comes from: the tool's own hints, the spec's defaults (no hints), or a classification by the operator or the user */
  variant_source: VariantSource
  /** the operator's (`tool_classes`) or the user's class for this definition, when there is one; a stricter hint of the server still wins */
  classification?: Classification
  inputSchema?: Record<string, unknown>
  outputSchema?: Record<string, unknown>
  approval: {
    status: ApprovalStatus
    hash: string
    previous_description?: string
    /** the whole approved definition when the tool changed since */
    previous?: PreviousDefinition
    /** when the user rejected exactly this definition (status disabled_by_user; it does not ask again until it changes) */
    rejected_at?: string
  }
  /** re-enabled or approved for a time */
  grant?: TimedGrantInfo
  /** set when calls of this tool wait for the user's OK: on whose word (the config's is locked) */
  confirm?: ConfirmRequirement
}

export interface StatusInfo {
  version: string
  uptime_s: number
  servers: { total: number; connected: number; quarantined: number; disabled: number; error: number }
  tools: StatusCounts & { total: number }
  pending_approvals: number
}

export interface Stats {
  include_disabled_calls: number
  locked_only_searches: number
  retrieve_calls: number
  tool_calls: number
  blocked_calls: number
  /** the queries that found only locked tools, most frequent first (the "agents keep asking for X" signal), with the locked tools they matched */
  locked_only_queries: Array<{ query: string; count: number; tools?: string[] }>
}

/** The exact config snippet that connects one MCP client to this Toolgate (same as `toolgate connect`). */
export interface ConnectSnippet {
  client: string
  label: string
  /** the client's config file on this machine */
  config_path: string
  /** pretty JSON to merge into that file */
  snippet: string
  /** the command that writes that snippet into the client's file: `--data-dir` named when not the default one */
  write_command: string
  /** the data dir is deleted when this Toolgate exits (the demo): the snippet stops working then */
  temporary?: boolean
}

/** What protects the secret store (docs/secrets.md); `warning` when it is only a key file. */
export interface SecretStoreInfo {
  backend: 'safe-storage' | 'keychain' | 'file' | 'none'
  protected_by: string
  /** the user's secrets in the store */
  count: number
  /** in plain words: no keyring, so a key file protects the store */
  warning: string | null
  /** why no keyring was usable, as the system said it (a D-Bus error, …): shown on request only */
  warning_detail?: string | null
  /** the store cannot be opened or read (names the file and what to do) */
  error: string | null
}

/** One secret by name: never its value. Referenced names that are not set are listed too (`set: false`). */
export interface SecretInfo {
  name: string
  set: boolean
  updated_at: string | null
  /** the servers whose config references it */
  used_by: string[]
}

export interface AppInfo {
  version: string
  config_path: string
  data_dir: string
  mcp_url: string | null
  config_error: string | null
  /** keys of the config file that Toolgate does not know and ignores ("$.mcpServers.x.colour") */
  config_warnings: string[]
  /** what looks wrong in the config but does not stop it, one sentence each with its JSON path and "did you mean" (docs/config.md) */
  config_notes?: string[]
  state_warning: string | null
  /** the organisation's machine-wide policy when one applies; `error`: it cannot be used, so no server runs */
  policy?: { file: string; error: string | null }
  connect?: ConnectSnippet[]
  secrets?: SecretStoreInfo
}

/** A configured agent (`agents` in the config) and how many tokens it holds. */
export interface AgentInfo {
  name: string
  servers: string[] | '*'
  permissions: Array<'read' | 'write' | 'destructive'>
  tokens: number
}

/** One agent token as the user sees it: never the token itself. */
export interface AgentTokenInfo {
  id: string
  created_at: string
  last_used_at: string | null
}

export interface ActionResult {
  ok: true
  message: string
}

/** Approve all's answer: `waiting` names the tools it left waiting (changed ones need their own review; ones not sent). */
export interface ApproveAllResult extends ActionResult {
  waiting: string[]
}

export interface RequestActionResult extends ActionResult {
  request: AccessRequest
}

export interface RemoveResult extends ActionResult {
  /** until when `restoreServer` brings it back with its approvals */
  undo_until: string
}

export interface ConfirmationActionResult extends ActionResult {
  confirmation: Confirmation
}

export interface SearchArgs {
  query: string
  limit?: number
  include_disabled?: boolean
}

export type { ApiEvent, ApiEventType } from './api-events'
// the Api is derived from the table of operations (operations.ts), which imports this file's values (ApiError, through search-query.ts):
// a type import and an alias keep the two files out of an import cycle
import type { Api as OperationsApi } from './operations'
export type Api = OperationsApi

/** Thrown by Api implementations; `status` is the HTTP status the control API answers with. */
export class ApiError extends Error {
  constructor(
    public readonly code: string,
    message: string,
    public readonly status: number = 400,
  ) {
    super(message)
    this.name = 'ApiError'
  }
}
