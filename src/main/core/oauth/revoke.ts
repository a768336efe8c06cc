// Sign-out's courtesy to the authorization server: revoke the refresh token (RFC 7009) when the
// server offers a revocation endpoint. Best effort: the tokens are deleted here either way.
import { discoverAuthorizationServerMetadata } from '@modelcontextprotocol/sdk/client/auth.js'
import type { OAuthClientInformationMixed } from '@modelcontextprotocol/sdk/shared/auth.js'
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js'

export async function revokeToken(
  authorizationServer: string,
  client: OAuthClientInformationMixed | undefined,
  token: string,
  hint: 'refresh_token' | 'access_token',
  fetchFn: FetchLike,
): Promise<boolean> {
  try {
    const metadata = await discoverAuthorizationServerMetadata(authorizationServer, { fetchFn })
    const endpoint = (metadata as { revocation_endpoint?: string } | undefined)?.revocation_endpoint
    if (!endpoint || !client) return false
    const body = new URLSearchParams({ token, token_type_hint: hint, client_id: client.client_id })
    if (client.client_secret) body.set('client_secret', client.client_secret)
    const res = await fetchFn(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body,
      signal: AbortSignal.timeout(5000),
    })
    await res.body?.cancel().catch(() => undefined)
    return res.ok
  } catch {
    return false
  }
}
