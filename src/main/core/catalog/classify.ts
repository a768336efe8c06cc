// The one classifier (CONTRACT.md §3 rule 2): a tool's status is a pure function of its facts.
// Discovery, call enforcement, server counts, the control API and the UI all use this.
import type { ToolStatus } from '../../../shared/statuses'

export type Approval = 'approved' | 'pending' | 'changed' | 'unknown'

export interface ToolFacts {
  serverEnabled: boolean
  configDenied: boolean
  serverQuarantined: boolean
  userDisabled: boolean
  approval: Approval
}

export function classify(f: ToolFacts): ToolStatus {
  if (!f.serverEnabled) return 'server_disabled'
  if (f.configDenied) return 'disabled_by_config'
  if (f.serverQuarantined) return 'server_quarantined'
  if (f.userDisabled) return 'disabled_by_user'
  if (f.approval === 'pending' || f.approval === 'changed') return 'pending_approval'
  if (f.approval !== 'approved') return 'disabled_unknown'
  return 'callable'
}

/** Config allow/deny lists (exact names). */
export function configDenies(tool: string, lists: { enabled_tools?: string[]; disabled_tools?: string[] }): boolean {
  if (lists.enabled_tools && !lists.enabled_tools.includes(tool)) return true
  if (lists.disabled_tools && lists.disabled_tools.includes(tool)) return true
  return false
}
