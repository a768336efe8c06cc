// Upstream log messages for a 2026-07-28 agent (docs/passthrough.md, log messages): there is no
// session to set a level on; a request asks for log messages with the `io.modelcontextprotocol/logLevel`
// key of its envelope, and the server sends them on that request's own stream while it runs
// (without the key, none). Toolgate does the same for the requests it relays (a tool call, a prompt,
// a resource read, a completion): the servers the request reached (upstream/request-logs.ts) send
// their messages to it at that level and above (a message that came while another request was in
// flight there too is nobody's: upstream/log-readers.ts), masked and escaped (upstream/server-logs.ts), each
// naming its server in `logger`, and only while the server is one the agent may read.
import { LOG_LEVEL_META_KEY, type LoggingLevel, type ServerContext } from '@modelcontextprotocol/server'
import { decideServer } from '../access/decide'
import type { Scope } from '../access/scope'
import type { Catalog } from '../catalog/catalog'
import { LOG_LEVELS, type ServerLogs } from '../upstream/server-logs'
import { RequestLogs, type LogOwner } from '../upstream/request-logs'
import { readerOf } from '../upstream/log-readers'

const isLevel = (v: unknown): v is LoggingLevel => typeof v === 'string' && (LOG_LEVELS as readonly string[]).includes(v)

/** The `logger` an agent sees: the server's name, then the server's own logger. */
export function loggerName(server: string, logger: string | undefined): string {
  return logger ? `${server}/${logger}` : server
}

/**
 * Runs a request's work, which passes `owner` on to what it relays (Upstream.relay / callTool):
 * when the request asked for log messages (2026-07-28), the servers it reaches send theirs on its
 * stream. Otherwise it is relayed as a request of its agent, so that a message of its call alone
 * reaches that agent's 2025 sessions only (log-relay.ts).
 */
export async function withRequestLogs<T>(
  ctx: Pick<ServerContext, 'mcpReq'>,
  scope: Scope,
  catalog: Catalog,
  logs: ServerLogs | undefined,
  work: (owner: LogOwner) => Promise<T>,
): Promise<T> {
  // the SDK types the envelope as {}: read as a record
  const envelope: Record<string, unknown> | undefined = ctx.mcpReq.envelope
  const level = envelope?.[LOG_LEVEL_META_KEY]
  if (!logs || !isLevel(level)) return work(readerOf(scope.agent))
  const asked = new RequestLogs(level)
  const sending: Array<Promise<void>> = []
  const stop = logs.listen((m) => {
    // only a message that came while this request was the only one in flight on its server: with
    // another agent's call there too, it may hold that agent's arguments or results (log-readers.ts)
    if (m.request !== asked || !asked.servers.has(m.server) || LOG_LEVELS.indexOf(m.level) < LOG_LEVELS.indexOf(level)) return
    if (!scope.active() || decideServer(catalog, scope, m.server, 'read').kind !== 'open') return
    const params = { level: m.level, logger: loggerName(m.server, m.logger), data: m.data }
    sending.push(ctx.mcpReq.notify({ method: 'notifications/message', params }).catch(() => {}))
  })
  try {
    return await work(asked)
  } finally {
    stop()
    // over HTTP the request's stream ends with its result: the messages go first
    await Promise.all(sending)
  }
}
