// The log level an agent's 2026-07-28 request asked for (docs/passthrough.md, log messages), carried
// through the async work of that request: the upstream connection asks a 2026-07-28 server for
// log messages at that level on the relayed request (the `io.modelcontextprotocol/logLevel` key of
// its envelope), and notes which servers the request reached, so that the agent hears the log
// messages of those servers only (agent/request-logs.ts).
import { AsyncLocalStorage } from 'node:async_hooks'
import type { LoggingLevel } from '@modelcontextprotocol/client'

export interface RequestLogs {
  readonly level: LoggingLevel
  /** the servers this request sent something to */
  readonly servers: Set<string>
}

const current = new AsyncLocalStorage<RequestLogs>()

/** Runs `work` (and everything it starts) as a request that asked for log messages. */
export function runWithRequestLogs<T>(asked: RequestLogs, work: () => Promise<T>): Promise<T> {
  return current.run(asked, work)
}

/** The request running now asked for log messages: at which level, and which servers it reached. */
export function requestLogs(): RequestLogs | undefined {
  return current.getStore()
}
