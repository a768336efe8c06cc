// What the user reviews before granting a request: the server's launch (command line or URL) and
// isolation for a server that is off or in quarantine, the review of a new or changed tool (the
// same ToolReview as the Servers view: every changed field), the (untrusted) description of a
// switched-off tool. `ready` is false until the review
// has what it shows, and the grant buttons wait for it: never a blind grant. A server in
// quarantine shows its whole launch, and the grant carries that launch's launch_hash
// (`reviewedLaunch`): a launch changed meanwhile is refused, never approved unseen.
import { useEffect } from 'react'
import type { GrantOptions, ServerInfo } from '../../shared/api'
import type { AccessRequest } from '../../shared/requests'
import { useApp } from '../store/context'
import { ToolReview } from './ToolReview'
import { Visible } from './Visible'
import { IsolationBadge } from './ServerIsolation'
import { LaunchDetails } from './Launch'

/**
 * The launch_hash to send with a grant: always that of the launch on screen. A server shown as
 * approved may be in quarantine by the time the grant arrives (its launch changed behind the
 * window), and the grant would then approve a launch nobody saw; with the hash it is refused.
 */
export function reviewedLaunch(server: ServerInfo | undefined): GrantOptions | undefined {
  return server ? { hash: server.launch_hash } : undefined
}

export function useReviewReady(req: AccessRequest): boolean {
  const server = useApp((s) => s.servers.find((x) => x.name === req.server))
  const tools = useApp((s) => s.tools[req.server])
  const serverLevel = req.lock === 'server_disabled' || req.lock === 'server_quarantined'
  return server !== undefined && (serverLevel || tools !== undefined)
}

export function RequestReview({ req }: { req: AccessRequest }) {
  const server = useApp((s) => s.servers.find((x) => x.name === req.server))
  const tools = useApp((s) => s.tools[req.server])
  const loadTools = useApp((s) => s.loadTools)
  useEffect(() => {
    if (tools === undefined) void loadTools(req.server)
  }, [tools, loadTools, req.server])
  if (!server) return <p className="muted small">Loading the server…</p>
  const tool = tools?.find((t) => t.tool === req.tool)
  // a server put in quarantine after the request (its launch changed) is reviewed as a server too
  const serverLevel = req.lock === 'server_disabled' || req.lock === 'server_quarantined' || server.quarantined
  const approves = server.quarantined
  return (
    <div className="request-review" data-review={req.lock}>
      {serverLevel && (
        <>
          <p className="small">{approves ? 'Granting approves this server, which is in quarantine. How it starts:' : 'Granting switches this server on:'}</p>
          <p className="launch">
            <span className="muted small">Launch</span> <code>{server.target}</code> <IsolationBadge server={server} />
          </p>
          {approves && <LaunchDetails launch={server.launch} />}
          {approves && (
            <p className="muted small">
              {tools && tools.length > 0
                ? `Inspected tools: ${tools.map((t) => t.tool).join(', ')}.`
                : 'Its tools are not known yet: Inspect it in the Servers view to list them first.'}
            </p>
          )}
        </>
      )}
      {!serverLevel && tool && tool.approval.status !== 'approved' && (
        <>
          {tool.approval.status === 'pending' && <p className="small muted">New tool, not reviewed yet:</p>}
          <ToolReview tool={tool} />
        </>
      )}
      {!serverLevel && tool && tool.approval.status === 'approved' && (
        <p className="small">
          <span className="muted">Description: </span>
          {tool.description ? <Visible text={tool.description} /> : <em className="muted">(no description)</em>}
        </p>
      )}
      {!serverLevel && tools !== undefined && !tool && <p className="muted small">This tool is not known on {req.server}.</p>}
    </div>
  )
}
