// In-memory counters of what agents did (never persisted), and what they looked for in vain.
import { useEffect } from 'react'
import { useApp } from '../store/context'

const POLL_MS = 5000

const LABELS: Array<[keyof import('../../shared/api').Stats, string]> = [
  ['retrieve_calls', 'searches'],
  ['include_disabled_calls', 'searches including locked tools'],
  ['locked_only_searches', 'searches that found only locked tools'],
  ['tool_calls', 'tool calls'],
  ['blocked_calls', 'calls blocked by a lock'],
]

export function ActivityPanel() {
  const stats = useApp((s) => s.stats)
  const loadStats = useApp((s) => s.loadStats)
  useEffect(() => {
    void loadStats()
    const t = setInterval(() => void loadStats(), POLL_MS)
    return () => clearInterval(t)
  }, [loadStats])

  if (!stats) return <p className="muted">Loading…</p>
  return (
    <div className="activity">
      <p className="muted small">Since Toolgate started. Kept in memory only.</p>
      <dl className="stats">
        {LABELS.map(([key, label]) => (
          <div key={key} className="stat">
            <dt>{label}</dt>
            <dd>{typeof stats[key] === 'number' ? (stats[key] as number) : 0}</dd>
          </div>
        ))}
      </dl>
      <h3>Searches that found only locked tools</h3>
      {stats.locked_only_queries?.length ? (
        <table className="queries">
          <thead>
            <tr>
              <th scope="col">query</th>
              <th scope="col">times</th>
            </tr>
          </thead>
          <tbody>
            {stats.locked_only_queries.map((q) => (
              <tr key={q.query}>
                <td>{q.query}</td>
                <td>{q.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">Nothing yet. When agents keep asking for something that is locked, the query shows up here.</p>
      )}
    </div>
  )
}
