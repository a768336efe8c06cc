// The top bar: the overall state in one line, what needs the user (Attention), and the views.
import { useEffect } from 'react'
import { useApp } from '../store/context'
import { connectedText, summarizeServers } from '../../shared/summary'
import type { Tab } from '../store/store'
import type { DesktopSettings } from '../../shared/ipc'
import { StartAtLogin } from './StartAtLogin'
import { Attention } from './Attention'

const TABS: Array<{ id: Tab; label: string }> = [
  { id: 'servers', label: 'Servers' },
  { id: 'requests', label: 'Requests' },
  { id: 'search', label: 'Search' },
  { id: 'secrets', label: 'Secrets' },
  { id: 'activity', label: 'Activity' },
  { id: 'agents', label: 'Agents' },
]

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/** The overall state in words: "No servers yet" rather than "0 of 0 servers connected". */
export function stateLine(summary: Parameters<typeof connectedText>[0] & { callable: number }): string {
  if (summary.total === 0) return 'No servers yet'
  return `${connectedText(summary)}, ${count(summary.callable, 'tool', 'tools')} callable`
}

export function Header({ desktop }: { desktop?: DesktopSettings }) {
  const servers = useApp((s) => s.servers)
  const tab = useApp((s) => s.tab)
  const setTab = useApp((s) => s.setTab)
  const summary = summarizeServers(servers)
  const asking = useApp((s) => s.requests.filter((r) => r.status === 'pending').length)
  const calls = useApp((s) => s.confirmations.length)
  const questions = useApp((s) => s.questions.length)
  const waiting = summary.waiting + asking + calls + questions

  useEffect(() => {
    document.title = waiting > 0 ? `(${waiting}) Toolgate` : 'Toolgate'
  }, [waiting])

  return (
    <header className="topbar">
      <div className="brand">
        <span className="logo" aria-hidden="true" />
        <span className="brand-name">Toolgate</span>
      </div>
      {/* one phrase and the attention line, no separators: a wrapped line never starts or ends with a stray "·" */}
      <p className="summary" aria-live="polite">
        <span className="summary-state">{stateLine(summary)}</span>
        <Attention summary={summary} asking={asking} calls={calls} questions={questions} />
      </p>
      <nav className="tabs" aria-label="Views">
        {TABS.map((t) => (
          <button
            key={t.id}
            type="button"
            className={tab === t.id ? 'tab tab--active' : 'tab'}
            aria-current={tab === t.id ? 'page' : undefined}
            onClick={() => setTab(t.id)}
          >
            {t.label}
            {t.id === 'requests' && asking > 0 && (
              <span className="tab-count" aria-hidden="true" title={`${asking} waiting`}>
                {asking}
              </span>
            )}
          </button>
        ))}
      </nav>
      {desktop && <StartAtLogin settings={desktop} />}
    </header>
  )
}
