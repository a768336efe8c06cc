// A status badge: one look per status, the same wording everywhere (STATUS_LABEL); the review wording of a tool's or
// prompt's badge, and the badge of a deceptive name.
import type { ReactNode } from 'react'
import { STATUS_LABEL, type ToolStatus } from '../../shared/statuses'
import { AlertIcon, CheckIcon, ClockIcon, LockIcon, PowerIcon, ShieldIcon } from './icons'

export type Tone = 'ok' | 'muted' | 'lock' | 'warn' | 'attention' | 'danger' | 'info'

export const STATUS_TONE: Record<ToolStatus, Tone> = {
  callable: 'ok',
  server_disabled: 'muted',
  disabled_by_config: 'lock',
  server_quarantined: 'warn',
  disabled_by_user: 'muted',
  pending_approval: 'attention',
  disabled_unknown: 'danger',
}

const STATUS_ICON: Record<ToolStatus, () => ReactNode> = {
  callable: CheckIcon,
  server_disabled: PowerIcon,
  disabled_by_config: LockIcon,
  server_quarantined: ShieldIcon,
  disabled_by_user: PowerIcon,
  pending_approval: ClockIcon,
  disabled_unknown: AlertIcon,
}

export function Badge({ tone, icon, children, title }: { tone: Tone; icon?: ReactNode; children: ReactNode; title?: string }) {
  return (
    <span className={`badge badge--${tone}`} title={title}>
      {icon}
      {children}
    </span>
  )
}

export function StatusBadge({ status, label }: { status: ToolStatus; label?: string }) {
  const Icon = STATUS_ICON[status]
  return (
    <Badge tone={STATUS_TONE[status]} icon={<Icon />}>
      {label ?? STATUS_LABEL[status]}
    </Badge>
  )
}

/** What the status badge of a tool or prompt says when it waits for review or was rejected; undefined: its status's own label. */
export function reviewLabel(status: ToolStatus, approval: { status: string; rejected_at?: string }): string | undefined {
  if (status === 'pending_approval') return approval.status === 'changed' ? 'changed — review' : 'new — review'
  return approval.rejected_at ? 'rejected' : undefined
}

/** The badge beside a name that hides characters (the name is shown escaped): on a tool, a prompt and a confirmation alike. */
export function NameWarningBadge({ warning }: { warning: string }) {
  return (
    <Badge tone="danger" title={`Deceptive name: ${warning}`}>
      <span data-name-warning="true">deceptive name</span>
    </Badge>
  )
}
