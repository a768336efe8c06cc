// The prompts of one server (docs/passthrough.md), those that wait for the user first, each with the same
// badges and review as a tool: status, what changed since approval (title, description,
// arguments, the text it gives without arguments), Reject beside Approve, Disable / Re-enable.
// Rows carry data-prompt="server:prompt" and data-status. Upstream text: text nodes only.
import { useId, useMemo } from 'react'
import type { ServerInfo } from '../../shared/api'
import type { PromptAction, PromptInfo } from '../../shared/prompts'
import { promptChange, argumentLines } from '../../shared/prompt-diff'
import { escapedName } from '../../shared/tool-name'
import { PROMPT_ACTION_OPTIONS, takesOption } from '../../shared/actions'
import { useApp } from '../store/context'
import { promptKey } from '../store/prompts'
import { Badge, NameWarningBadge, reviewLabel, StatusBadge } from './Badge'
import { FieldDiff } from './DiffText'
import { LongText } from './LongText'
import { LockIcon } from './icons'
import { Visible } from './Visible'
import { ServerListSection } from './ServerListSection'

function PromptButton({ p, action, label, primary, nameId }: { p: PromptInfo; action: PromptAction; label: string; primary?: boolean; nameId: string }) {
  const busy = useApp((s) => Boolean(s.busy[promptKey(p.server, p.prompt, action)]))
  const run = useApp((s) => s.promptAction)
  const bound = takesOption(PROMPT_ACTION_OPTIONS, action, 'hash')
  return (
    <button
      type="button"
      className={primary ? 'btn btn--primary btn--small' : 'btn btn--small'}
      disabled={busy}
      aria-busy={busy || undefined}
      aria-describedby={nameId}
      // approve and reject decide on exactly the definition shown (refused if it changed meanwhile)
      onClick={() => void run(p.server, p.prompt, action, bound ? { hash: p.approval.hash } : undefined)}
    >
      {label}
    </button>
  )
}

function Actions({ p, nameId }: { p: PromptInfo; nameId: string }) {
  switch (p.status) {
    case 'callable':
      return <PromptButton p={p} action="disable" label="Disable" nameId={nameId} />
    case 'disabled_by_user':
      return <PromptButton p={p} action="enable" label="Re-enable" primary nameId={nameId} />
    case 'pending_approval':
      return (
        <>
          <PromptButton p={p} action="reject" label="Reject" nameId={nameId} />
          <PromptButton p={p} action="approve" label="Approve" primary nameId={nameId} />
        </>
      )
    default:
      return null
  }
}

/** A prompt under review: what changed (or, new, all it offers). Agents read a prompt as instructions. */
function PromptReview({ p }: { p: PromptInfo }) {
  const change = useMemo(() => promptChange(p), [p])
  if (p.approval.status !== 'changed') {
    return (
      <div className="diffs" data-review="new">
        {p.title && (
          <p className="small">
            <span className="diff-label">Title</span> <Visible text={p.title} />
          </p>
        )}
        {p.description ? (
          <p className="tool-desc tool-desc--review">
            <Visible text={p.description} />
          </p>
        ) : (
          <p className="muted small">(no description)</p>
        )}
        {p.arguments.length > 0 && (
          <pre className="small" data-diff="arguments">
            <Visible text={argumentLines(p.arguments)} />
          </pre>
        )}
        {p.text !== undefined && (
          <div className="small">
            <span className="diff-label">Text it gives without arguments</span>
            <pre>
              <Visible text={p.text} />
            </pre>
          </div>
        )}
      </div>
    )
  }
  return (
    <div className="diffs" data-review="changed">
      {change.description && <FieldDiff label="description" diff={change.description} />}
      {change.title && <FieldDiff label="title" diff={change.title} />}
      {change.arguments && <FieldDiff label="arguments" diff={change.arguments} code />}
      {change.text && <FieldDiff label="text" diff={change.text} code />}
      {!change.description && !change.title && !change.arguments && !change.text && (
        <p className="muted small">Nothing shown changed: the text it gives without arguments changed beyond what can be shown here.</p>
      )}
      <p className="diff-legend small">Marked text was added by the server. Agents read a prompt as instructions: approve only what you would ask for.</p>
    </div>
  )
}

function PromptRow({ p }: { p: PromptInfo }) {
  const nameId = useId()
  const label = reviewLabel(p.status, p.approval)
  return (
    <li className={`tool tool--${p.status}`} data-prompt={p.name} data-status={p.status}>
      <div className="tool-main">
        <div className="tool-title">
          <span className="tool-name" id={nameId}>
            {p.name_warning ? escapedName(p.prompt) : p.prompt}
          </span>
          {p.name_warning && <NameWarningBadge warning={p.name_warning} />}
          {p.status !== 'server_disabled' && p.status !== 'server_quarantined' && <StatusBadge status={p.status} label={label} />}
          <Badge tone="muted" title="The name agents see in prompts/list (a slash command in some clients)">
            /{p.agent_name}
          </Badge>
        </div>
        {/* a quarantined server's: what its Inspect listed, approved with the server */}
        {p.status === 'pending_approval' || p.status === 'server_quarantined' ? (
          <PromptReview p={p} />
        ) : (
          p.description && <LongText text={p.description} className="tool-desc" />
        )}
        {p.status === 'disabled_by_config' && (
          <p className="lock-note">
            <LockIcon />
            <span>
              Locked by operator policy in mcp_config.json (<code>enabled_prompts</code> / <code>disabled_prompts</code>). Only whoever manages the config can
              change it.
            </span>
          </p>
        )}
      </div>
      <div className="tool-actions">
        <Actions p={p} nameId={nameId} />
      </div>
    </li>
  )
}

/** The server's prompts; nothing at all when it offers none. */
export function PromptList({ server }: { server: ServerInfo }) {
  const prompts = useApp((s) => s.prompts[server.name])
  const error = useApp((s) => s.promptErrors[server.name])
  const ordered = prompts ? [...prompts.filter((p) => p.status === 'pending_approval'), ...prompts.filter((p) => p.status !== 'pending_approval')] : []
  return (
    <ServerListSection server={server.name} title="Prompts" className="prompts" error={error} loaded={prompts !== undefined} empty={ordered.length === 0}>
      {ordered.map((p) => (
        <PromptRow key={p.name} p={p} />
      ))}
    </ServerListSection>
  )
}
