// The whole UI: header, banners, and the current view. Starts the store (load + live events).
import { useEffect } from 'react'
import { useApp } from '../store/context'
import type { DesktopSettings } from '../../shared/ipc'
import { ActivityPanel } from './ActivityPanel'
import { AgentsPanel } from './AgentsPanel'
import { Banners, Toast } from './Banners'
import { ConfirmationsQueue } from './ConfirmationsQueue'
import { QuestionsQueue } from './QuestionsQueue'
import { Header } from './Header'
import { MissingKey } from './MissingKey'
import { RequestsPanel } from './RequestsPanel'
import { SearchPanel } from './SearchPanel'
import { ServerList } from './ServerList'
import { SecretsPanel } from './SecretsPanel'
import { RemoveDialog, ServerForm } from './ServerForm'

export function App({ onForgetKey, onKey, desktop }: { onForgetKey?: () => void; onKey?: (key: string) => void; desktop?: DesktopSettings }) {
  const start = useApp((s) => s.start)
  const loaded = useApp((s) => s.loaded)
  const loadError = useApp((s) => s.loadError)
  const authError = useApp((s) => s.authError)
  const refresh = useApp((s) => s.refresh)
  const tab = useApp((s) => s.tab)
  const dialog = useApp((s) => s.dialog)

  useEffect(() => start(), [start])

  if (authError) return <MissingKey refused={authError.message} onForget={onForgetKey} onKey={onKey} />
  if (!loaded) {
    return (
      <main className="loading-screen">
        {loadError ? (
          <div className="keycard" role="alert">
            <h1>Toolgate is not reachable</h1>
            <p>{loadError}</p>
            <button type="button" className="btn btn--primary" onClick={() => void refresh({ info: true })}>
              Try again
            </button>
          </div>
        ) : (
          <p className="muted">Loading…</p>
        )}
      </main>
    )
  }
  return (
    <div className="app">
      <Header desktop={desktop} />
      <main className="content">
        <Banners />
        <ConfirmationsQueue />
        <QuestionsQueue />
        {tab === 'servers' && <ServerList />}
        {tab === 'requests' && <RequestsPanel />}
        {tab === 'search' && <SearchPanel />}
        {tab === 'secrets' && <SecretsPanel />}
        {tab === 'activity' && <ActivityPanel />}
        {tab === 'agents' && <AgentsPanel />}
      </main>
      {dialog?.kind === 'add' && <ServerForm editing={null} />}
      {dialog?.kind === 'edit' && <ServerForm key={dialog.server} editing={dialog.server} />}
      {dialog?.kind === 'remove' && <RemoveDialog server={dialog.server} />}
      <Toast />
    </div>
  )
}
