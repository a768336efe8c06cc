// The remediation sentences an agent and the user must read for each lock status, written out
// here (not imported from src/shared/statuses.ts), so a test fails when the product's wording changes.
export const EXPECTED_REMEDIATION = {
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
} as const
