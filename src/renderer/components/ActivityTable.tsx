// The live table of the activity record: time, agent, what (tool, query or decision), outcome.
// Each row carries data-activity / data-outcome / data-agent (docs/contract.md §7) and opens its details.
// Agents write the queries, tool ids and client names: they are shown with control, bidi and
// invisible characters as \u escapes (React already escapes markup).
import { actorOf, type ActivityEvent, type QuestionRecord, type StartEvent, type StopEvent } from '../../shared/activity'
import { escapeControls } from '../../shared/text'
import { useApp } from '../store/context'

export function timeOf(ts: string): string {
  const d = new Date(ts)
  if (Number.isNaN(d.getTime())) return ts
  const sameDay = d.toDateString() === new Date().toDateString()
  return sameDay ? d.toLocaleTimeString([], { hour12: false }) : d.toLocaleString([], { hour12: false })
}

/** What data-outcome says: a call's or a read's outcome; for a search whether it found anything callable; a decision happened; a server started or stopped. */
export function outcomeOf(e: ActivityEvent): string {
  if (e.kind === 'call' || e.kind === 'read') return e.outcome
  if (e.kind === 'search') return e.hits > 0 ? 'ok' : e.locked_only ? 'locked_only' : 'no_match'
  if (e.kind === 'start') return 'started'
  if (e.kind === 'stop') return 'stopped'
  return 'decided'
}

export function whoOf(e: ActivityEvent): string {
  if (e.kind === 'decision' && e.by !== 'agent') return `${e.by} via ${e.via}`
  return escapeControls(actorOf(e))
}

function What({ e }: { e: ActivityEvent }) {
  if (e.kind === 'call') return <code>{escapeControls(e.tool)}</code>
  if (e.kind === 'search') return <span className="activity-query">search “{escapeControls(e.query)}”</span>
  if (e.kind === 'start' || e.kind === 'stop')
    return (
      <span>
        {e.kind === 'start' ? 'started' : 'stopped'} <code>{e.server}</code>
      </span>
    )
  if (e.kind === 'read')
    return (
      <span>
        read {e.what} <code>{escapeControls(e.name)}</code>
        {e.server !== null && <span className="muted"> · {e.server}</span>}
      </span>
    )
  return (
    <span>
      {e.action} <code>{e.tool ? `${e.server}:${e.tool}` : e.server}</code>
      {e.question && <QuestionNote q={e.question} />}
    </span>
  )
}

/** Field names in a row of the table; the drawer shows them all. */
const MAX_FIELDS_SHOWN = 4

/** The fields an answer to a server's question filled (their names, escaped), or the page's host. */
function QuestionNote({ q }: { q: QuestionRecord }) {
  if (q.url_host) return <span className="muted"> · page on {escapeControls(q.url_host)}</span>
  if (!q.fields) return null
  const shown = q.fields
    .slice(0, MAX_FIELDS_SHOWN)
    .map((n) => escapeControls(n))
    .join(', ')
  const more = q.fields.length > MAX_FIELDS_SHOWN ? ` and ${q.fields.length - MAX_FIELDS_SHOWN} more` : ''
  return <span className="muted"> · {q.fields.length === 0 ? 'no field filled' : `fields ${shown}${more}`}</span>
}

/** A start's or a stop's reason in words: the bare codes ("list", "config") read as nothing to a user. */
const STARTED_BECAUSE: Record<StartEvent['reason'], string> = {
  call: 'for a call',
  prompt: 'for a prompt',
  resource: 'for a resource read',
  inspect: 'for Inspect',
  restart: 'restarted',
  list: 'to list its tools',
  always: 'runs always',
  config: 'config or review changed',
}
const STOPPED_BECAUSE: Record<StopEvent['reason'], string> = {
  idle: 'unused (idle)',
  config: 'switched off or changed',
  shutdown: 'Toolgate stopped',
}

function Outcome({ e }: { e: ActivityEvent }) {
  const o = outcomeOf(e)
  if (e.kind === 'search') {
    const text = e.hits > 0 ? `${e.hits} found` : e.locked_only ? `only locked (${e.locked.length})` : 'nothing found'
    return <span className={`outcome outcome--${o}`}>{text}</span>
  }
  if (e.kind === 'decision') return <span className="outcome outcome--decided">by {e.by}</span>
  if (e.kind === 'start') return <span className={`outcome outcome--${o}`}>{STARTED_BECAUSE[e.reason] ?? e.reason}</span>
  if (e.kind === 'stop') return <span className={`outcome outcome--${o}`}>{STOPPED_BECAUSE[e.reason] ?? e.reason}</span>
  if (e.kind === 'read')
    return (
      <span className={`outcome outcome--${o}`}>
        {o}
        {e.code !== undefined ? <span className="outcome-why"> · {e.code}</span> : null}
      </span>
    )
  return (
    <span className={`outcome outcome--${o}`}>
      {o}
      {e.status ? <span className="outcome-why"> · {e.status.replace(/_/g, ' ')}</span> : null}
    </span>
  )
}

export function ActivityTable() {
  const events = useApp((s) => s.activity)
  const selected = useApp((s) => s.selectedActivity)
  const select = useApp((s) => s.selectActivity)
  return (
    <table className="activity-table">
      <thead>
        <tr>
          <th scope="col">time</th>
          <th scope="col">agent</th>
          <th scope="col">what</th>
          <th scope="col">outcome</th>
        </tr>
      </thead>
      <tbody>
        {events.map((e) => (
          <tr
            key={e.id}
            data-activity={e.id}
            data-outcome={outcomeOf(e)}
            data-agent={actorOf(e)}
            data-kind={e.kind}
            className={selected === e.id ? 'activity-row activity-row--selected' : 'activity-row'}
            onClick={() => select(e.id)}
          >
            <td className="nowrap" title={e.ts}>
              {timeOf(e.ts)}
            </td>
            <td>{whoOf(e)}</td>
            <td>
              <button type="button" className="linklike" aria-label={`Details of record ${e.id}`} onClick={() => select(e.id)}>
                <What e={e} />
              </button>
            </td>
            <td>
              <Outcome e={e} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
