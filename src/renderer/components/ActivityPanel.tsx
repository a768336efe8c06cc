// The Activity view: what every agent searched for and called and who decided what, live, with
// filters and a detail drawer; below it, the counters and the search demand since start.
import { useEffect, useId } from 'react'
import { ACTIVITY_KINDS, CALL_OUTCOMES, type ActivityKind, type CallOutcome } from '../../shared/activity'
import type { Stats } from '../../shared/api'
import { escapeControls } from '../../shared/text'
import { useApp } from '../store/context'
import { ActivityDetail } from './ActivityDetail'
import { ActivityTable } from './ActivityTable'
import { SearchDemand } from './SearchDemand'

const POLL_MS = 5000

const LABELS: Array<[keyof Stats, string]> = [
  ['retrieve_calls', 'searches'],
  ['include_disabled_calls', 'searches including locked tools'],
  ['locked_only_searches', 'searches that found only locked tools'],
  ['tool_calls', 'tool calls'],
  ['blocked_calls', 'calls blocked by a lock'],
]

function Filters() {
  const f = useApp((s) => s.activityFilter)
  const set = useApp((s) => s.setActivityFilter)
  const actors = useApp((s) => s.activityActors)
  const servers = useApp((s) => s.servers)
  const ids = { agent: useId(), kind: useId(), outcome: useId(), server: useId() }
  const agents = f.agent && !actors.includes(f.agent) ? [...actors, f.agent] : actors
  return (
    <form className="activity-filters" aria-label="Filter activity" onSubmit={(e) => e.preventDefault()}>
      <label htmlFor={ids.agent} className="inline">
        Agent
        <select id={ids.agent} value={f.agent} onChange={(e) => set({ agent: e.target.value })}>
          <option value="">all</option>
          {agents.map((a) => (
            <option key={a} value={a}>
              {escapeControls(a)}
            </option>
          ))}
        </select>
      </label>
      <label htmlFor={ids.kind} className="inline">
        Kind
        <select id={ids.kind} value={f.kind} onChange={(e) => set({ kind: e.target.value as '' | ActivityKind })}>
          <option value="">all</option>
          {ACTIVITY_KINDS.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
      </label>
      <label htmlFor={ids.outcome} className="inline">
        Outcome
        <select id={ids.outcome} value={f.outcome} onChange={(e) => set({ outcome: e.target.value as '' | CallOutcome })}>
          <option value="">all</option>
          {CALL_OUTCOMES.map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
      </label>
      <label htmlFor={ids.server} className="inline">
        Server
        <select id={ids.server} value={f.server} onChange={(e) => set({ server: e.target.value })}>
          <option value="">all</option>
          {servers.map((s) => (
            <option key={s.name} value={s.name}>
              {s.name}
            </option>
          ))}
        </select>
      </label>
    </form>
  )
}

export function ActivityPanel() {
  const stats = useApp((s) => s.stats)
  const loadStats = useApp((s) => s.loadStats)
  const loadActivity = useApp((s) => s.loadActivity)
  const loadOlder = useApp((s) => s.loadOlderActivity)
  const events = useApp((s) => s.activity)
  const loaded = useApp((s) => s.activityLoaded)
  const cursor = useApp((s) => s.activityCursor)
  const loading = useApp((s) => s.activityLoading)
  const error = useApp((s) => s.activityError)
  const selected = useApp((s) => s.selectedActivity)

  useEffect(() => {
    void loadActivity()
    void loadStats()
    const t = setInterval(() => void loadStats(), POLL_MS)
    return () => clearInterval(t)
  }, [loadStats, loadActivity])

  return (
    <div className={selected ? 'activity activity--with-drawer' : 'activity'}>
      <div className="activity-main">
        <h2 className="view-title">What agents did</h2>
        <Filters />
        {error && (
          <p className="activity-error" role="alert">
            {error}
          </p>
        )}
        {loaded && events.length === 0 ? (
          <p className="muted">Nothing recorded yet that matches. Every search, call and decision shows up here as it happens.</p>
        ) : (
          <ActivityTable />
        )}
        {cursor && (
          <button type="button" className="btn" disabled={loading} onClick={() => void loadOlder()}>
            Load older
          </button>
        )}
        <h3>Since Toolgate started</h3>
        {stats ? (
          <dl className="stats">
            {LABELS.map(([key, label]) => (
              <div key={key} className="stat">
                <dt>{label}</dt>
                <dd>{typeof stats[key] === 'number' ? (stats[key] as number) : 0}</dd>
              </div>
            ))}
          </dl>
        ) : (
          <p className="muted">Loading…</p>
        )}
        <SearchDemand />
      </div>
      <ActivityDetail />
    </div>
  )
}
