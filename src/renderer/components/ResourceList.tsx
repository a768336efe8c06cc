// The resources of one server (docs/passthrough.md): what it offers agents to read, each with its own URI
// and the URI agents see (it names the server, so it reads back through Toolgate), and its
// resource templates, approved like prompts: a new or changed one shows every field agents would
// read, annotations and _meta too (and for a changed one what was approved) with Reject beside Approve. Rows of templates carry
// data-resource-template and data-status. Upstream text: text nodes only.
import { useId, useMemo } from 'react'
import type { ServerInfo } from '../../shared/api'
import type { ResourceTemplateEntry, TemplateAction } from '../../shared/resources'
import { useApp } from '../store/context'
import { templateKey } from '../store/resources'
import { templateChange } from '../../shared/template-diff'
import { reviewLabel, StatusBadge } from './Badge'
import { FieldDiff } from './DiffText'
import { Visible } from './Visible'
import { ServerListSection } from './ServerListSection'

function TemplateButton({
  server,
  t,
  action,
  label,
  primary,
  nameId,
}: {
  server: string
  t: ResourceTemplateEntry
  action: TemplateAction
  label: string
  primary?: boolean
  nameId: string
}) {
  const busy = useApp((s) => Boolean(s.busy[templateKey(server, t.uriTemplate, action)]))
  const run = useApp((s) => s.templateAction)
  const hash = t.approval?.hash
  if (hash === undefined) return null
  return (
    <button
      type="button"
      className={primary ? 'btn btn--primary btn--small' : 'btn btn--small'}
      disabled={busy}
      aria-busy={busy || undefined}
      aria-describedby={nameId}
      // decides on exactly the definition shown (refused if it changed meanwhile)
      onClick={() => void run(server, action, t.uriTemplate, hash)}
    >
      {label}
    </button>
  )
}

/**
 * A template under review: every field its approval hash covers (shared/template-diff.ts), so a
 * change to its annotations or `_meta` alone is shown too: a new one's fields, a changed one's
 * changed fields as previous / new.
 */
function TemplateReview({ t }: { t: ResourceTemplateEntry }) {
  const changes = useMemo(() => templateChange(t), [t])
  const changed = t.approval?.previous !== undefined
  return (
    <div className="diffs" data-review={changed ? 'changed' : 'new'}>
      {changed
        ? changes.map((c) => <FieldDiff key={c.field} label={c.label} diff={c.diff} code={c.code} />)
        : changes.map((c) => {
            const Block = c.code ? 'pre' : 'p'
            return (
              <div key={c.field} className="small" data-diff={c.label}>
                <span className="diff-label">{c.label}</span>
                <Block className={c.field === 'description' ? 'tool-desc tool-desc--review' : undefined}>
                  <Visible text={c.after} />
                </Block>
              </div>
            )
          })}
      {changed && changes.length === 0 && <p className="muted small">Nothing shown changed.</p>}
      <p className="diff-legend small">
        {changed ? 'Marked text was added by the server. ' : ''}Agents read a template&apos;s name, description, annotations and _meta as they decide what to
        do: approve only text you would give them.
      </p>
    </div>
  )
}

function TemplateRow({ server, t }: { server: string; t: ResourceTemplateEntry }) {
  const nameId = useId()
  const status = t.status ?? 'callable'
  const label = t.approval ? reviewLabel(status, t.approval) : undefined
  return (
    <li className={`tool tool--${status}`} data-resource-template={t.agent_uri_template} data-status={status}>
      <div className="tool-main">
        <div className="tool-title">
          <span className="tool-name" id={nameId}>
            <Visible text={t.title ?? t.name} />
          </span>
          <span className="muted small">template</span>
          {status !== 'callable' && status !== 'server_disabled' && status !== 'server_quarantined' && <StatusBadge status={status} label={label} />}
        </div>
        {/* a quarantined server's: what its Inspect listed, approved with the server */}
        {(status === 'pending_approval' || status === 'server_quarantined') && <TemplateReview t={t} />}
        <p className="small muted resource-uris">
          <code>
            <Visible text={t.uriTemplate} />
          </code>{' '}
          → agents read{' '}
          <code>
            <Visible text={t.agent_uri_template} />
          </code>
        </p>
      </div>
      {(status === 'pending_approval' || status === 'disabled_by_user') && (
        <div className="tool-actions">
          {status === 'pending_approval' && <TemplateButton server={server} t={t} action="reject" label="Reject" nameId={nameId} />}
          <TemplateButton server={server} t={t} action="approve" label="Approve" primary nameId={nameId} />
        </div>
      )}
    </li>
  )
}

export function ResourceList({ server }: { server: ServerInfo }) {
  const info = useApp((s) => s.resources[server.name])
  const error = useApp((s) => s.resourceErrors[server.name])
  return (
    <ServerListSection
      server={server.name}
      title="Resources"
      className="resources"
      error={error}
      loaded={info !== undefined}
      empty={!info || (info.resources.length === 0 && info.templates.length === 0)}
    >
      {info?.resources.map((r) => (
        <li key={r.uri} className="tool" data-resource={r.agent_uri}>
          <div className="tool-main">
            <div className="tool-title">
              <span className="tool-name">
                <Visible text={r.title ?? r.name} />
              </span>
              {r.mimeType && <span className="muted small">{r.mimeType}</span>}
            </div>
            {r.description && (
              <p className="tool-desc small">
                <Visible text={r.description} />
              </p>
            )}
            <p className="small muted resource-uris">
              <code title="The server's own URI">
                <Visible text={r.uri} />
              </code>{' '}
              → agents read{' '}
              <code title="The URI agents see">
                <Visible text={r.agent_uri} />
              </code>
            </p>
          </div>
        </li>
      ))}
      {info?.templates.map((t) => (
        <TemplateRow key={t.uriTemplate} server={server.name} t={t} />
      ))}
    </ServerListSection>
  )
}
