// The six lock statuses of docs/contract.md §3, in precedence order (first match wins), and the
// remediation sentence for each. Every surface (discovery, call rejection, server counts,
// control API, UI) takes its wording from here, so a config lock is described the same way
// everywhere and never as something the user can toggle.

export const LOCK_STATUSES = [
  'server_disabled',
  'disabled_by_config',
  'server_quarantined',
  'disabled_by_user',
  'pending_approval',
  'disabled_unknown',
] as const

export type LockStatus = (typeof LOCK_STATUSES)[number]
export type ToolStatus = 'callable' | LockStatus

export function isLockStatus(s: string): s is LockStatus {
  return (LOCK_STATUSES as readonly string[]).includes(s)
}

/** Statuses whose tool text is untrusted: matched by name only, returned without description. */
export const NAME_ONLY_STATUSES: ReadonlySet<LockStatus> = new Set<LockStatus>(['server_quarantined', 'pending_approval', 'disabled_unknown'])

export const REMEDIATION: Readonly<Record<LockStatus, string>> = {
  server_disabled:
    "The server is switched off; ask the user to enable the server first in the Toolgate window or tray (`toolgate servers enable NAME`), or call request_access with this tool's name and your reason so the user can allow it in one click.",
  disabled_by_config:
    'Blocked by operator policy in mcp_config.json (enabled_tools/disabled_tools); this is NOT user-overridable, so ask the operator who manages the Toolgate config to change the policy.',
  server_quarantined:
    "The server is in quarantine awaiting review; ask the user to review and approve the server in the Toolgate window (or `toolgate servers approve NAME`), or call request_access with this tool's name and your reason so the user can review and allow it.",
  disabled_by_user:
    "The user switched this tool off; ask the user to re-enable it in the Toolgate window or tray (or `toolgate tools enable SERVER:TOOL`), or call request_access with this tool's name and your reason so the user can allow it in one click.",
  pending_approval:
    "The tool is new or its definition changed since it was approved; ask the user to review and approve it in the Toolgate window (or `toolgate tools approve SERVER:TOOL`), or call request_access with this tool's name and your reason so the user can review and allow it.",
  disabled_unknown:
    "Toolgate could not determine whether this tool may run (its state is unreadable or indeterminate), so it stays locked; ask the user to check the Toolgate logs and review the tool in the Toolgate window, or call request_access with this tool's name and your reason.",
}

/** server_quarantined when the operator holds the server ("quarantined": true): nobody can approve it from Toolgate. */
export const OPERATOR_HOLD_REMEDIATION =
  'The operator holds this server in quarantine ("quarantined": true in mcp_config.json); this is NOT something the user can approve in Toolgate, so ask the operator who manages the Toolgate config to release it.'

/**
 * The statuses the organisation's machine-wide policy can decide, each with its
 * sentence: set by your organisation, so neither the user, nor mcp_config.json, nor an agent can
 * change it.
 */
export const ORGANISATION_REMEDIATION: Readonly<Partial<Record<LockStatus, string>>> = {
  server_disabled:
    "The server is blocked by your organisation's policy (set by your organisation: its command or URL is not allowed there); this is NOT user-overridable and not in mcp_config.json, so ask your organisation's administrators.",
  disabled_by_config:
    "Blocked by your organisation's policy (set by your organisation, in its machine-wide policy.json); this is NOT user-overridable and not in mcp_config.json, so ask your organisation's administrators to change the policy.",
  server_quarantined:
    "Your organisation's policy holds this server in quarantine (set by your organisation); this is NOT something the user can approve in Toolgate, so ask your organisation's administrators to release it.",
}

/** The remediation sentence for a status; an operator hold and the organisation's locks have their own. */
export function remediationFor(status: LockStatus, operatorHold = false, organisation = false): string {
  if (organisation) return ORGANISATION_REMEDIATION[status] ?? REMEDIATION[status]
  return status === 'server_quarantined' && operatorHold ? OPERATOR_HOLD_REMEDIATION : REMEDIATION[status]
}

export const DISCOVERY_HINT = 'Run retrieve_tools with include_disabled:true to see locked capabilities and remediation.'

/** The text of a call rejected because the tool is locked (docs/contract.md §3 "Calling a locked tool"). */
export function blockedMessage(status: LockStatus, operatorHold = false, organisation = false): string {
  return `TOOL_BLOCKED (${status}): ${remediationFor(status, operatorHold, organisation)} ${DISCOVERY_HINT}`
}

/** Short human labels for badges in the UI. */
export const STATUS_LABEL: Readonly<Record<ToolStatus, string>> = {
  callable: 'callable',
  server_disabled: 'server off',
  disabled_by_config: 'locked by config',
  server_quarantined: 'quarantined',
  disabled_by_user: 'disabled by you',
  pending_approval: 'pending approval',
  disabled_unknown: 'unknown state',
}

export const SERVER_STATES = ['connected', 'connecting', 'stopped', 'error', 'quarantined', 'disabled', 'needs_auth'] as const
export type ServerState = (typeof SERVER_STATES)[number]

/** What an agent gets when it calls a tool of a server in needs_auth (docs/contract.md §7): one sentence, for the user. */
export function signInMessage(server: string): string {
  return `Server "${server}" needs the user to sign in in Toolgate: ask the user to click Sign in on ${server} in the Toolgate window (or run \`toolgate auth login ${server}\`).`
}
