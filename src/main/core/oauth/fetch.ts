// The fetch every OAuth exchange of an upstream goes through (discovery, registration, tokens,
// and the MCP requests that carry the bearer token): plain http only to loopback, never to
// anything else, so a token or a code never crosses the network in clear; nothing on this
// machine for a server that is not on it (a remote server's metadata cannot make Toolgate call
// local services); and the answer of a refused token request (a refresh, or a client-credentials
// grant) is read (error and error_description) so the server can say why.
import type { FetchLike } from '@modelcontextprotocol/client'
import { cleanRemoteText, OAuthRefusedError } from './errors'

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/i

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.test(hostname)
}

/** https anywhere, http only on this machine. */
export function secureUrl(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))
}

export class InsecureUrlError extends OAuthRefusedError {
  override readonly name = 'InsecureUrlError'
  constructor(url: URL) {
    super(`refusing to send OAuth requests to ${url.origin} over plain http: sign-in needs https (plain http only to this machine)`)
  }
}

/** A server that is not on this machine named an OAuth URL on it. */
export class LocalTargetError extends OAuthRefusedError {
  override readonly name = 'LocalTargetError'
  constructor(url: URL, serverUrl: string) {
    super(
      `refusing to send an OAuth request to ${url.origin} on this machine for server ${new URL(serverUrl).origin}, which is not on it ` +
        '(its metadata may not point Toolgate at local services)',
    )
  }
}

export interface TokenFailure {
  /** the grant the token request was for */
  grant: 'refresh_token' | 'client_credentials'
  /** the authorization server's refusal (error code: description), or why it could not be reached */
  text: string
  /** true when the server answered with an OAuth error (the grant is gone, the client refused); false for outages */
  refused: boolean
}

export interface OAuthFetchOptions {
  /** told of every token request that failed for a refresh or a client-credentials grant */
  onTokenFailure?: (f: TokenFailure) => void
  /** the MCP server the requests are for: when it is not on this machine, nothing on this machine is asked */
  serverUrl?: string
}

function grantType(init: RequestInit | undefined): string | null {
  const body = init?.body
  if (body instanceof URLSearchParams) return body.get('grant_type')
  if (typeof body === 'string' && body.includes('grant_type=')) return new URLSearchParams(body).get('grant_type')
  return null
}

/**
 * Wraps `base`: refuses insecure URLs (and URLs on this machine for a server that is not), and
 * reports a failed refresh or client-credentials token request to `onTokenFailure`.
 */
export function oauthFetch(base: FetchLike, o: OAuthFetchOptions = {}): FetchLike {
  const serverUrl = o.serverUrl
  const remote = serverUrl !== undefined && !isLoopbackHost(new URL(serverUrl).hostname)
  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : (input as Request).url)
    if (!secureUrl(url)) throw new InsecureUrlError(url)
    if (remote && isLoopbackHost(url.hostname)) throw new LocalTargetError(url, serverUrl)
    const grant = (init?.method ?? 'GET').toUpperCase() === 'POST' ? grantType(init) : null
    const watched = grant === 'refresh_token' || grant === 'client_credentials' ? grant : null
    const onRefreshFailure = (f: Omit<TokenFailure, 'grant'>): void => {
      if (watched) o.onTokenFailure?.({ grant: watched, ...f })
    }
    let res: Response
    try {
      res = await base(input, init)
    } catch (err) {
      if (watched) onRefreshFailure({ text: `the authorization server could not be reached (${cleanRemoteText((err as Error).message)})`, refused: false })
      throw err
    }
    if (watched && !res.ok) {
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
