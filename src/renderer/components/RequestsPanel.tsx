// The Requests view: what agents asked for, newest first. A waiting request shows the agent, the
// tool, the lock and the agent's reason (untrusted text, already escaped by the core, rendered as
// text), the review, and Allow once / Allow for 1 hour / Allow always / Deny (the safe answer
// primary, always behind a question).
import type { AccessRequest } from '../../shared/requests'
import { ONCE_STATUSES } from '../../shared/requests'
import { timeLeft } from '../../shared/grant-for'
import { useApp } from '../store/context'
import { busyKey } from '../store/store'
import { useNow } from '../lib/now'
import { StatusBadge } from './Badge'
import { grantsServer, RequestReview, reviewedHash, useReviewReady } from './RequestReview'
import type { GrantOptions } from '../../shared/actions'
import { BlindApprovalDialog, toolsSeen } from './ApproveServerButton'
import { ConfirmDialog } from './ConfirmDialog'
import { useState } from 'react'

function who(req: AccessRequest): string {
  if (req.agent) return req.client ? `${req.agent} (${req.client})` : req.agent
  return req.client ? `${req.client} (no agent)` : 'a session without an agent'
}

/**
 * The answers: the safe one is primary — Allow once, or for an hour where one call
 * cannot be opened (a server that is off or in quarantine). Allow always is a deliberate second
 * step (it asks), Deny is a real button. A grant that would approve a server nobody inspected asks
 * the Servers view's blind-approval question first, whatever the duration.
 */
function Answers({ req }: { req: AccessRequest }) {
  const busy = useApp((s) => Boolean(s.busy[busyKey('request', req.id)]))
  const grant = useApp((s) => s.grantRequest)
  const deny = useApp((s) => s.denyRequest)
  const ready = useReviewReady(req)
  const server = useApp((s) => s.servers.find((x) => x.name === req.server))
  const tool = useApp((s) => s.tools[req.server]?.find((t) => t.tool === req.tool))
  /**
   * the grant waiting for the answer to its question, bound to what the review showed when it was
   * asked: a launch or definition that changes while the question is open is not the one answered
   */
  const [pending, setPending] = useState<{ grantFor: string; bound: GrantOptions | undefined } | null>(null)
  const asking = pending?.grantFor ?? null
  // what the review shows is what a grant acts on: the launch, or the tool's definition
  const bound = reviewedHash(server, tool)
  const onServer = server !== undefined && grantsServer(server)
  const onceOk = ONCE_STATUSES.has(req.lock) && !onServer
  const blind = server !== undefined && server.quarantined && !toolsSeen(server)
  const off = busy || !ready
  const answer = (f: string): void => {
    if (blind || f === 'always') setPending({ grantFor: f, bound })
    else void grant(req.id, f, bound)
  }
  const confirmed = (): void => {
    const p = pending
    setPending(null)
    if (p) void grant(req.id, p.grantFor, p.bound)
  }
  return (
    <div className="actions request-actions">
      <button
        type="button"
        className={onceOk ? 'btn btn--primary' : 'btn'}
        disabled={off || !onceOk}
        title={onceOk ? 'One call of this tool by this agent, then it is locked again' : 'The server is not running: it cannot be opened for a single call'}
        onClick={() => answer('once')}
      >
        Allow once
      </button>
      <button type="button" className={onceOk ? 'btn' : 'btn btn--primary'} disabled={off} onClick={() => answer('1h')}>
        Allow for 1 hour
      </button>
      <button type="button" className="btn" disabled={off} title="Asks first: it stays allowed until you lock it again" onClick={() => answer('always')}>
        Allow always
      </button>
      <button type="button" className="btn" disabled={busy} onClick={() => void deny(req.id)}>
        Deny
      </button>
      {asking && blind && server && (
        <BlindApprovalDialog server={server} onCancel={() => setPending(null)} onConfirm={confirmed}>
          <p className="small">
            {asking === 'always'
              ? 'Allowing always approves it for good.'
              : `Allowing for ${asking} approves it until then; it goes back into quarantine after.`}
          </p>
        </BlindApprovalDialog>
      )}
      {asking === 'always' && !blind && (
        <ConfirmDialog
          title={`Allow ${who(req)} to use ${req.name} always?`}
          confirmLabel="Yes, allow always"
          risky={false}
          marker={{ 'data-confirm-always': req.id }}
          onCancel={() => setPending(null)}
          onConfirm={confirmed}
        >
          <p>
            It stays allowed until you lock it again: {onServer ? 'the server' : 'the tool'} is switched on or approved for good, for every agent in scope, not
            only for this request. Allow once or for an hour keeps the lock.
          </p>
        </ConfirmDialog>
      )}
    </div>
  )
}

function Outcome({ req, now }: { req: AccessRequest; now: number }) {
  const where = req.answered_via === 'client' ? ' in the agent’s own client' : ''
  if (req.status === 'granted') {
    const left = req.until && req.granted_for !== 'once' && req.granted_for !== 'always' ? ` (${timeLeft(req.until, now)})` : ''
    const what = req.granted_for === 'once' ? 'once' : req.granted_for === 'always' ? 'always' : `for ${req.granted_for}`
    return (
      <p className="request-outcome request-outcome--granted">
        Allowed {what}
        {left}
        {where}
      </p>
    )
  }
  if (req.status === 'denied') return <p className="request-outcome request-outcome--denied">Denied{where}</p>
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
