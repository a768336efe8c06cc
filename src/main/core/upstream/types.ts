// Types shared by the upstream module: what the rest of the core sees of an upstream MCP server.
import type { Logger } from '../log'
import type { SandboxRequest } from './sandbox'
import type { ReferenceSource } from '../secrets/resolve'
import type { UpstreamAuth } from '../oauth/session'
import type { ServerConfig } from '../../../shared/config-schema'

/**
 * connecting: starting, or reconnecting after a failure (see `attempt`)
 * connected:  initialized and tools listed; calls go through
 * stopped:    not running (never started, or stop() was called)
 * error:      gave up after too many consecutive failures (crash-loop breaker); restart() to retry
 * needs_auth: an HTTP server that needs the user to sign in (OAuth); no retries, a sign-in restarts it
 */
export type UpstreamState = 'connecting' | 'connected' | 'stopped' | 'error' | 'needs_auth'

/** Where an HTTP upstream's connections get their OAuth session (oauth/service.ts). */
export interface AuthSessions {
  sessionFor(config: ServerConfig): UpstreamAuth | null
}

export interface UpstreamLimits {
  /** tools beyond this many are dropped (config limits.max_tools_per_server) */
  maxTools: number
  /** longer descriptions are truncated (config limits.max_description_chars) */
  maxDescriptionChars: number
  /** longer titles are truncated (config limits.max_title_chars; default 256) */
  maxTitleChars?: number
  /** bigger annotations keep only the standard hints (config limits.max_annotations_bytes; default 4096) */
  maxAnnotationsBytes?: number
  /** bigger call results are rejected, measured as JSON bytes (config limits.max_result_bytes) */
  maxResultBytes: number
}

export interface BackoffOptions {
  /** delay before the first reconnect attempt */
  initialMs: number
  /** the delay doubles per consecutive failure up to this */
  maxMs: number
  /** crash-loop breaker: after this many consecutive failures the state becomes 'error' */
  maxAttempts: number
}

export interface UpstreamOptions {
  logger: Logger
  limits: UpstreamLimits
  /** spawn/handshake + initialize + first tools/list must finish within this (default 30000) */
  connectTimeoutMs?: number
  backoff?: BackoffOptions
  /**
   * A connection that stays up this long resets the consecutive-failure count (default 30000).
   * A server that connects and then dies quickly, over and over, is a crash loop too.
   */
  stableMs?: number
  /** HTTP/SSE upstreams only: health ping interval while connected, 0 = off (default 15000) */
  pingIntervalMs?: number
  /** stdio upstreams: the sandbox (data dir to hide, mode); absent = sandboxed against the default data dir */
  sandbox?: SandboxRequest
  /** where `${secret:NAME}` / `${env:NAME}` references are resolved when the server starts */
  references?: ReferenceSource
  /** HTTP upstreams: OAuth sign-in (tokens, renewal, needs_auth) */
  oauth?: AuthSessions
  /** list_changed bursts cost at most one re-list per kind in this many ms (default 1000, relist.ts) */
  relistGapMs?: number
  /** the organisation's policy on the resolved launch: why it may not run, or null */
  launchCheck?: (resolved: ServerConfig) => string | null
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000
export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 500, maxMs: 30_000, maxAttempts: 8 }
export const DEFAULT_STABLE_MS = 30_000
export const DEFAULT_PING_INTERVAL_MS = 15_000

/** The transport actually used for a connection. `auto` resolves to one of these. */
export type TransportKind = 'stdio' | 'streamable-http' | 'sse'

export type UpstreamCallErrorCode =
  | 'not_connected' // the upstream is reconnecting, stopped or in error; the call was not sent
  | 'timeout' // no answer within timeoutMs; notifications/cancelled was sent upstream
  | 'cancelled' // the caller's AbortSignal fired; notifications/cancelled was sent upstream
  | 'disconnected' // the connection closed (crash, exit) before the answer came
  | 'result_too_large' // the answer exceeded limits.maxResultBytes
  | 'upstream_error' // the upstream answered with a JSON-RPC error (unknown tool, bad params, ...)
  | 'transport_error' // the request could not be sent or the answer could not be read
  | 'needs_auth' // the server needs the user to sign in (OAuth); the call was not sent

/** Every rejection of Upstream.callTool is one of these; `message` is meant for people. */
export class UpstreamCallError extends Error {
  override readonly name = 'UpstreamCallError'
  constructor(
    readonly code: UpstreamCallErrorCode,
    message: string,
    readonly server: string,
    readonly tool: string,
    /** the server's JSON-RPC error code, for upstream_error (a relayed request answers the agent with it) */
    readonly rpcCode?: number,
  ) {
    super(message)
  }
}
