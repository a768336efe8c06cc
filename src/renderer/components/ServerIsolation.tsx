// A server's isolation (docs/isolation.md): the badge beside its state, and the permissions it
// runs with, shown when the card is open. "Not isolated" is a risk and says why.
import type { ServerInfo } from '../../shared/api'
import { hiddenFromServer } from '../../shared/isolation-hidden'
import { Badge } from './Badge'
import { AlertIcon, ShieldIcon } from './icons'

const MECHANISM: Record<string, string> = { bwrap: 'bubblewrap', 'sandbox-exec': 'sandbox-exec' }

export function IsolationBadge({ server }: { server: ServerInfo }) {
  const iso = server.isolation
  if (iso.isolated) {
    const how = MECHANISM[iso.mechanism ?? ''] ?? iso.mechanism ?? 'a sandbox'
    return (
      <Badge tone="ok" icon={<ShieldIcon />} title={`Runs in a sandbox (${how}): it sees and changes only what it was allowed`}>
        isolated
      </Badge>
    )
  }
  if (!iso.risk)
    return (
      <Badge tone="muted" title={iso.reason}>
        remote
      </Badge>
    )
  return (
    <Badge tone="danger" icon={<AlertIcon />} title={iso.reason}>
      not isolated
    </Badge>
  )
}

export function ServerPermissions({ server }: { server: ServerInfo }) {
  const iso = server.isolation
  const p = iso.profile
  if (!iso.isolated && !iso.risk) {
    return <p className="notice notice--muted">Remote server: it runs elsewhere, so Toolgate's sandbox does not apply to it.</p>
  }
  return (
    <div className="permissions" aria-label={`Permissions of ${server.name}`}>
      {iso.network_risk && (
        <p className="notice notice--danger">
          <AlertIcon />
          <span>
            <strong>Network not isolated:</strong> {iso.network_risk}
          </span>
        </p>
      )}
      {!iso.isolated && (
        <p className="notice notice--danger">
          <AlertIcon />
          <span>
            <strong>Not isolated:</strong> {iso.reason}
          </span>
        </p>
      )}
      {p && (
        <dl>
          <dt>Network</dt>
          <dd data-permission="network">
            {Array.isArray(p.network)
              ? p.network.length
                ? `only ${p.network.join(', ')}`
                : 'off'
              : p.network
                ? iso.network_risk
                  ? 'on, shared with this machine (loopback included)'
                  : 'on, not your loopback'
                : 'off'}
          </dd>
          {p.loopback.length > 0 && (
            <>
              <dt>Local services</dt>
              <dd data-permission="loopback">{p.loopback.map((port) => `port ${port}`).join(', ')}</dd>
            </>
          )}
          <dt>Can change</dt>
          <dd data-permission="fs_write">{['its private temp folder', ...p.fs_write].join(', ')}</dd>
          {p.fs_read.length > 0 && (
            <>
              <dt>Can also read</dt>
              <dd data-permission="fs_read">{p.fs_read.join(', ')}</dd>
            </>
          )}
          <dt>Hidden from it</dt>
          <dd data-permission="hidden">{hiddenFromServer(iso.mechanism, iso.home_writable === true)}</dd>
          <dt>Everything else</dt>
          <dd>read-only</dd>
        </dl>
      )}
    </div>
  )
}
