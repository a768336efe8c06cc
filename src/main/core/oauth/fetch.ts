// The fetch every OAuth exchange of an upstream goes through (discovery, registration, tokens,
// and the MCP requests that carry the bearer token): plain http only to loopback, never to
// anything else, so a token or a code never crosses the network in clear; and the answer of a
// refused token refresh is read (error and error_description) so the server can say why it
// needs a new sign-in.
import type { FetchLike } from '@modelcontextprotocol/client'
import { cleanRemoteText } from './errors'

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/i

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.test(hostname)
}

/** https anywhere, http only on this machine. */
export function secureUrl(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))
}

export class InsecureUrlError extends Error {
  override readonly name = 'InsecureUrlError'
  constructor(url: URL) {
    super(`refusing to send OAuth requests to ${url.origin} over plain http: sign-in needs https (plain http only to this machine)`)
  }
}

export interface RefreshFailure {
  /** the authorization server's refusal (error code: description), or why it could not be reached */
  text: string
  /** true when the server answered with an OAuth error (the grant is gone); false for outages */
  refused: boolean
}

function grantType(init: RequestInit | undefined): string | null {
  const body = init?.body
  if (body instanceof URLSearchParams) return body.get('grant_type')
  if (typeof body === 'string' && body.includes('grant_type=')) return new URLSearchParams(body).get('grant_type')
  return null
}

/**
 * Wraps `base`: refuses insecure URLs, and reports a failed refresh_token grant to `onRefreshFailure`.
 */
export function oauthFetch(base: FetchLike, onRefreshFailure: (f: RefreshFailure) => void): FetchLike {
  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : (input as Request).url)
    if (!secureUrl(url)) throw new InsecureUrlError(url)
    const refreshing = (init?.method ?? 'GET').toUpperCase() === 'POST' && grantType(init) === 'refresh_token'
    let res: Response
    try {
      res = await base(input, init)
    } catch (err) {
      if (refreshing) onRefreshFailure({ text: `the authorization server could not be reached (${cleanRemoteText((err as Error).message)})`, refused: false })
      throw err
    }
    if (refreshing && !res.ok) {
      let text = `HTTP ${res.status}`
      let refused = res.status >= 400 && res.status < 500
      try {
        const body = (await res.clone().json()) as { error?: unknown; error_description?: unknown }
        if (typeof body.error === 'string') {
          text = cleanRemoteText(typeof body.error_description === 'string' && body.error_description ? `${body.error}: ${body.error_description}` : body.error)
          refused = body.error !== 'server_error' && body.error !== 'temporarily_unavailable'
        }
      } catch {
        // not an OAuth error body
      }
      onRefreshFailure({ text, refused })
    }
    return res
  }
}
