// What the user reviews before granting a request: the server's launch (command line or URL) and
// isolation for a server that is off or in quarantine, the review of a new or changed tool (the
// same ToolReview as the Servers view: every changed field), the (untrusted) description of a
// switched-off tool. `ready` is false until the review has what it shows, and the grant buttons
// wait for it: never a blind grant. Every grant carries the hash of what is on screen
// (`reviewedHash`): the launch_hash when it acts on the server, the tool's definition hash when it
// acts on the tool; a launch or definition changed meanwhile is refused, never approved unseen.
import { useEffect } from 'react'
import type { ServerInfo, ToolInfo } from '../../shared/api'
import type { GrantOptions } from '../../shared/actions'
import type { AccessRequest } from '../../shared/requests'
import { useApp } from '../store/context'
import { ToolReview } from './ToolReview'
import { Visible } from './Visible'
import { IsolationBadge } from './ServerIsolation'
import { LaunchDetails } from './Launch'
import { AddedBy } from './AddedBy'

/** A grant on this server acts on the server itself (switches it on, approves it): the core's rule, on what the window shows now. */
export function grantsServer(server: ServerInfo): boolean {
  return !server.enabled || server.quarantined
}

/**
 * The hash to send with a grant: always that of what is on screen. For a server that is off or in
 * quarantine, its launch_hash (a server shown as approved may be in quarantine by the time the
 * grant arrives; the grant would then approve a launch nobody saw, and with the hash it is
 * refused); for a tool of a running server, the definition shown (a tool that changed again
 * since is refused, 409 definition_changed).
 */
export function reviewedHash(server: ServerInfo | undefined, tool: ToolInfo | undefined): GrantOptions | undefined {
  if (!server) return undefined
  if (grantsServer(server) || !tool) return { hash: server.launch_hash }
  return { hash: tool.approval.hash }
}

export function useReviewReady(req: AccessRequest): boolean {
  const server = useApp((s) => s.servers.find((x) => x.name === req.server))
  const tools = useApp((s) => s.tools[req.server])
  // a grant on a running server acts on the tool: its review (the tool list) must be there
  return server !== undefined && (grantsServer(server) || tools !== undefined)
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
  // what the grant acts on now: a server put in quarantine or switched off after the request is reviewed as a server
  const serverLevel = grantsServer(server)
  const approves = server.quarantined
  return (
    <div className="request-review" data-review={req.lock}>
      {serverLevel && (
        <>
          <p className="small">{approves ? 'Granting approves this server, which is in quarantine. How it starts:' : 'Granting switches this server on:'}</p>
          <p className="launch">
            <span className="muted small">Launch</span> <code>{server.target}</code> <IsolationBadge server={server} />
          </p>
          <AddedBy server={server} />
          {approves && <LaunchDetails launch={server.launch} />}
          {approves && (
            <p className="muted small">
              {tools && tools.length > 0
                ? `Inspected tools: ${tools.map((t) => t.tool).join(', ')}.`
                : 'Its tools are not known yet: Inspect it in the Servers view to list them first.'}
            </p>
          )}
          {tool && (tool.approval.status === 'changed' || tool.approval.status === 'unknown') && (
            <p className="muted small" data-stays-locked={tool.name}>
              {req.tool} itself stays locked: its {tool.approval.status === 'changed' ? 'change' : 'definition'} is not part of this grant and waits for its own
              review.
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
