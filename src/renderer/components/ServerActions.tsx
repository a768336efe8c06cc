// The server-level buttons: only the ones that make sense for the server's situation.
import { useEffect, useState } from 'react'
import type { ServerInfo } from '../../shared/api'
import type { ServerAction, ServerActionOptions } from '../../shared/actions'
import { useApp } from '../store/context'
import { busyKey } from '../store/store'
import { InspectDialog } from './InspectDialog'
import { ApproveServerButton, toolsSeen } from './ApproveServerButton'
import { isFailing } from '../../shared/summary'
import { TimedMenu } from './TimedMenu'
import { SignInButton, SignOutButton } from './ServerSignIn'
import { ApproveAllButton } from './ApproveAllButton'

interface ActionProps {
  server: string
  action: ServerAction
  label: string
  primary?: boolean
  quiet?: boolean
  /** a risky variant (e.g. Inspect with network): styled as a risk, explained in the tooltip */
  risk?: string
  options?: ServerActionOptions
}

function ActionButton({ server, action, label, primary, quiet, risk, options }: ActionProps) {
  const busy = useApp((s) => Boolean(s.busy[busyKey('server', server, action, options?.network ? 'network' : options?.for ? 'for' : '')]))
  const run = useApp((s) => s.serverAction)
  return (
    <button
      type="button"
      className={primary ? 'btn btn--primary' : quiet ? 'btn btn--ghost' : risk ? 'btn btn--risk' : 'btn'}
      disabled={busy}
      aria-busy={busy || undefined}
      title={risk}
      onClick={() => void run(server, action, options)}
    >
      {label}
    </button>
  )
}

/**
 * While an Inspect runs: that it runs, what it waits for, for how long so far and
 * at most; a dimmed button alone said nothing for up to 30 s (3 min for npx/uvx).
 */
function InspectProgress({ server }: { server: ServerInfo }) {
  const plain = useApp((s) => Boolean(s.busy[busyKey('server', server.name, 'inspect', '')]))
  const network = useApp((s) => Boolean(s.busy[busyKey('server', server.name, 'inspect', 'network')]))
  const running = plain || network
  const [since, setSince] = useState<number | null>(null)
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (!running) return setSince(null)
    setSince(Date.now())
    setNow(Date.now())
    const t = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(t)
  }, [running])
  if (!running || !server.inspect) return null
  const seconds = since === null ? 0 : Math.max(0, Math.floor((now - since) / 1000))
  return (
    <p className="inspect-progress small" role="status" data-inspect-progress={server.name}>
      <span className="spinner" aria-hidden="true" />
      Inspecting{network ? ' with network' : ''}: {server.inspect.waits_for}… {seconds} s (gives up after {server.inspect.timeout_s} s)
    </p>
  )
}

/** Inspect asks first: it runs the program (or connects), and the user sees exactly what. */
function InspectButton({ server, network = false, primary = false }: { server: ServerInfo; network?: boolean; primary?: boolean }) {
  const options: ServerActionOptions = network ? { network: true } : {}
  const busy = useApp((s) => Boolean(s.busy[busyKey('server', server.name, 'inspect', network ? 'network' : '')]))
  const run = useApp((s) => s.serverAction)
  const [asking, setAsking] = useState(false)
  const risk = network ? 'Risk: lets this unreviewed server reach the network (e.g. for npx to download it). It stays sandboxed otherwise.' : undefined
  return (
    <>
      <button
        type="button"
        className={risk ? 'btn btn--risk' : primary ? 'btn btn--primary' : 'btn'}
        title={risk}
        disabled={busy}
        aria-busy={busy || undefined}
        onClick={() => setAsking(true)}
      >
        {network ? 'Inspect with network' : 'Inspect'}
      </button>
      {asking && (
        <InspectDialog
          server={server}
          network={network}
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false)
            // runs the launch the dialog showed, or nothing (409 when it changed meanwhile)
            void run(server.name, 'inspect', { ...options, hash: server.launch_hash })
          }}
        />
      )}
    </>
  )
}

/** Enable server / Approve server for a time. */
function ForATime({ server, action, label }: { server: string; action: 'enable' | 'approve'; label: string }) {
  const busy = useApp((s) => Boolean(s.busy[busyKey('server', server, action, 'for')]))
  const run = useApp((s) => s.serverAction)
  return <TimedMenu label={`${label} ${server} for a time`} disabled={busy} onPick={(f) => void run(server, action, { for: f })} />
}

function ManageButtons({ server }: { server: string }) {
  const openDialog = useApp((s) => s.openDialog)
  return (
    <>
      <button type="button" className="btn btn--ghost" onClick={() => openDialog({ kind: 'edit', server })}>
        Edit server
      </button>
      <button type="button" className="btn btn--ghost" onClick={() => openDialog({ kind: 'remove', server })}>
        Remove server
      </button>
    </>
  )
}

export function ServerActions({ server }: { server: ServerInfo }) {
  const { name, quarantined, enabled, state } = server
  const pending = server.counts.pending_approval ?? 0
  const operatorHold = quarantined && (server.quarantine_source === 'config' || server.quarantine_source === 'organisation')
  // the organisation's policy does not let it run: nothing here can switch it on or run it
  const blocked = server.organisation?.blocked !== undefined
  // the core keeps the offer too (a reload of the window keeps it); the store has it at once
  const offlineFailed = useApp((s) => Boolean(s.inspectOffline[name])) || server.inspect?.offline_failure !== undefined
  return (
    <div className="actions">
      <SignInButton server={server} />
      {/* the first step of a review is to look: Inspect is primary until the tools have been seen */}
      {quarantined && !blocked && <InspectButton server={server} primary={!operatorHold && !toolsSeen(server)} />}
      {quarantined && !blocked && offlineFailed && <InspectButton server={server} network />}
      {quarantined && !blocked && <InspectProgress server={server} />}
      {quarantined && !operatorHold && !blocked && <ApproveServerButton server={server} />}
      {!quarantined && pending > 0 && <ApproveAllButton server={name} />}
      {enabled && !quarantined && (isFailing(server) || state === 'stopped') && (
        // the way out of a failure: the primary action of a failing server
        <ActionButton server={name} action="restart" label="Restart server" primary={isFailing(server)} />
      )}
      {enabled ? (
        <ActionButton server={name} action="disable" label="Disable server" />
      ) : blocked ? null : (
        <>
          <ActionButton server={name} action="enable" label="Enable server" primary={!quarantined} />
          <ForATime server={name} action="enable" label="Enable server" />
        </>
      )}
      <SignOutButton server={server} />
      {!quarantined && <ActionButton server={name} action="quarantine" label="Quarantine server" quiet />}
      <ManageButtons server={name} />
    </div>
  )
}
