// The log level an agent's 2026-07-28 request asked for (docs/passthrough.md, log messages), handed
// down with that request's relayed work (the `owner` of a relay or a tool call): the upstream
// connection asks a 2026-07-28 server for log messages at that level on the relayed request (the
// `io.modelcontextprotocol/logLevel` key of its envelope), and notes which servers the request
// reached, so that the agent hears the log messages of those servers only (agent/request-logs.ts).
// Passed as an argument, not kept in an AsyncLocalStorage: on Node 20 one AsyncLocalStorage in use
// puts a hook on every promise of the process (≈4 % of the CPU of a call; docs/benchmarks.md).
import type { LoggingLevel } from '@modelcontextprotocol/client'

export class RequestLogs {
  /** the servers this request sent something to */
  readonly servers = new Set<string>()

  constructor(readonly level: LoggingLevel) {}
}

/**
 * Whose relayed request this is, for the server's log messages that come while it runs
 * (log-readers.ts): a 2026-07-28 request that asked for them (RequestLogs), or an agent's key
 * (readerOf). Absent: nobody's (a request of Toolgate's own, a listing).
 */
export type LogOwner = RequestLogs | object
