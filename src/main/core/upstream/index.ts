// The upstream module's public surface: connections to upstream MCP servers, with supervision.
export { Upstream } from './connection'
export type { UpstreamEvents } from './connection'
export { inspectUpstream } from './inspect'
export { describeTarget, maskUrl } from './target'
export { sanitizeTools } from './tools'
export type { ToolListing } from './tools'
export { transportKinds } from './transport'
export { UpstreamCallError, DEFAULT_BACKOFF, DEFAULT_CONNECT_TIMEOUT_MS } from './types'
export type {
  BackoffOptions,
  TransportKind,
  UpstreamCallErrorCode,
  UpstreamLimits,
  UpstreamOptions,
  UpstreamState,
  UpstreamTool,
} from './types'
