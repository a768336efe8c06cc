// A server's request to use the user's model (`sampling: "ask"`, docs/passthrough.md#sampling-ask),
// waiting in the confirmations queue: the server (its configured name), the call during which it
// asks, the messages as text (cut, images as a note; the core made them safe), the system prompt,
// the model preferences and maxTokens. Allow sends this one request to the agent's client.
import { useId } from 'react'
import type { Confirmation } from '../../shared/confirmations'
import type { SamplingView } from '../../shared/sampling-view'
import { useApp } from '../store/context'
import { answerKey } from '../store/confirmations'
import { useNow } from '../lib/now'

export function SamplingCard({ c, sampling }: { c: Confirmation; sampling: SamplingView }) {
  const answer = useApp((s) => s.answerConfirmation)
  const busy = useApp((s) => Boolean(s.busy[answerKey(c.id)]))
  const now = useNow()
  const titleId = useId()
  const who = c.agent !== null ? c.agent : c.client ? `a local client (${c.client})` : 'a local client'
  const p = sampling.model_preferences
  const prefs = p
    ? [
        p.hints?.length ? `hints: ${p.hints.join(', ')}` : '',
        p.cost_priority !== undefined ? `cost ${p.cost_priority}` : '',
        p.speed_priority !== undefined ? `speed ${p.speed_priority}` : '',
        p.intelligence_priority !== undefined ? `intelligence ${p.intelligence_priority}` : '',
      ].filter(Boolean)
    : []
  return (
    <li className="confirmation" data-confirmation={c.id} data-kind="sampling" aria-labelledby={titleId} tabIndex={-1}>
      <div className="confirmation-head">
        <h3 id={titleId} className="confirmation-title">
          The MCP server <span className="confirmation-agent">{c.server}</span> asks to use your model
        </h3>
        <span className="confirmation-time muted small" aria-live="off">
          {Math.max(0, Math.round((Date.parse(c.expires_at) - now) / 1000))} s left
        </span>
      </div>
      <p className="confirmation-why muted small">
        During {who}'s call of <code className="confirmation-tool">{c.tool}</code>; you set "sampling": "ask" for this server.
      </p>
      <div className="confirmation-args">
        {sampling.system_prompt && (
          <p className="sampling-message">
            <strong>system</strong> {sampling.system_prompt}
          </p>
        )}
        {sampling.messages.map((m, i) => (
          <pre key={i} className="confirmation-args-text sampling-message" data-role={m.role}>
            [{m.role}] {m.text}
            {m.truncated ? ' (cut for display)' : ''}
          </pre>
        ))}
        {sampling.more_messages ? <p className="muted small">{sampling.more_messages} more messages not shown</p> : null}
        <p className="muted small">
          maxTokens {sampling.max_tokens ?? 'not set'}
          {prefs.length > 0 ? ` · model preferences: ${prefs.join('; ')}` : ''}
        </p>
      </div>
      <div className="confirmation-actions">
        <button type="button" className="btn btn--primary" disabled={busy} aria-describedby={titleId} onClick={() => void answer(c.id, 'allow')}>
          Allow
        </button>
        <button type="button" className="btn" disabled={busy} aria-describedby={titleId} onClick={() => void answer(c.id, 'deny')}>
          Deny
        </button>
        <span className="muted small">Allow sends this one request to the agent's client (its model). Deny tells the server no.</span>
      </div>
    </li>
  )
}
