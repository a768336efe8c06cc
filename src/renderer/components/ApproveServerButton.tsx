// Approve server (issue 14): the primary step only once the server's tools have been seen (after
// Inspect, or a server approved before). Approving blind stays possible, behind a confirmation that
// says the first tool list the server gives will be trusted as it is.
import { useState } from 'react'
import type { ServerInfo } from '../../shared/api'
import { useApp } from '../store/context'
import { busyKey } from '../store/store'
import { ConfirmDialog } from './ConfirmDialog'

/** Whether the user can have seen this server's tools: the catalog knows some (inspected, or approved before). */
export function toolsSeen(server: ServerInfo): boolean {
  return Object.entries(server.counts).some(([, n]) => (n ?? 0) > 0)
}

export function ApproveServerButton({ server }: { server: ServerInfo }) {
  const busy = useApp((s) => Boolean(s.busy[busyKey('server', server.name, 'approve', '')]))
  const run = useApp((s) => s.serverAction)
  const [asking, setAsking] = useState(false)
  const seen = toolsSeen(server)
  return (
    <>
      <button
        type="button"
        className={seen ? 'btn btn--primary' : 'btn'}
        disabled={busy}
        aria-busy={busy || undefined}
        onClick={() => (seen ? void run(server.name, 'approve') : setAsking(true))}
      >
        Approve server
      </button>
      {asking && (
        <ConfirmDialog
          title={`Approve ${server.name} without inspecting it?`}
          confirmLabel="Approve without inspecting"
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false)
            void run(server.name, 'approve')
          }}
        >
          <p data-approve-blind={server.name}>
            Nobody has seen this server&apos;s tools yet. Toolgate will start it and <strong>trust the first tool list it gives</strong>: every tool it lists
            becomes callable by agents at once, without a review. Only later changes wait for your approval.
          </p>
          <p>Inspect first to see its tools, then approve exactly those.</p>
        </ConfirmDialog>
      )}
    </>
  )
}
