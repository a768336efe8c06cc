// What Toolgate tells an authorization server about itself (RFC 7591 client metadata) and which
// client it signs in as: the one the operator registered (`oauth.client_id` in the config), the
// client ID metadata document the config names (`oauth.client_metadata_url`, used where the
// authorization server takes one), or the one dynamic registration gave it (kept in the server's
// OAuth record). A client-credentials server signs in as its configured client alone.
import type { OAuthClientInformationMixed, OAuthClientMetadata } from '@modelcontextprotocol/client'
import type { ServerConfig } from '../../../shared/config-schema'
import { VERSION } from '../version'

export const CALLBACK_PATH = '/oauth/callback'

/** The scopes to ask for: the config's, if any (else the server's own choice applies). */
export function configScopes(config: ServerConfig): string | undefined {
  const s = config.oauth?.scopes
  return s && s.length > 0 ? s.join(' ') : undefined
}

/** Whether the server signs in with the client-credentials grant (machine to machine, no browser). */
export function usesClientCredentials(config: ServerConfig): boolean {
  return config.oauth?.grant_type === 'client_credentials'
}

/** The client ID metadata document URL to offer (draft-ietf-oauth-client-id-metadata-document), if the config names one. */
export function clientMetadataUrl(config: ServerConfig): string | undefined {
  return config.oauth?.client_metadata_url
}

export function clientMetadata(config: ServerConfig, redirectUrl: string | undefined): OAuthClientMetadata {
  const scope = configScopes(config)
  if (redirectUrl === undefined) {
    return {
      client_name: 'Toolgate',
      redirect_uris: [],
      grant_types: ['client_credentials'],
      token_endpoint_auth_method: 'client_secret_basic',
      software_id: 'toolgate',
      software_version: VERSION,
      ...(scope ? { scope } : {}),
    }
  }
  return {
    client_name: 'Toolgate',
    redirect_uris: [redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    // a public client: PKCE protects the code, there is no secret to keep
    token_endpoint_auth_method: 'none',
    software_id: 'toolgate',
    software_version: VERSION,
    ...(scope ? { scope } : {}),
  }
}

/** The client the operator registered, from the (resolved) config; null means dynamic registration. */
export function configuredClient(config: ServerConfig): OAuthClientInformationMixed | null {
  const o = config.oauth
  if (!o?.client_id) return null
  return { client_id: o.client_id, ...(o.client_secret ? { client_secret: o.client_secret } : {}) }
}
