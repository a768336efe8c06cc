// The one classifier (docs/contract.md §3 rule 2): a tool's status is a pure function of its facts
// (derived in facts.ts). Discovery, call enforcement, server counts, the control API and the UI
// all use this.
import type { ToolStatus } from '../../../shared/statuses'

export type Approval = 'approved' | 'pending' | 'changed' | 'unknown'

export interface ToolFacts {
  readonly serverEnabled: boolean
  readonly configDenied: boolean
  readonly serverQuarantined: boolean
  readonly userDisabled: boolean
  readonly approval: Approval
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
