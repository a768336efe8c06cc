// Where a server's sign-in happens, found once and checked before anything is sent there: the
// protected-resource metadata (RFC 9728) and the authorization server's metadata (RFC 8414 /
// OpenID), through the MCP SDK's discovery. A server without either gets the 2025-03-26 defaults
// (/authorize, /token, /register at its own origin). What a hostile server or authorization
// server could slip in is refused here, with the reason, and no retry follows:
// - a resource that names another server (its tokens would be that server's);
// - metadata for another issuer than the one it was fetched for (RFC 8414 §3.3; the 2025-03-26
//   default location at the server's own origin may name an issuer path on that origin);
// - an authorization page that is not https (plain http only on this machine), or that is on
//   another origin than its issuer while the issuer does not promise `iss` on its answers
//   (RFC 9207): with both, a hostile issuer could send the user to an honest server's page and
//   take the code it answers with (mix-up).
import { checkResourceAllowed, discoverOAuthServerInfo, resourceUrlFromServerUrl } from '@modelcontextprotocol/client'
import type { FetchLike, OAuthDiscoveryState } from '@modelcontextprotocol/client'
import { cleanRemoteText, OAuthRefusedError } from './errors'
import { isLoopbackHost, secureUrl } from './fetch'

/** The server's metadata names another resource than the server itself. */
export class ResourceMismatchError extends OAuthRefusedError {
  override readonly name = 'ResourceMismatchError'
}

/** The authorization server's metadata is inconsistent or points somewhere unsafe. */
export class UnsafeAuthorizationServerError extends OAuthRefusedError {
  override readonly name = 'UnsafeAuthorizationServerError'
}

const show = (text: string): string => cleanRemoteText(text, 120)

/** The discovery of `serverUrl`'s sign-in, checked; `resourceMetadataUrl` is the one its challenge named, if any. */
export async function discover(server: string, serverUrl: string, o: { resourceMetadataUrl?: string; fetchFn: FetchLike }): Promise<OAuthDiscoveryState> {
  const info = await discoverOAuthServerInfo(serverUrl, {
    ...(o.resourceMetadataUrl ? { resourceMetadataUrl: new URL(o.resourceMetadataUrl) } : {}),
    fetchFn: o.fetchFn,
    // checked below, with the 2025-03-26 exception the SDK cannot know about
    skipIssuerMetadataValidation: true,
  })
  const resource = info.resourceMetadata?.resource
  if (resource !== undefined && !namesItself(serverUrl, resource)) {
    const own = new URL(serverUrl)
    throw new ResourceMismatchError(
      `server "${server}" names ${show(resource)} as the resource its tokens are for, not its own URL (${own.origin}${own.pathname}): ` +
        "a server may only ask for tokens for itself (RFC 8707), else it could obtain another server's tokens. " +
        'Toolgate does not sign in to it and stopped trying; check the URL in its config entry, then restart the server',
    )
  }
  const md = info.authorizationServerMetadata
  const asUrl = String(info.authorizationServerUrl)
  if (md) {
    const echoes = md.issuer === asUrl || (asUrl.endsWith('/') && md.issuer === asUrl.slice(0, -1))
    const legacyDefault = !info.resourceMetadata && sameOrigin(md.issuer, serverUrl)
    if (!echoes && !legacyDefault) {
      throw new UnsafeAuthorizationServerError(
        `the authorization server of server "${server}" (${show(asUrl)}) publishes metadata for another issuer (${show(md.issuer)}), ` +
          'which RFC 8414 forbids (it could pass off another server as itself); Toolgate refuses to sign in there and stopped trying',
      )
    }
    checkAuthorizationEndpoint(server, serverUrl, md.issuer, md.authorization_endpoint, md.authorization_response_iss_parameter_supported === true)
  }
  return {
    authorizationServerUrl: asUrl,
    ...(o.resourceMetadataUrl ? { resourceMetadataUrl: o.resourceMetadataUrl } : {}),
    ...(info.resourceMetadata ? { resourceMetadata: info.resourceMetadata } : {}),
    ...(md ? { authorizationServerMetadata: md } : {}),
  }
}

/** The page the user is sent to: https (plain http only on this machine, for a server on this machine), on its issuer's origin unless `iss` is promised. */
export function checkAuthorizationEndpoint(server: string, serverUrl: string, issuer: string, endpoint: string, issPromised: boolean): void {
  let url: URL
  try {
    url = new URL(endpoint)
  } catch {
    throw new UnsafeAuthorizationServerError(`the authorization server of server "${server}" names no valid authorization page (${show(endpoint)})`)
  }
  if (!secureUrl(url) || url.username || url.password) {
    throw new UnsafeAuthorizationServerError(
      `the authorization server of server "${server}" would send the browser to a page that is not https (${show(url.protocol)}//${show(url.host)}): ` +
        'a sign-in page is opened over https only (plain http only on this machine), so Toolgate refuses and stopped trying',
    )
  }
  if (isLoopbackHost(url.hostname) && !isLoopbackHost(new URL(serverUrl).hostname)) {
    throw new UnsafeAuthorizationServerError(
      `the authorization server of server "${server}" (not on this machine) would send the browser to this machine (${show(url.origin)}); Toolgate refuses and stopped trying`,
    )
  }
  if (!issPromised && !sameOrigin(endpoint, issuer)) {
    throw new UnsafeAuthorizationServerError(
      `the authorization server (${show(issuer)}) of server "${server}" sends the browser to another origin (${show(url.origin)}) and does not promise the iss ` +
        "parameter (RFC 9207) that would show where the answer comes from; a sign-in there could hand another server's code to it (mix-up), so Toolgate refuses and stopped trying",
    )
  }
}

/** Whether `resource` (from the server's RFC 9728 metadata) is the server itself: its origin and a prefix of its path. */
function namesItself(serverUrl: string, resource: string): boolean {
  try {
    return checkResourceAllowed({ requestedResource: resourceUrlFromServerUrl(serverUrl), configuredResource: resource })
  } catch {
    return false // not a URL
  }
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin
  } catch {
    return false
  }
}
