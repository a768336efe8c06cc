// Approve all: no one-click way around the review. New tools (no version approved
// before) are approved together in one click; when a changed tool waits too (a rug pull: its
// description now tells the model to do something else), the click first shows each changed
// tool's review (the same ToolReview as its row) and asks. Either way the window sends the hash of
// every definition it showed, so a tool that changes again meanwhile is refused, not approved.
import { useEffect, useState } from 'react'
import type { ToolInfo } from '../../shared/api'
import { useApp } from '../store/context'
import { busyKey } from '../store/store'
import { ConfirmDialog } from './ConfirmDialog'
import { ToolReview } from './ToolReview'
import { Visible } from './Visible'

/** The tools Approve all acts on: waiting, and not rejected (a rejected definition stays rejected). */
export function waitingTools(tools: readonly ToolInfo[]): ToolInfo[] {
  return tools.filter((t) => t.approval.status !== 'approved' && t.approval.rejected_at === undefined)
}

/** A waiting tool that has a previous version to compare (changed), or lost its approval with the state (unknown): reviewed one by one. */
export const needsOwnReview = (t: ToolInfo): boolean => t.approval.status === 'changed' || t.approval.status === 'unknown'

const hashesOf = (tools: readonly ToolInfo[]): Record<string, string> => Object.fromEntries(tools.map((t) => [t.tool, t.approval.hash]))

export function ApproveAllButton({ server }: { server: string }) {
  const busy = useApp((s) => Boolean(s.busy[busyKey('approve-all', server)]))
  const run = useApp((s) => s.approveAll)
  const tools = useApp((s) => s.tools[server])
  const loadTools = useApp((s) => s.loadTools)
  const [asking, setAsking] = useState(false)
  // what a click would approve must be on hand: the server's tools, as shown in its list
  useEffect(() => {
    if (tools === undefined) void loadTools(server)
  }, [tools, loadTools, server])
  const waiting = tools ? waitingTools(tools) : []
  const changed = waiting.filter(needsOwnReview)
  const fresh = waiting.filter((t) => !needsOwnReview(t))
  return (
    <>
      <button
        type="button"
        className="btn btn--primary"
        disabled={busy || tools === undefined}
        aria-busy={busy || undefined}
        onClick={() => (changed.length ? setAsking(true) : void run(server, { hashes: hashesOf(waiting) }))}
      >
        Approve all
      </button>
      {asking && (
        <ConfirmDialog
          title={`Approve ${waiting.length} tool${waiting.length === 1 ? '' : 's'} of ${server}?`}
          confirmLabel={`Approve these ${waiting.length}`}
          marker={{ 'data-approve-all': server }}
          onCancel={() => setAsking(false)}
          onConfirm={() => {
            setAsking(false)
            void run(server, { hashes: hashesOf(waiting) })
          }}
        >
          <p>
            {changed.length === 1 ? 'One tool changed' : `${changed.length} tools changed`} since you approved {changed.length === 1 ? 'it' : 'them'} (or lost
            the approval). Agents will read and call the new definitions exactly as shown: look at what changed before you approve.
          </p>
          <div className="approve-all-reviews">
            {changed.map((t) => (
              <section key={t.name} className="approve-all-review" data-approve-all-review={t.name}>
                <h3>
                  <code>
                    <Visible text={t.tool} />
                  </code>
                </h3>
                <ToolReview tool={t} />
              </section>
            ))}
          </div>
          {fresh.length > 0 && (
            <p className="small">
              <span className="muted">New, approved with them: </span>
              {fresh.map((t, i) => (
                <span key={t.name}>
                  {i > 0 && ', '}
                  <code>
                    <Visible text={t.tool} />
                  </code>
                </span>
              ))}
            </p>
          )}
        </ConfirmDialog>
      )}
    </>
  )
}
