// The end of a sign-in at the authorization server (sign-out, a removed server): revoke the refresh
// token (RFC 7009) when the server offers a revocation endpoint. Best effort, bounded in time: the
// tokens are deleted here either way; the outcome says why a revocation did not happen.
import { discoverAuthorizationServerMetadata } from '@modelcontextprotocol/client'
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/client'
import type { FetchLike } from '@modelcontextprotocol/client'
import { cleanRemoteText } from './errors'

/** Each request of a revocation (discovery, then the revocation itself) gives up after this long. */
const REQUEST_TIMEOUT_MS = 5000

export type Revocation = { ok: true } | { ok: false; reason: string }

export async function revokeToken(
  authorizationServer: string,
  client: OAuthClientInformationMixed | undefined,
  token: string,
  hint: 'refresh_token' | 'access_token',
  fetchFn: FetchLike,
): Promise<Revocation> {
  const bounded: FetchLike = (url, init) => fetchFn(url, { ...init, signal: init?.signal ?? AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
  try {
    const metadata = await discoverAuthorizationServerMetadata(authorizationServer, { fetchFn: bounded })
    // the SDK answers undefined for an unreachable server as for one that publishes no metadata
    if (!metadata) return { ok: false, reason: `${authorizationServer} could not be reached or publishes no metadata` }
    const endpoint = (metadata as { revocation_endpoint?: string }).revocation_endpoint
    if (!endpoint) return { ok: false, reason: `${authorizationServer} offers no revocation endpoint` }
    if (!client) return { ok: false, reason: 'the client the tokens were issued to is not known any more' }
    const body = new URLSearchParams({ token, token_type_hint: hint, client_id: client.client_id })
    if (client.client_secret) body.set('client_secret', client.client_secret)
    const res = await bounded(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body,
    })
    await res.body?.cancel().catch(() => undefined)
    return res.ok ? { ok: true } : { ok: false, reason: `${endpoint} answered HTTP ${res.status}` }
  } catch (e) {
    return { ok: false, reason: `${authorizationServer} could not be reached (${cleanRemoteText((e as Error).message)})` }
  }
}

/** Revokes a grant: its refresh token, else its access token (a refresh token's revocation ends the grant, RFC 7009 §2.1). */
export function revokeGrant(
  authorizationServer: string | undefined,
  client: OAuthClientInformationMixed | undefined,
  tokens: OAuthTokens,
  fetchFn: FetchLike,
): Promise<Revocation> {
  if (!authorizationServer) return Promise.resolve({ ok: false, reason: 'the authorization server that issued the tokens is not known' })
  const refresh = tokens.refresh_token
  return revokeToken(authorizationServer, client, refresh ?? tokens.access_token, refresh ? 'refresh_token' : 'access_token', fetchFn)
}
