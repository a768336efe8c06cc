// One calm sentence under a server header when its situation needs explaining.
import type { ServerInfo } from '../../shared/api'
import { isFailing } from '../../shared/summary'
import { LockIcon, PowerIcon, ShieldIcon } from './icons'
import { ServerError } from './ServerError'
import { offersSignIn, SignInNotice } from './ServerSignIn'
import { Visible } from './Visible'

export function ServerNotice({ server }: { server: ServerInfo }) {
  if (server.organisation?.blocked) {
    return (
      <p className="notice notice--lock" data-policy="organisation">
        <LockIcon />
        <span>
          Blocked: <Visible text={server.organisation.blocked} />. Ask your organisation&apos;s administrators.
        </span>
      </p>
    )
  }
  if (server.quarantined && server.quarantine_source === 'organisation') {
    return (
      <p className="notice notice--lock" data-policy="organisation">
        <LockIcon />
        <span>
          Held in quarantine: set by your organisation (its machine-wide policy). It can&apos;t be approved here; ask your organisation&apos;s administrators.
        </span>
      </p>
    )
  }
  if (server.quarantined && server.quarantine_source === 'config') {
    return (
      <p className="notice notice--lock">
        <LockIcon />
        <span>
          Held in quarantine by operator policy (<code>"quarantined": true</code> in mcp_config.json). It can't be approved here; ask whoever manages the
          Toolgate config.
        </span>
      </p>
    )
  }
  if (offersSignIn(server)) return <SignInNotice server={server} />
  if (server.quarantined) {
    // once an Inspect (or an earlier run) listed its tools, "not started" and "Inspect lists its tools" no longer fit
    const listed = Object.values(server.counts).some((n) => (n ?? 0) > 0)
    return (
      <p className="notice notice--warn">
        <ShieldIcon />
        <span>
          {server.quarantine_source === 'user'
            ? 'You put this server in quarantine. Agents cannot use it until you approve it again.'
            : listed
              ? 'New server, waiting for your review; agents cannot call it. Its tools are listed below: read them first.'
              : 'New server, waiting for your review. Toolgate has not started it and agents cannot call it.'}{' '}
          {listed ? (
            <>
              <strong>Approve server</strong> lets agents use it; <strong>Inspect</strong> starts it once again to list its tools anew.
            </>
          ) : (
            <>
              <strong>Inspect</strong> starts it once to list its tools; <strong>Approve server</strong> lets agents use it.
            </>
          )}
        </span>
      </p>
    )
  }
  if (!server.enabled) {
    return (
      <p className="notice notice--muted">
        <PowerIcon />
        <span>Switched off. Agents can still find its tools as locked, but cannot call them until you enable the server.</span>
      </p>
    )
  }
  if (isFailing(server)) return <ServerError server={server} />
  if (server.state === 'connecting') {
    return <p className="notice notice--muted">Connecting…</p>
  }
  return null
}
