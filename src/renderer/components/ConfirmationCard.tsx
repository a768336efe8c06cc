// One call waiting for the user's OK (docs/confirmations.md): who calls, which tool (a deceptive name escaped
// and flagged), why it waits, the arguments as the agent sent them (escaped by the core; folded past
// ARGS_FOLD_CHARS behind "Show all"), the time left, and exactly two answers: Allow and Deny.
import { useId, useState } from 'react'
import { useNow } from '../lib/now'
import { ARGS_FOLD_CHARS, type Confirmation } from '../../shared/confirmations'
import { useApp } from '../store/context'
import { answerKey } from '../store/confirmations'
import { Badge, NameWarningBadge } from './Badge'
import { LockIcon } from './icons'
import { SamplingCard } from './SamplingCard'

const VARIANT_TONE = { read: 'muted', write: 'info', destructive: 'danger' } as const

function secondsLeft(expiresAt: string, now: number): number {
  return Math.max(0, Math.round((Date.parse(expiresAt) - now) / 1000))
}

export function ConfirmationCard({ c }: { c: Confirmation }) {
  if (c.kind === 'sampling' && c.sampling) return <SamplingCard c={c} sampling={c.sampling} />
  return <CallCard c={c} />
}

function CallCard({ c }: { c: Confirmation }) {
  const answer = useApp((s) => s.answerConfirmation)
  const busy = useApp((s) => Boolean(s.busy[answerKey(c.id)]))
  const [all, setAll] = useState(false)
  const now = useNow()
  const titleId = useId()
  const argsId = useId()
  const folded = !all && c.args_text.length > ARGS_FOLD_CHARS
  const who = c.agent !== null ? c.agent : c.client ? `a local client (${c.client})` : 'a local client'
  const needed = c.call_with.replace('call_tool_', '') as keyof typeof VARIANT_TONE
  return (
    <li className="confirmation" data-confirmation={c.id} aria-labelledby={titleId} tabIndex={-1}>
      <div className="confirmation-head">
        <h3 id={titleId} className="confirmation-title">
          <span className="confirmation-agent">{who}</span> wants to run <code className="confirmation-tool">{c.tool}</code>
        </h3>
        <Badge tone={VARIANT_TONE[needed]} title={`This tool needs ${c.call_with}`}>
          {needed}
        </Badge>
        {c.name_warning && <NameWarningBadge warning={c.name_warning} />}
        <span className="confirmation-time muted small" aria-live="off">
          {secondsLeft(c.expires_at, now)} s left
        </span>
      </div>
      {c.name_warning && <p className="confirmation-warning">The tool's name hides characters ({c.name_warning}); it is shown escaped.</p>}
      <p className="confirmation-why muted small">
        {c.required_by.includes('config') && (
          <span className="lock-inline">
            <LockIcon /> The operator requires confirmation ({c.config_rule ?? 'mcp_config.json'}).
          </span>
        )}
        {c.required_by.includes('user') && <span> You asked to be asked before these calls.</span>}
      </p>
      <div className="confirmation-args">
        <div className="muted small">
          Arguments as the agent sent them ({c.args_bytes} bytes{c.args_truncated ? ', cut for display: Allow runs them all' : ''}) · HMAC{' '}
          <code title={c.args_hmac}>{c.args_hmac.slice(0, 12)}…</code>
        </div>
        <pre id={argsId} className="confirmation-args-text">
          {folded ? `${c.args_text.slice(0, ARGS_FOLD_CHARS)}…` : c.args_text}
        </pre>
        {c.args_text.length > ARGS_FOLD_CHARS && (
          <button type="button" className="btn btn--ghost btn--small" aria-expanded={all} aria-controls={argsId} onClick={() => setAll(!all)}>
            {all ? 'Show less' : 'Show all'}
          </button>
        )}
      </div>
      <div className="confirmation-actions">
        <button
          type="button"
          className="btn btn--primary"
          disabled={busy}
          aria-busy={busy || undefined}
          aria-describedby={titleId}
          onClick={() => void answer(c.id, 'allow')}
        >
          Allow
        </button>
        <button type="button" className="btn" disabled={busy} aria-describedby={titleId} onClick={() => void answer(c.id, 'deny')}>
          Deny
        </button>
        <span className="muted small">Allow runs exactly this call, once. Deny tells the agent no; nothing runs.</span>
      </div>
    </li>
  )
}
