// Opening a connection to a server: each transport of its config in turn, and a stdio server that
// exits on the era probe started once more with `initialize` only.
import type { ServerConfig } from '../../../shared/config-schema'
import { needsSignIn, refusal } from '../oauth/errors'
import { grantRefusal } from './sandbox'
import { UpstreamConnection, type ConnectionHooks, type ConnectionOptions } from './connection'
import { errorText } from './sdk-errors'
import { transportKinds } from './transport'
import type { TransportKind } from './types'

/**
 * Try each transport of the config in turn (auto: Streamable HTTP, then SSE). A stdio server that
 * exits before the handshake ends is started once more with `initialize` only: some 2025 servers
 * exit on any request before `initialize`, such as the era probe (`server/discover`).
 */
export async function openConnection(
  config: ServerConfig,
  opts: Omit<ConnectionOptions, 'connectTimeoutMs'> & { timeoutMs: number; kinds?: TransportKind[] },
  hooks: ConnectionHooks,
  track: { isCancelled(): boolean; onCreated(conn: UpstreamConnection): void } = { isCancelled: () => false, onCreated: () => undefined },
): Promise<UpstreamConnection> {
  const kinds = opts.kinds ?? transportKinds(config)
  const failures: string[] = []
  for (const kind of kinds) {
    if (track.isCancelled()) break
    const negotiations: Array<'auto' | 'legacy'> = opts.negotiation === 'legacy' ? ['legacy'] : ['auto', 'legacy']
    for (const negotiation of negotiations) {
      if (track.isCancelled()) break
      let conn: UpstreamConnection
      try {
        conn = new UpstreamConnection(config, kind, { ...opts, connectTimeoutMs: opts.timeoutMs, negotiation }, hooks)
        track.onCreated(conn)
      } catch (err) {
        // its sandbox plan refuses the launch (a grant, its program's place): no transport or retry changes that
        const refused = grantRefusal(err)
        if (refused) throw refused
        failures.push(kinds.length > 1 ? `${kind}: ${errorText(err)}` : errorText(err))
        break
      }
      try {
        await conn.open(opts.timeoutMs)
        return conn
      } catch (err) {
        // the server needs sign-in, or no sign-in can help: another transport would only ask again
        const signIn = opts.auth?.needsSignIn ?? needsSignIn(err)
        if (signIn) throw signIn
        const refused = opts.auth?.refused ?? refusal(err)
        if (refused) throw refused
        if (kind === 'stdio' && negotiation === 'auto' && conn.exitedInHandshake) {
          opts.logger.info(`the server exited during the protocol handshake (${errorText(err)}); starting it again with initialize only`)
          continue
        }
        failures.push(kinds.length > 1 ? `${kind}: ${errorText(err)}` : errorText(err))
        break
      }
    }
  }
  throw new Error(failures.join('; ') || 'cancelled')
}
