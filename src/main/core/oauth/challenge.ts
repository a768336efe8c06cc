// What an MCP server said when it refused a request (401 or 403 with WWW-Authenticate, RFC 6750
// §3 and RFC 9728 §5.1): where its protected-resource metadata is and which scope it wants. A
// connection keeps the last one, so Sign in starts from what the server actually answered (a
// server may let `initialize` through and ask for a token only later), and a 403
// `insufficient_scope` asks for more scope once: when the sign-in already asked for every scope
// the server names, another sign-in would loop.
import { computeScopeUnion, extractWWWAuthenticateParams } from '@modelcontextprotocol/client'

export interface Challenge {
  /** the server URL (as configured) it came from */
  url: string
  status: 401 | 403
  /** the auth scheme of WWW-Authenticate ("bearer", "dpop", "basic", …), lower case; null without the header */
  scheme: string | null
  resourceMetadataUrl?: string
  scope?: string
  error?: string
}

/** The challenge of a 401/403 answer from the MCP endpoint at `url`; null for any other answer. */
export function readChallenge(res: Response, url: string): Challenge | null {
  if (res.status !== 401 && res.status !== 403) return null
  const header = res.headers.get('www-authenticate')
  const scheme = header?.trim().split(/\s+/)[0]?.toLowerCase() || null
  const p = extractWWWAuthenticateParams(res)
  return {
    url,
    status: res.status,
    scheme,
    ...(p.resourceMetadataUrl ? { resourceMetadataUrl: p.resourceMetadataUrl.href } : {}),
    ...(p.scope ? { scope: p.scope } : {}),
    ...(p.error ? { error: p.error } : {}),
  }
}

/** A 403 that asks for more scope (RFC 6750 §3.1 insufficient_scope). */
export function asksForScope(c: Challenge): boolean {
  return c.status === 403 && c.error === 'insufficient_scope'
}

/** The OAuth schemes the MCP authorization spec signs in for; another scheme (Basic, …) wants credentials in headers. */
export function isOAuthScheme(c: Challenge): boolean {
  return c.scheme === null || c.scheme === 'bearer' || c.scheme === 'dpop'
}

/** The scopes of every argument, each once (space-delimited, RFC 6749 §3.3); undefined when there are none. */
export function scopeUnion(...scopes: Array<string | undefined>): string | undefined {
  return computeScopeUnion(...scopes)
}

/** Whether `have` holds every scope of `wanted` (an empty `wanted` is held by anything). */
export function holdsScopes(have: string | undefined, wanted: string | undefined): boolean {
  const held = new Set((have ?? '').split(' ').filter(Boolean))
  return (wanted ?? '').split(' ').every((s) => s === '' || held.has(s))
}
