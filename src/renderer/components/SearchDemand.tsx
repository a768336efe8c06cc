// The search demand: what agents asked for that only locked tools could answer (the discovery
// stats, kept in memory since start), with the locked tools each query matched and a Review button.
import { escapeControls } from '../../shared/text'
import { useApp } from '../store/context'
import { ReviewButton } from './ReviewButton'

export function SearchDemand() {
  const stats = useApp((s) => s.stats)
  const queries = stats?.locked_only_queries ?? []
  return (
    <section className="demand" aria-labelledby="demand-title">
      <h3 id="demand-title">Searches that found only locked tools</h3>
      {queries.length ? (
        <table className="queries">
          <thead>
            <tr>
              <th scope="col">query</th>
              <th scope="col">times</th>
              <th scope="col">locked tools it matched</th>
            </tr>
          </thead>
          <tbody>
            {queries.map((q) => (
              <tr key={q.query} data-demand={q.query}>
                <td>{escapeControls(q.query)}</td>
                <td>{q.count}</td>
                <td>
                  <ul className="plain">
                    {(q.tools ?? []).map((id) => (
                      <li key={id}>
                        <code>{id}</code> <ReviewButton id={id} />
                      </li>
                    ))}
                  </ul>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : (
        <p className="muted">Nothing yet. When agents keep asking for something that is locked, the query shows up here.</p>
      )}
    </section>
  )
}
