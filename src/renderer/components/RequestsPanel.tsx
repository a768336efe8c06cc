// The Requests view: what agents asked for, newest first. A waiting request shows the agent, the
// tool, the lock and the agent's reason (untrusted text, already escaped by the core, rendered as
// text), the review, and Allow once / Allow for 1 hour / Allow always / Deny.
import type { AccessRequest } from '../../shared/requests'
import { ONCE_STATUSES } from '../../shared/requests'
import { timeLeft } from '../../shared/grant-for'
import { useApp } from '../store/context'
import { busyKey } from '../store/store'
import { useNow } from '../lib/now'
import { StatusBadge } from './Badge'
import { RequestReview, reviewedHash, useReviewReady } from './RequestReview'

function who(req: AccessRequest): string {
  if (req.agent) return req.client ? `${req.agent} (${req.client})` : req.agent
  return req.client ? `${req.client} (no agent)` : 'a session without an agent'
}

function Answers({ req }: { req: AccessRequest }) {
  const busy = useApp((s) => Boolean(s.busy[busyKey('request', req.id)]))
  const grant = useApp((s) => s.grantRequest)
  const deny = useApp((s) => s.denyRequest)
  const ready = useReviewReady(req)
  const server = useApp((s) => s.servers.find((x) => x.name === req.server))
  const tool = useApp((s) => s.tools[req.server]?.find((t) => t.tool === req.tool))
  // what the review shows is what a grant acts on: the launch, or the tool's definition
  const bound = reviewedHash(server, tool)
  const onceOk = ONCE_STATUSES.has(req.lock)
  const off = busy || !ready
  return (
    <div className="actions request-actions">
      <button
        type="button"
        className="btn"
        disabled={off || !onceOk}
        title={onceOk ? 'One call of this tool by this agent, then it is locked again' : 'The server is not running: it cannot be opened for a single call'}
        onClick={() => void grant(req.id, 'once', bound)}
      >
        Allow once
      </button>
      <button type="button" className="btn" disabled={off} onClick={() => void grant(req.id, '1h', bound)}>
        Allow for 1 hour
      </button>
      <button type="button" className="btn btn--primary" disabled={off} onClick={() => void grant(req.id, 'always', bound)}>
        Allow always
      </button>
      <button type="button" className="btn btn--ghost" disabled={busy} onClick={() => void deny(req.id)}>
        Deny
      </button>
    </div>
  )
}

function Outcome({ req, now }: { req: AccessRequest; now: number }) {
  if (req.status === 'granted') {
    const left = req.until && req.granted_for !== 'once' && req.granted_for !== 'always' ? ` (${timeLeft(req.until, now)})` : ''
    const what = req.granted_for === 'once' ? 'once' : req.granted_for === 'always' ? 'always' : `for ${req.granted_for}`
    return (
      <p className="request-outcome request-outcome--granted">
        Allowed {what}
        {left}
      </p>
    )
  }
  if (req.status === 'denied') return <p className="request-outcome request-outcome--denied">Denied</p>
  return <p className="request-outcome muted">Expired unanswered</p>
}

function RequestCard({ req, now }: { req: AccessRequest; now: number }) {
  const pending = req.status === 'pending'
  return (
    <li className={`request request--${req.status}`} data-request={req.id} data-status={req.status} data-agent={req.agent ?? undefined}>
      <div className="request-head">
        <span className="request-who">{who(req)}</span>
        <span className="muted">asks for</span>
        <code className="request-tool">{req.name}</code>
        <StatusBadge status={req.lock} />
        {req.asked > 1 && <span className="muted small">asked {req.asked}×</span>}
        <time className="muted small" dateTime={req.updated_at} title={req.updated_at}>
          {new Date(req.updated_at).toLocaleTimeString()}
        </time>
      </div>
      <blockquote className="request-reason">{req.reason}</blockquote>
      {pending ? (
        <>
          <RequestReview req={req} />
          <Answers req={req} />
        </>
      ) : (
        <Outcome req={req} now={now} />
      )}
    </li>
  )
}

export function RequestsPanel() {
  const requests = useApp((s) => s.requests)
  const now = useNow(1000)
  const pending = requests.filter((r) => r.status === 'pending')
  const answered = requests.filter((r) => r.status !== 'pending')
  return (
    <div className="requests">
      {requests.length === 0 && (
        <p className="muted">
          No requests. When an agent finds a tool locked, it can ask for it with <code>request_access</code>; its request shows up here and in a notification.
        </p>
      )}
      {pending.length > 0 && (
        <>
          <h2 className="section-title">Waiting for you</h2>
          <ul className="request-list">
            {pending.map((r) => (
              <RequestCard key={r.id} req={r} now={now} />
            ))}
          </ul>
        </>
      )}
      {answered.length > 0 && (
        <>
          <h2 className="section-title">Answered</h2>
          <ul className="request-list">
            {answered.map((r) => (
              <RequestCard key={r.id} req={r} now={now} />
            ))}
          </ul>
        </>
      )}
    </div>
  )
}
