// Search as an agent would: the same function as retrieve_tools, with the same arguments.
import { useEffect, useId } from 'react'
import { useApp } from '../store/context'
import { SearchResults } from './SearchResults'

const LIMITS = [5, 10, 15, 25, 50, 100]
const DEBOUNCE_MS = 250

export function SearchPanel() {
  const query = useApp((s) => s.query)
  const includeLocked = useApp((s) => s.includeLocked)
  const limit = useApp((s) => s.limit)
  const showRaw = useApp((s) => s.showRaw)
  const setQuery = useApp((s) => s.setQuery)
  const setIncludeLocked = useApp((s) => s.setIncludeLocked)
  const setLimit = useApp((s) => s.setLimit)
  const setShowRaw = useApp((s) => s.setShowRaw)
  const runSearch = useApp((s) => s.runSearch)
  const ids = { q: useId(), locked: useId(), limit: useId(), raw: useId() }

  useEffect(() => {
    const t = setTimeout(() => void runSearch(), DEBOUNCE_MS)
    return () => clearTimeout(t)
  }, [query, runSearch])

  return (
    <div className="search">
      <form
        className="search-form"
        role="search"
        onSubmit={(e) => {
          e.preventDefault()
          void runSearch()
        }}
      >
        <label htmlFor={ids.q} className="search-label">
          Search tools
        </label>
        <input
          id={ids.q}
          type="search"
          className="search-input"
          placeholder="What would an agent ask for? e.g. “echo a message”"
          value={query}
          autoComplete="off"
          spellCheck={false}
          onChange={(e) => setQuery(e.target.value)}
        />
        <div className="search-options">
          <label htmlFor={ids.locked} className="check">
            <input id={ids.locked} type="checkbox" checked={includeLocked} onChange={(e) => setIncludeLocked(e.target.checked)} />
            Include locked tools
          </label>
          <label htmlFor={ids.limit} className="inline">
            Limit
            <select id={ids.limit} value={limit} onChange={(e) => setLimit(Number(e.target.value))}>
              {LIMITS.map((n) => (
                <option key={n} value={n}>
                  {n}
                </option>
              ))}
            </select>
          </label>
          <label htmlFor={ids.raw} className="check">
            <input id={ids.raw} type="checkbox" checked={showRaw} onChange={(e) => setShowRaw(e.target.checked)} />
            Show raw JSON
          </label>
        </div>
        <p className="muted small">
          Exactly what an agent gets from <code>retrieve_tools</code> with{' '}
          <code>{JSON.stringify({ query: query.trim() || '…', limit, ...(includeLocked ? { include_disabled: true } : {}) })}</code>. Searching never makes
          anything callable.
        </p>
      </form>
      <SearchResults />
    </div>
  )
}
