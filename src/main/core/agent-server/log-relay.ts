// Upstream log messages for agents (docs/passthrough.md): a 2025 session that sets a level with
// logging/setLevel hears notifications/message of the servers it may read (in its scope, not
// locked: a quarantined or switched-off server's text reaches no agent), at that level and above,
// rate-limited, masked and escaped (upstream/server-logs.ts), each naming its server in `logger`
// ("<server>" or "<server>/<its logger>"). A session that never set a level hears none. A message
// that came while a call was in flight on that server is the caller's (upstream/log-readers.ts): the
// session hears it only when the call was its agent's and alone there; another agent's call's message
// (it may hold that agent's arguments or results) and one from several calls at once reach nobody.
// 2026-07-28 has no session: a request asks for log messages in its envelope and hears them on its
// own stream (request-logs.ts).
import { ProtocolError, ProtocolErrorCode, type LoggingLevel, type Server } from '@modelcontextprotocol/server'
import { decideServer } from '../access/decide'
import type { Scope } from '../access/scope'
import type { Catalog } from '../catalog/catalog'
import { loggerName } from './request-logs'
import { readerOf } from '../upstream/log-readers'
import { LOG_LEVELS, type ServerLogMessage, type ServerLogs } from '../upstream/server-logs'

export function relayLogs(server: Server, catalog: Catalog, logs: ServerLogs, scope: Scope, gone: () => string): void {
  let level: LoggingLevel | null = null
  let stop: (() => void) | null = null
  const hear = (m: ServerLogMessage): void => {
    if (level === null || LOG_LEVELS.indexOf(m.level) < LOG_LEVELS.indexOf(level)) return
    const owner = m.request ?? null
    if (owner !== null && owner !== readerOf(scope.agent)) return
    if (!scope.active() || decideServer(catalog, scope, m.server, 'read').kind !== 'open') return
    const logger = loggerName(m.server, m.logger)
    void server.notification({ method: 'notifications/message', params: { level: m.level, logger, data: m.data } }).catch(() => {})
  }
  server.setRequestHandler('logging/setLevel', async (req) => {
    if (!scope.active()) throw new ProtocolError(ProtocolErrorCode.InvalidRequest, gone())
    level = req.params.level
    stop ??= logs.listen(hear)
    return {}
  })
  const previous = server.onclose
  server.onclose = () => {
    previous?.()
    stop?.()
    stop = null
  }
}
