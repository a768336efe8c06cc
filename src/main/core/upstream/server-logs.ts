// An upstream's log messages (notifications/message, docs/passthrough.md): each server's are
// rate-limited here (a flood costs little and reaches nobody), written to Toolgate's log (the log
// view: `toolgate.log`, stderr) with the server's name, and handed to the agents that asked for
// logs (agent-server/log-relay.ts). They arrive masked (the connection masks the server's secrets);
// every string in them is escaped here (control, bidi and invisible characters as \u escapes).
import type { LoggingLevel } from '@modelcontextprotocol/client'
import { escapeText } from '../../../shared/text'
import type { Logger } from '../log'

/** The protocol's levels, least severe first (RFC 5424 as MCP names them). */
export const LOG_LEVELS: readonly LoggingLevel[] = ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']

/** A server may send this many messages at once, then RATE_PER_S a second; the rest are dropped and counted. */
export const BURST = 50
export const RATE_PER_S = 20

export interface ServerLogMessage {
  server: string
  level: LoggingLevel
  /** the server's own logger name, if it gave one */
  logger?: string
  data: unknown
  /** the key of the only request in flight on the server when it came; null: none was (the server's own); SEVERAL: several were (log-readers.ts) */
  request?: object | null
}

const isLevel = (v: unknown): v is LoggingLevel => typeof v === 'string' && (LOG_LEVELS as readonly string[]).includes(v)

/** Every string in a value escaped (keys too); anything else as it is. */
function escapeAll(v: unknown, depth = 0): unknown {
  if (typeof v === 'string') return escapeText(v)
  if (depth > 20) return '[too deep]'
  if (Array.isArray(v)) return v.map((x) => escapeAll(x, depth + 1))
  if (typeof v === 'object' && v !== null) return Object.fromEntries(Object.entries(v).map(([k, x]) => [escapeText(k), escapeAll(x, depth + 1)]))
  return v
}

/** The most a message's data may take (JSON) before it is cut: a log line is not a result. */
const MAX_DATA_CHARS = 8 * 1024

export class ServerLogs {
  private readonly buckets = new Map<string, { tokens: number; at: number; dropped: number }>()
  private readonly listeners = new Set<(m: ServerLogMessage) => void>()

  constructor(
    private readonly logger: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Hears every message that passed the rate limit; returns the function that stops it. */
  listen(fn: (m: ServerLogMessage) => void): () => void {
    this.listeners.add(fn)
    return () => void this.listeners.delete(fn)
  }

  get listening(): number {
    return this.listeners.size
  }

  /** A server's notifications/message (params as it sent them, masked). */
  deliver(server: string, params: { level?: unknown; logger?: unknown; data?: unknown }, request: object | null = null): void {
    if (!this.take(server)) return
    const level = isLevel(params.level) ? params.level : 'info'
    let data = escapeAll(params.data)
    const json = JSON.stringify(data) ?? ''
    if (json.length > MAX_DATA_CHARS) data = `${json.slice(0, MAX_DATA_CHARS)}… (cut: ${json.length} characters)`
    const m: ServerLogMessage = { server, level, ...(typeof params.logger === 'string' ? { logger: escapeText(params.logger) } : {}), data, request }
    const at = LOG_LEVELS.indexOf(level)
    const fields = { server, mcp_level: level, ...(m.logger ? { mcp_logger: m.logger } : {}), data }
    if (at >= LOG_LEVELS.indexOf('error')) this.logger.error(fields, 'server log message')
    else if (at >= LOG_LEVELS.indexOf('warning')) this.logger.warn(fields, 'server log message')
    else if (at >= LOG_LEVELS.indexOf('info')) this.logger.info(fields, 'server log message')
    else this.logger.debug(fields, 'server log message')
    for (const fn of this.listeners) {
      try {
        fn(m)
      } catch {
        // one listener's failure (a closed session) never stops the others
      }
    }
  }

  /** The token bucket of one server: true when a message may pass; drops are counted and said once it passes again. */
  private take(server: string): boolean {
    const t = this.now()
    const b = this.buckets.get(server) ?? { tokens: BURST, at: t, dropped: 0 }
    b.tokens = Math.min(BURST, b.tokens + ((t - b.at) / 1000) * RATE_PER_S)
    b.at = t
    this.buckets.set(server, b)
    if (b.tokens < 1) {
      b.dropped++
      return false
    }
    b.tokens--
    if (b.dropped > 0) {
      this.logger.warn({ server, dropped: b.dropped }, `dropped ${b.dropped} log messages of server "${server}" (more than ${RATE_PER_S} a second)`)
      b.dropped = 0
    }
    return true
  }

  /** A server that is gone: its bucket too. */
  forget(server: string): void {
    this.buckets.delete(server)
  }
}
