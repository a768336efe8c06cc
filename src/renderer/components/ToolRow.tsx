// One tool: its status badge, its call variant (and, without annotations, its classification), and
// only the action that fits (docs/contract.md §6 markers).
import { useId } from 'react'
import type { ToolInfo } from '../../shared/api'
import { type ToolAction, takesOption, TOOL_ACTION_OPTIONS } from '../../shared/actions'
import { useApp } from '../store/context'
import { busyKey } from '../store/store'
import { Badge, NameWarningBadge, reviewLabel, StatusBadge } from './Badge'
import { ToolDescription, ToolReview } from './ToolReview'
import { LockIcon } from './icons'
import { escapedName } from '../../shared/tool-name'
import { GrantLeft } from './GrantLeft'
import { TimedMenu } from './TimedMenu'
import { ToolAskSwitch } from './AskSwitch'
import { ToolClass } from './ToolClass'
import { NO_ANNOTATIONS_TEXT } from '../../shared/call-variant'

function ToolButton({ tool, action, label, primary, nameId }: { tool: ToolInfo; action: ToolAction; label: string; primary?: boolean; nameId: string }) {
  const busy = useApp((s) => Boolean(s.busy[busyKey('tool', tool.server, tool.tool, action)]))
  const run = useApp((s) => s.toolAction)
  return (
    <button
      type="button"
      className={primary ? 'btn btn--primary btn--small' : 'btn btn--small'}
      disabled={busy}
      aria-busy={busy || undefined}
      aria-describedby={nameId}
      // approve and reject decide on exactly the definition shown here (refused if it changed meanwhile)
      onClick={() => void run(tool.server, tool.tool, action, takesOption(TOOL_ACTION_OPTIONS, action, 'hash') ? { hash: tool.approval.hash } : undefined)}
    >
      {label}
    </button>
  )
}

/** The same act for a time: the menu beside Re-enable and Approve. */
function ForATime({ tool, action, label }: { tool: ToolInfo; action: ToolAction; label: string }) {
  const busy = useApp((s) => Boolean(s.busy[busyKey('tool', tool.server, tool.tool, action)]))
  const run = useApp((s) => s.toolAction)
  return <TimedMenu small label={`${label} ${tool.tool} for a time`} disabled={busy} onPick={(f) => void run(tool.server, tool.tool, action, { for: f })} />
}

function Action({ tool, nameId }: { tool: ToolInfo; nameId: string }) {
  switch (tool.status) {
    case 'callable':
      return <ToolButton tool={tool} action="disable" label="Disable" nameId={nameId} />
    case 'disabled_by_user':
      return (
        <>
          <ToolButton tool={tool} action="enable" label="Re-enable" primary nameId={nameId} />
          <ForATime tool={tool} action="enable" label="Re-enable" />
        </>
      )
    case 'pending_approval':
      // the safe choice next to the risky one: Reject keeps it off as the user's decision
      return (
        <>
          <ToolButton tool={tool} action="reject" label="Reject" nameId={nameId} />
          <ToolButton tool={tool} action="approve" label="Approve" primary nameId={nameId} />
          <ForATime tool={tool} action="approve" label="Approve" />
        </>
      )
    default:
      // config locks are operator policy; server-level locks are lifted on the server
      return null
  }
}

/** What the user should know about a lock they cannot lift on the tool itself. */
function LockNote({ tool }: { tool: ToolInfo }) {
  switch (tool.status) {
    case 'disabled_by_config':
      if (tool.policy === 'organisation') {
        return (
          <p className="lock-note" data-policy="organisation">
            <LockIcon />
            <span>
              Locked: set by your organisation (its machine-wide policy). Neither Toolgate, nor mcp_config.json, nor an agent can change it; ask your
              organisation&apos;s administrators.
            </span>
          </p>
        )
      }
      return (
        <p className="lock-note">
          <LockIcon />
          <span>
            Locked by operator policy in mcp_config.json (<code>enabled_tools</code> / <code>disabled_tools</code>). This is not a switch in Toolgate; only
            whoever manages the config can change it.
          </span>
        </p>
      )
    // server_disabled / server_quarantined: the server's own notice says what to do, once
    case 'disabled_by_user':
      return tool.approval.rejected_at ? (
        <p className="muted small" data-rejected="true">
          You rejected this definition. It stays off and does not ask again; if the server changes it again, it waits for your review. Re-enable puts it back up
          for review.
        </p>
      ) : null
    case 'disabled_unknown':
      return <p className="muted small">{tool.remediation ?? 'Toolgate could not determine whether this tool may run; check the logs.'}</p>
    default:
      return null
  }
}

const VARIANT_TONE = { call_tool_read: 'muted', call_tool_write: 'info', call_tool_destructive: 'danger' } as const

/** The call variant agents need; a tool without annotations says so ("no annotations: treated as destructive"), or who classified it. */
function VariantBadge({ tool }: { tool: ToolInfo }) {
  const variant = tool.call_with.replace('call_tool_', '')
  const c = tool.classification
  const text =
    tool.variant_source === 'no_annotations'
      ? NO_ANNOTATIONS_TEXT
      : tool.annotations_missing && c && (tool.variant_source === 'user' || tool.variant_source === 'operator' || tool.variant_source === 'organisation')
        ? `${variant} (classified by ${c.by === 'user' ? 'you' : c.by === 'organisation' ? 'your organisation' : 'the operator'})`
        : variant
  return (
    <span data-variant={variant} data-annotations-missing={tool.annotations_missing ? 'true' : undefined}>
      <Badge tone={VARIANT_TONE[tool.call_with] ?? 'muted'} title={`Agents call it with ${tool.call_with}`}>
        {text}
      </Badge>
    </span>
  )
}

export function ToolRow({ tool }: { tool: ToolInfo }) {
  const nameId = useId()
  const label = reviewLabel(tool.status, tool.approval)
  return (
    <li className={`tool tool--${tool.status}`} data-tool={tool.name} data-status={tool.status}>
      <div className="tool-main">
        <div className="tool-title">
          <span className="tool-name" id={nameId}>
            {tool.name_warning ? escapedName(tool.tool) : tool.tool}
          </span>
          {tool.name_warning && <NameWarningBadge warning={tool.name_warning} />}
          {/* a lock on the whole server is said once, on the server: not again on each of its tools */}
          {tool.status !== 'server_disabled' && tool.status !== 'server_quarantined' && (
            <StatusBadge status={tool.status} label={tool.policy === 'organisation' ? 'set by your organisation' : label} />
          )}
          <VariantBadge tool={tool} />
          {tool.grant && <GrantLeft grant={tool.grant} />}
        </div>
        {tool.status === 'pending_approval' ? <ToolReview tool={tool} /> : tool.description && <ToolDescription text={tool.description} />}
        {tool.status !== 'disabled_by_config' && <ToolClass tool={tool} nameId={nameId} />}
        <LockNote tool={tool} />
        {tool.status !== 'disabled_by_config' && <ToolAskSwitch tool={tool} />}
      </div>
      <div className="tool-actions">
        <Action tool={tool} nameId={nameId} />
      </div>
    </li>
  )
}
