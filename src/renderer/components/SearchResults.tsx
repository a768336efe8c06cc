// The answer of retrieve_tools, rendered (or shown raw). Each entry carries data-result /
// data-status (docs/contract.md §6). Descriptions are upstream text: rendered as text only.
import type { LockedAheadEntry, RetrieveResponse } from '../../shared/retrieve'
import { isLockStatus } from '../../shared/statuses'
import { useApp } from '../store/context'
import { Badge, StatusBadge } from './Badge'
import { LongText } from './LongText'

function parse(text: string): RetrieveResponse | null {
  try {
    const v = JSON.parse(text) as RetrieveResponse
    return v && Array.isArray(v.tools) ? v : null
  } catch {
    return null
  }
}

function argNames(schema: Record<string, unknown> | undefined): string[] {
  const props = schema?.properties
  return props && typeof props === 'object' ? Object.keys(props as object) : []
}

export function SearchResults() {
  const result = useApp((s) => s.result)
  const error = useApp((s) => s.searchError)
  const searching = useApp((s) => s.searching)
  const showRaw = useApp((s) => s.showRaw)

  if (error)
    return (
      <p className="notice notice--danger" role="alert">
        Search failed: {error}
      </p>
    )
  if (!result) {
    return (
      <p className="muted empty-search">
        Type what an agent would look for. Callable tools come first, ranked; with <em>Include locked tools</em> you also see the tools that exist but are
        locked, with the sentence the agent is given about each lock.
      </p>
    )
  }
  const data = parse(result.text)
  return (
    <div className={searching ? 'results results--stale' : 'results'} aria-busy={searching || undefined}>
      {showRaw || !data ? (
        <>
          {!data && <p className="notice notice--warn">The answer is not the expected JSON; shown as received.</p>}
          <pre className="code raw" aria-label="Raw JSON">
            {result.text}
          </pre>
        </>
      ) : (
        <Rendered data={data} />
      )}
    </div>
  )
}

/**
 * locked_ahead: the locked tools the ranking puts above these results (or within them), as the agent
 * is told: name, status and the sentence about the lock, never a description.
 */
function LockedAhead({ entries, anyCallable }: { entries: readonly LockedAheadEntry[]; anyCallable: boolean }) {
  return (
    <section className="locked-ahead" aria-label="Locked tools ranked ahead">
      <p className="locked-ahead-title">
        {anyCallable
          ? `${entries.length === 1 ? 'A locked tool ranks' : `${entries.length} locked tools rank`} above or among these results; the agent is told:`
          : `The agent is told which locked ${entries.length === 1 ? 'tool matches' : 'tools match'}:`}
      </p>
      <ul className="locked-ahead-list">
        {entries.map((e) => (
          <li key={e.name} data-locked-ahead={e.name} data-status={e.status}>
            <div className="result-title">
              <span className="mono tool-id">{e.name}</span>
              {isLockStatus(e.status) ? <StatusBadge status={e.status} /> : <Badge tone="danger">{String(e.status)}</Badge>}
            </div>
            <p className="remediation">{e.remediation}</p>
          </li>
        ))}
      </ul>
    </section>
  )
}

function Rendered({ data }: { data: RetrieveResponse }) {
  const locked = data.disabled ?? []
  const ahead = data.locked_ahead ?? []
  // with "Include locked tools" the entries are listed anyway: marked there, not shown twice
  const listed = new Set(locked.map((t) => t.name))
  const aheadNames = new Set(ahead.map((e) => e.name))
  const aheadOnly = ahead.filter((e) => !listed.has(e.name))
  return (
    <>
      <p className="results-summary">
        {data.total === 0 ? 'No callable tools match' : `${data.total} callable tool${data.total === 1 ? '' : 's'}`} for “{data.query}”
        {locked.length > 0 && `, ${locked.length} locked`}
      </p>
      {data.notice && <p className="notice notice--warn">{data.notice}</p>}
      {aheadOnly.length > 0 && <LockedAhead entries={aheadOnly} anyCallable={data.total > 0} />}
      <ol className="result-list">
        {data.tools.map((t) => (
          <li key={t.name} className="result" data-result={t.name} data-status="callable">
            <div className="result-title">
              <span className="mono">{t.name}</span>
              <StatusBadge status="callable" />
              <Badge tone="muted">{t.call_with}</Badge>
              <span className="score" title="BM25 score">
                {t.score.toFixed(2)}
              </span>
            </div>
            {t.description && <LongText text={t.description} className="tool-desc" />}
            {argNames(t.inputSchema).length > 0 && <p className="muted small mono">args: {argNames(t.inputSchema).join(', ')}</p>}
          </li>
        ))}
        {locked.map((t) => (
          <li
            key={t.name}
            className="result result--locked"
            data-result={t.name}
            data-status={t.status}
            data-locked-ahead={aheadNames.has(t.name) ? t.name : undefined}
          >
            <div className="result-title">
              <span className="mono">{t.name}</span>
              {isLockStatus(t.status) ? <StatusBadge status={t.status} /> : <Badge tone="danger">{String(t.status)}</Badge>}
              {aheadNames.has(t.name) && (
                <Badge tone="lock" title="locked_ahead: the agent is told this locked tool ranks above or among the callable results">
                  ranks ahead
                </Badge>
              )}
              {t.description === undefined && <span className="muted small">matched by name only</span>}
            </div>
            {t.description && <LongText text={t.description} className="tool-desc" />}
            {data.remediation?.[t.status] && <p className="remediation">{data.remediation[t.status]}</p>}
          </li>
        ))}
      </ol>
    </>
  )
}
