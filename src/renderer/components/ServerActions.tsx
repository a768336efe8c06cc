// The server-level buttons: only the ones that make sense for the server's situation.
import type { ServerAction, ServerInfo } from '../../shared/api'
import { useApp } from '../store/context'
import { busyKey } from '../store/store'

function ActionButton({ server, action, label, primary, quiet }: { server: string; action: ServerAction; label: string; primary?: boolean; quiet?: boolean }) {
  const busy = useApp((s) => Boolean(s.busy[busyKey('server', server, action)]))
  const run = useApp((s) => s.serverAction)
  return (
    <button
      type="button"
      className={primary ? 'btn btn--primary' : quiet ? 'btn btn--ghost' : 'btn'}
      disabled={busy}
      aria-busy={busy || undefined}
      onClick={() => void run(server, action)}
    >
      {label}
    </button>
  )
}

function ApproveAllButton({ server }: { server: string }) {
  const busy = useApp((s) => Boolean(s.busy[busyKey('approve-all', server)]))
  const run = useApp((s) => s.approveAll)
  return (
    <button type="button" className="btn btn--primary" disabled={busy} aria-busy={busy || undefined} onClick={() => void run(server)}>
      Approve all
    </button>
  )
}

export function ServerActions({ server }: { server: ServerInfo }) {
  const { name, quarantined, enabled, state } = server
  const pending = server.counts.pending_approval ?? 0
  const operatorHold = quarantined && server.quarantine_source === 'config'
  return (
    <div className="actions">
      {quarantined && <ActionButton server={name} action="inspect" label="Inspect" />}
      {quarantined && !operatorHold && <ActionButton server={name} action="approve" label="Approve server" primary />}
      {!quarantined && pending > 0 && <ApproveAllButton server={name} />}
      {enabled && !quarantined && (state === 'error' || state === 'stopped') && <ActionButton server={name} action="restart" label="Restart server" />}
      {enabled ? (
        <ActionButton server={name} action="disable" label="Disable server" />
      ) : (
        <ActionButton server={name} action="enable" label="Enable server" primary={!quarantined} />
      )}
      {!quarantined && <ActionButton server={name} action="quarantine" label="Quarantine server" quiet />}
    </div>
  )
}
