// One attempt to open an upstream's connection, as the supervisor makes it: the launch plan (its
// secrets resolved, the sandbox's say), the OAuth session, the transport, and the first tools/list
// the connection must answer before it may go live. What follows (live, a retry, giving up) is
// the supervisor's (supervisor.ts).
import type { ServerConfig } from '../../../shared/config-schema'
import type { Logger } from '../log'
import type { SecretMask } from '../masking/secret-mask'
import { refusal } from '../oauth/errors'
import type { UpstreamAuth } from '../oauth/session'
import { launchEntry } from './launch-entry'
import { grantRefusal } from './sandbox'
import type { ConnectionHooks, UpstreamConnection } from './connection'
import { openConnection } from './open'
import { errorText } from './sdk-errors'
import type { ToolListing } from './tools'
import type { TransportKind, UpstreamOptions } from './types'

/** How an attempt ended. */
export type AttemptResult =
  /** supervision started or stopped since: abandoned (its connection closed) */
  | { outcome: 'cancelled' }
  /** the launch plan refused it (a secret that cannot be resolved, the organisation's policy, …): `log` for the log, `error` for the state */
  | { outcome: 'unlaunchable'; log: string; error: string }
  /** no sign-in and no retry can help: its OAuth setup is refused, its sandbox plan refuses a grant or its program's place */
  | { outcome: 'refused'; message: string }
  /** it failed; a retry may help */
  | { outcome: 'failed'; reason: string }
  /** open and listed: it may go live */
  | { outcome: 'open'; conn: UpstreamConnection; listing: ToolListing }

export interface AttemptOptions {
  config: ServerConfig
  opts: UpstreamOptions
  log: Logger
  hooks: ConnectionHooks
  timeoutMs: number
  /** the transports to try (undefined: every one the config allows) */
  kinds: TransportKind[] | undefined
  /** masks the server's secrets as of its last launch */
  redact: (text: string) => string
  isCancelled(): boolean
  /** the launch plan's mask and redactor: the server's secrets as of this launch */
  launched(mask: SecretMask, redact: (text: string) => string): void
  /** the OAuth session of this connection (HTTP), or null */
  auth(config: ServerConfig): UpstreamAuth | null
  /** the connection being opened, or null once there is none */
  opening(conn: UpstreamConnection | null): void
  /** the connection opened; its first tools/list begins */
  listing(conn: UpstreamConnection): void
}

const CANCELLED: AttemptResult = { outcome: 'cancelled' }

export async function attemptConnection(a: AttemptOptions): Promise<AttemptResult> {
  const launch = launchEntry(a.config, a.opts, a.redact)
  if (!launch.ok) return a.isCancelled() ? CANCELLED : { outcome: 'unlaunchable', log: launch.log, error: launch.error }
  a.launched(launch.mask, launch.redact)
  const auth = a.auth(launch.config)
  let conn: UpstreamConnection
  try {
    conn = await openConnection(
      launch.config,
      {
        logger: a.log,
        limits: a.opts.limits,
        timeoutMs: a.timeoutMs,
        kinds: a.kinds,
        sandbox: a.opts.sandbox,
        secretValues: launch.secretValues,
        auth,
        mask: launch.mask,
      },
      a.hooks,
      {
        isCancelled: a.isCancelled,
        onCreated: (c) => {
          if (!a.isCancelled()) a.opening(c)
        },
      },
    )
  } catch (err) {
    if (a.isCancelled()) return CANCELLED
    a.opening(null)
    const refused = refusal(err) ?? grantRefusal(err)
    return refused ? { outcome: 'refused', message: refused.message } : { outcome: 'failed', reason: errorText(err) }
  }
  if (a.isCancelled()) {
    await conn.close()
    return CANCELLED
  }
  a.listing(conn)
  let listing: ToolListing
  try {
    listing = await conn.listTools(a.timeoutMs)
  } catch (err) {
    const why = conn.reason ?? errorText(err) // before close(), which kills the process
    await conn.close()
    if (a.isCancelled()) return CANCELLED
    a.opening(null)
    return { outcome: 'failed', reason: `tools/list failed: ${why}` }
  }
  if (a.isCancelled()) {
    await conn.close()
    return CANCELLED
  }
  a.opening(null)
  if (!conn.isOpen) return { outcome: 'failed', reason: conn.reason ?? 'connection closed right after connecting' }
  return { outcome: 'open', conn, listing }
}
