// The detail drawer of one activity record: every recorded field, the remediation of a lock,
// for a search that found only locked tools a way to review each of them, and for the answer to a
// server's question the names of the fields it filled (never the values).
import { useEffect } from 'react'
import type { ActivityEvent, QuestionRecord } from '../../shared/activity'
import { isLockStatus, REMEDIATION } from '../../shared/statuses'
import { escapeControls, escapeJsonControls, escapeText } from '../../shared/text'
import { useApp } from '../store/context'
import { ReviewButton } from './ReviewButton'
import { timeOf, whoOf } from './ActivityTable'

function Row({ k, children }: { k: string; children: React.ReactNode }) {
  return (
    <div className="kv">
      <dt>{k}</dt>
      <dd>{children}</dd>
    </div>
  )
}

/**
 * A server's question on the record: what it asked for, where it was asked and, for a form that
 * was sent, the names of the fields the answer filled (the server's keys: text, escaped; what the
 * user typed is never recorded), or for a URL the page's host.
 */
function QuestionRows({ q }: { q: QuestionRecord }) {
  return (
    <>
      <Row k="question">
        {q.mode === 'url' ? 'a page to open' : 'a form'}, asked in {q.asked_in === 'client' ? "the agent's client" : 'Toolgate'}
        {q.id && (
          <>
            {' '}
            (<code>{q.id}</code>)
          </>
        )}
      </Row>
      {q.fields && (
        <Row k="fields filled">
          {q.fields.length === 0 ? (
            <span className="muted">none</span>
          ) : (
            <ul className="plain" data-question-fields="">
              {q.fields.map((name) => (
                <li key={name}>
                  <code>{escapeControls(name)}</code>
                </li>
              ))}
            </ul>
          )}
          <span className="muted small">the names only: what was typed is never recorded</span>
        </Row>
      )}
      {q.url_host && (
        <Row k="page on">
          <code>{escapeControls(q.url_host)}</code>
        </Row>
      )}
    </>
  )
}

function Fields({ e }: { e: ActivityEvent }) {
  switch (e.kind) {
    case 'call':
      return (
        <>
          <Row k="tool">
            <code>{escapeControls(e.tool)}</code> with <code>call_tool_{e.variant}</code>
          </Row>
          <Row k="outcome">
            {e.outcome}
            {e.status ? ` (${e.status})` : ''}
          </Row>
          {e.status && isLockStatus(e.status) && <Row k="why">{REMEDIATION[e.status]}</Row>}
          <Row k="duration">{e.duration_ms.toFixed(1)} ms</Row>
          {e.result_bytes !== undefined && <Row k="result">{e.result_bytes} bytes</Row>}
          {e.error && (
            <Row k="answer">
              <pre className="code small">{escapeText(e.error)}</pre>
            </Row>
          )}
          <Row k="arguments">
            {e.args_preview !== undefined ? (
              <pre className="code small">{escapeJsonControls(e.args_preview)}</pre>
            ) : (
              <span className="muted">not recorded (record_args: false)</span>
            )}
          </Row>
          <Row k="HMAC">
            <code className="hash">{e.args_hmac}</code>
          </Row>
        </>
      )
    case 'search':
      return (
        <>
          <Row k="query">
            <code>{escapeControls(e.query)}</code>
            {e.include_disabled ? ' (include_disabled)' : ''}
          </Row>
          <Row k="found">{e.hits === 1 ? '1 callable tool' : `${e.hits} callable tools`}</Row>
          {e.locked.length > 0 && (
            <Row k={e.locked_only ? 'only locked' : 'locked'}>
              <ul className="plain">
                {e.locked.map((id) => (
                  <li key={id}>
                    <code>{id}</code> <ReviewButton id={id} />
                  </li>
                ))}
              </ul>
            </Row>
          )}
        </>
      )
    case 'decision':
      return (
        <>
          <Row k="decision">
            {e.action} <code>{e.tool ? `${e.server}:${e.tool}` : e.server}</code>
          </Row>
          <Row k="by">
            {e.by}
            {e.by === 'agent' && e.agent ? ` ${e.agent}` : ''} via {e.via}
          </Row>
          <Row k="result">{escapeText(e.message)}</Row>
          {e.question && <QuestionRows q={e.question} />}
          {e.args_hmac && (
            <Row k="HMAC">
              <code className="hash">{e.args_hmac}</code>
            </Row>
          )}
        </>
      )
    case 'start':
    case 'stop':
      return (
        <>
          <Row k={e.kind === 'start' ? 'started' : 'stopped'}>
            <code>{e.server}</code> ({e.reason})
          </Row>
          <Row k="result">{escapeText(e.message)}</Row>
        </>
      )
    case 'read':
      return (
        <>
          <Row k={e.what}>
            <code>{escapeText(e.name)}</code>
          </Row>
          <Row k="server">{e.server !== null ? <code>{e.server}</code> : 'none the agent may see'}</Row>
          <Row k="outcome">
            {e.outcome}
            {e.code !== undefined ? ` (code ${e.code})` : ''} in {e.duration_ms.toFixed(1)} ms
          </Row>
          {e.error && <Row k="error">{escapeText(e.error)}</Row>}
        </>
      )
  }
}

export function ActivityDetail() {
  const id = useApp((s) => s.selectedActivity)
  const e = useApp((s) => s.activity.find((x) => x.id === s.selectedActivity))
  const select = useApp((s) => s.selectActivity)
  useEffect(() => {
    if (!id) return
    const onKey = (ev: KeyboardEvent) => ev.key === 'Escape' && select(null)
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [id, select])
  if (!e) return null
  return (
    <aside className="drawer" role="dialog" aria-label={`Activity record ${e.id}`}>
      <header className="drawer-head">
        <h3>
          {e.kind} · {timeOf(e.ts)}
        </h3>
        <button type="button" className="btn btn--ghost" onClick={() => select(null)}>
          Close
        </button>
      </header>
      <dl className="kvs">
        <Row k="when">{e.ts}</Row>
        {e.kind === 'decision' && e.by !== 'agent' ? (
          <Row k="who">{whoOf(e)}</Row>
        ) : (
          <>
            <Row k="agent">{e.agent ?? <span className="muted">none (a local client with the admin key)</span>}</Row>
            <Row k="client">{e.client !== null ? escapeControls(e.client) : <span className="muted">unknown</span>}</Row>
          </>
        )}
        <Fields e={e} />
        <Row k="record">#{e.id}</Row>
      </dl>
    </aside>
  )
}
