// Who added a server, when an agent did: the Servers view's card and a request that
// would approve the server say so, so the user knows the launch under review came from an agent
// (which one, and the client its session named), not from them or their config.
import type { ServerInfo } from '../../shared/api'

/** "agent “claude” (client: claude-code)", "a session without an agent (client: cursor)". */
export function addedByText(by: NonNullable<ServerInfo['added_by']>): string {
  const who = by.agent === null ? 'a session without an agent' : `agent “${by.agent}”`
  return by.client ? `${who} (client: ${by.client})` : who
}

export function AddedBy({ server }: { server: ServerInfo }) {
  if (!server.added_by) return null
  return (
    <p className="small added-by" data-added-by={server.added_by.agent ?? ''}>
      <strong>Added by {addedByText(server.added_by)}</strong>, not by you or your config.
    </p>
  )
}
