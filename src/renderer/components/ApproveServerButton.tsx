// Approve server: the primary step only once the server's tools have been seen (after
// Inspect, or a server approved before). Approving blind stays possible, behind a confirmation that
// says the first tool list the server gives will be trusted as it is; the same for approving it for
// a time (its clock ▾ menu). Every approval carries the launch_hash of the launch shown.
import { useState, type ReactNode } from 'react'
import type { ServerInfo } from '../../shared/api'
import { useApp } from '../store/context'
import { busyKey } from '../store/store'
import { ConfirmDialog } from './ConfirmDialog'
import { TimedMenu } from './TimedMenu'
import { AddedBy } from './AddedBy'

/** Whether the user can have seen this server's tools: the catalog knows some (inspected, or approved before). */
export function toolsSeen(server: ServerInfo): boolean {
  return Object.entries(server.counts).some(([, n]) => (n ?? 0) > 0)
}

export function ApproveServerButton({ server }: { server: ServerInfo }) {
  const busy = useApp((s) => Boolean(s.busy[busyKey('server', server.name, 'approve', '')]))
  const timedBusy = useApp((s) => Boolean(s.busy[busyKey('server', server.name, 'approve', 'for')]))
  const run = useApp((s) => s.serverAction)
  /** the approval waiting for the blind-approval answer (for good, or for a time), with the launch shown when it was asked */
  const [asking, setAsking] = useState<{ for?: string; hash: string } | null>(null)
  const seen = toolsSeen(server)
  // the launch shown on this card is the one approved: a launch changed since is refused (409), never approved unseen
  const approve = (a: { for?: string; hash: string }) => void run(server.name, 'approve', { ...(a.for ? { for: a.for } : {}), hash: a.hash })
  const hash = server.launch_hash
  return (
    <>
      <button
        type="button"
        className={seen ? 'btn btn--primary' : 'btn'}
        disabled={busy}
        aria-busy={busy || undefined}
        onClick={() => (seen ? approve({ hash }) : setAsking({ hash }))}
      >
        Approve server
      </button>
      <TimedMenu
        label={`Approve server ${server.name} for a time`}
        disabled={timedBusy}
        onPick={(f) => (seen ? approve({ for: f, hash }) : setAsking({ for: f, hash }))}
      />
      {asking && (
        <BlindApprovalDialog
          server={server}
          onCancel={() => setAsking(null)}
          onConfirm={() => {
            setAsking(null)
            approve(asking)
          }}
        />
      )}
    </>
  )
}

/**
 * The blind-approval question: approving a server nobody inspected trusts the first tool list it
 * gives (never its prompts or resource templates: none was shown, so each waits; inspected-lists.ts). Asked by Approve server and by a request grant that would approve such a server.
 */
export function BlindApprovalDialog({
  server,
  onConfirm,
  onCancel,
  children,
}: {
  server: ServerInfo
  onConfirm: () => void
  onCancel: () => void
  children?: ReactNode
}) {
  return (
    <ConfirmDialog title={`Approve ${server.name} without inspecting it?`} confirmLabel="Approve without inspecting" onCancel={onCancel} onConfirm={onConfirm}>
      <p data-approve-blind={server.name}>
        Nobody has seen this server&apos;s tools yet. Toolgate will start it and <strong>trust the first tool list it gives</strong>: every tool it lists
        becomes callable by agents at once, without a review. Only later changes wait for your approval. Its prompts and resource templates are not trusted this
        way: each waits for your review.
      </p>
      <AddedBy server={server} />
      {children}
      <p>Inspect first to see its tools, then approve exactly those.</p>
    </ConfirmDialog>
  )
}
