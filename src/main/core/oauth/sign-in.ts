// The interactive sign-in, run with the MCP SDK's auth(): start (discovery of the protected
// resource (RFC 9728) and of its authorization server (RFC 8414 / OpenID), checked by
// discovery.ts; the config's client, else a client ID metadata document where the authorization
// server takes one and the config names one, else dynamic client registration (RFC 7591); PKCE
// S256 and the `resource` parameter (RFC 8707) in the authorization URL the user opens), then
// finish when the browser comes back to the loopback callback: the code is exchanged at the token
// endpoint of the very authorization server the sign-in started with, after the `iss` check of
// RFC 9207 (mix-up). The scope asked for is remembered: a server that later refuses a request for
// no more than that scope cannot be helped by another sign-in.
import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/client'
import type { OAuthClientProvider, OAuthDiscoveryState, OAuthMetadata } from '@modelcontextprotocol/client'
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/client'
import type { FetchLike } from '@modelcontextprotocol/client'
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/client'
import type { ServerConfig } from '../../../shared/config-schema'
import { clientMetadata, clientMetadataUrl, configuredClient } from './client-info'
import { checkAuthorizationEndpoint, discover } from './discovery'
import { cleanRemoteText } from './errors'
import type { FlowOutcome, SignInFlow } from './flows'
import { withTokens, type OAuthRecords } from './record'

export interface SignInDeps {
  records: OAuthRecords
  now(): number
  fetch: FetchLike
  /** tokens a sign-in got after it was ended (its server removed, signed out): not kept, revoked */
  discard(flow: SignInFlow, tokens: OAuthTokens, client: OAuthClientInformationMixed | undefined): void
}

/** The SDK's view of one sign-in: everything about it lives in the flow, the result in the record. */
class SignInProvider implements OAuthClientProvider {
  /** the client the code is exchanged as (to revoke tokens that are not kept) */
  private client: OAuthClientInformationMixed | undefined
  constructor(
    private readonly flow: SignInFlow,
    private readonly config: ServerConfig,
    private readonly d: SignInDeps,
  ) {}

  get redirectUrl(): string {
    return this.flow.redirectUrl
  }
  get clientMetadata(): OAuthClientMetadata {
    return clientMetadata(this.config, this.flow.redirectUrl)
  }
  /** offered as the client ID where the authorization server takes client ID metadata documents (else: dynamic registration) */
  get clientMetadataUrl(): string | undefined {
    return clientMetadataUrl(this.config)
  }
  state(): string {
    return this.flow.state
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    const fromConfig = configuredClient(this.config)
    if (fromConfig) return (this.client = fromConfig)
    const stored = this.d.records.read(this.config.name, this.flow.url)?.client ?? (this.flow.endedBecause ? this.client : undefined)
    // registered for another callback (another port): register again
    if (stored && 'redirect_uris' in stored && Array.isArray(stored.redirect_uris) && !stored.redirect_uris.includes(this.flow.redirectUrl)) return undefined
    // a client ID metadata document the config no longer names: not that client any more
    if (stored && /^https:\/\//.test(stored.client_id) && !('redirect_uris' in stored) && stored.client_id !== this.clientMetadataUrl) return undefined
    return (this.client = stored)
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.client = info
    if (configuredClient(this.config) || this.flow.endedBecause) return
    this.d.records.update(this.config.name, this.flow.url, (r) => ({ ...r, client: info }))
  }
  tokens(): undefined {
    return undefined // a sign-in always goes to the authorization server, never just renews
  }
  saveTokens(tokens: OAuthTokens): void {
    // the sign-in ended while its code was being exchanged (the server removed or signed out): not kept
    if (this.flow.endedBecause) return this.d.discard(this.flow, tokens, this.client)
    const now = this.d.now()
    const asked = this.flow.scopeRequested
    this.d.records.update(this.config.name, this.flow.url, (r) => {
      const { scope_requested: _old, ...rest } = withTokens(r, tokens, now)
      return { ...rest, signed_in_at: new Date(now).toISOString(), ...(asked ? { scope_requested: asked } : {}) }
    })
  }
  redirectToAuthorization(url: URL): void {
    this.flow.authorizationUrl = url.href
  }
  saveCodeVerifier(verifier: string): void {
    this.flow.verifier = verifier
  }
  codeVerifier(): string {
    if (!this.flow.verifier) throw new Error('this sign-in has no PKCE code verifier')
    return this.flow.verifier
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'verifier') delete this.flow.verifier
    if (scope === 'discovery') delete this.flow.discovery
    if ((scope === 'all' || scope === 'client') && !configuredClient(this.config) && !this.flow.endedBecause) {
      this.d.records.update(this.config.name, this.flow.url, (r) => {
        const { client: _c, ...rest } = r
        return rest
      })
    }
  }
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.flow.discovery = state
  }
  /** Discovered once, when the sign-in starts, and checked (discovery.ts); the callback uses the same. */
  async discoveryState(): Promise<OAuthDiscoveryState> {
    this.flow.discovery ??= await discover(this.config.name, this.flow.url, { resourceMetadataUrl: this.flow.resourceMetadataUrl, fetchFn: this.d.fetch })
    return this.flow.discovery
  }
}

export interface Probe {
  /** 401/403: the server asks for a token */
  asks: boolean
  resourceMetadataUrl?: URL
  scope?: string
}

/** One unauthenticated MCP initialize: does the server ask for a token, and where is its RFC 9728 metadata. */
export async function probe(config: ServerConfig, fetchFn: FetchLike): Promise<Probe> {
  const url = new URL(config.url ?? '')
  const headers: Record<string, string> = {
    ...(config.headers ?? {}),
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  }
  const body = JSON.stringify({
    jsonrpc: '2.0',
    id: 0,
    method: 'initialize',
    params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'toolgate', version: 'probe' } },
  })
  const res = await fetchFn(url, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(15_000) })
  await res.body?.cancel().catch(() => undefined)
  if (res.status === 401 || res.status === 403) {
    const p = extractWWWAuthenticateParams(res)
    return { asks: true, ...(p.resourceMetadataUrl ? { resourceMetadataUrl: p.resourceMetadataUrl } : {}), ...(p.scope ? { scope: p.scope } : {}) }
  }
  // it answered without a token: end the MCP session it may have opened
  const session = res.headers.get('mcp-session-id')
  if (session) await fetchFn(url, { method: 'DELETE', headers: { ...headers, 'mcp-session-id': session } }).catch(() => undefined)
  return { asks: false }
}

/**
 * Runs discovery, registration and PKCE for `flow`; on return `flow.authorizationUrl` is the page
 * to open. `scope`: what to ask for (the config's, the challenge's and a step-up's, together);
 * none lets the SDK choose (the server's scopes_supported, or no scope).
 */
export async function beginSignIn(flow: SignInFlow, config: ServerConfig, p: Probe, scope: string | undefined, d: SignInDeps): Promise<void> {
  if (p.resourceMetadataUrl) flow.resourceMetadataUrl = p.resourceMetadataUrl.href
  const result = await auth(new SignInProvider(flow, config, d), {
    serverUrl: flow.url,
    ...(p.resourceMetadataUrl ? { resourceMetadataUrl: p.resourceMetadataUrl } : {}),
    ...(scope ? { scope } : {}),
    fetchFn: d.fetch,
  })
  if (result !== 'REDIRECT' || !flow.authorizationUrl) throw new Error('the authorization server did not start a sign-in')
  const page = new URL(flow.authorizationUrl)
  // the browser opens this: https only (plain http to this machine), never javascript:, file: or the like; on its issuer's origin unless iss is promised
  const md = flow.discovery?.authorizationServerMetadata as (OAuthMetadata & { authorization_response_iss_parameter_supported?: boolean }) | undefined
  const issuer = md?.issuer ?? flow.discovery?.authorizationServerUrl ?? flow.url
  checkAuthorizationEndpoint(config.name, flow.url, issuer, page.href, md?.authorization_response_iss_parameter_supported === true)
  flow.scopeRequested = page.searchParams.get('scope') ?? undefined
}

/**
 * The browser came back with `params` for `flow` (already taken: single use). `config` is the
 * server's current (resolved) entry, or null when it is gone.
 */
export async function finishSignIn(flow: SignInFlow, config: ServerConfig | null, params: URLSearchParams, d: SignInDeps): Promise<FlowOutcome> {
  if (!config || config.url !== flow.url) {
    return { ok: false, message: `server "${flow.server}" was removed or its URL changed while signing in; start the sign-in again` }
  }
  // RFC 9207: the answer must come from the authorization server this sign-in went to (mix-up defense)
  const expectedIssuer = flow.discovery?.authorizationServerMetadata?.issuer
  const iss = params.get('iss')
  if (iss !== null && iss !== expectedIssuer) {
    return { ok: false, message: `the answer came from another authorization server (${cleanRemoteText(iss, 120)}) than the one this sign-in went to; refused` }
  }
  const issRequired = (flow.discovery?.authorizationServerMetadata as { authorization_response_iss_parameter_supported?: boolean } | undefined)
    ?.authorization_response_iss_parameter_supported
  if (iss === null && issRequired === true) {
    return { ok: false, message: 'the answer lacks the iss parameter its authorization server promises (RFC 9207); refused' }
  }
  const error = params.get('error')
  if (error !== null) {
    const desc = params.get('error_description')
    return { ok: false, message: `the authorization server answered ${cleanRemoteText(error, 60)}${desc ? ` (${cleanRemoteText(desc)})` : ''}` }
  }
  const code = params.get('code')
  if (!code) return { ok: false, message: 'the redirect carries no authorization code' }
  try {
    const result = await auth(new SignInProvider(flow, config, d), {
      serverUrl: flow.url,
      authorizationCode: code,
      // SDK 2.x checks RFC 9207 itself too (the checks above give the clearer message)
      ...(iss !== null ? { iss } : {}),
      ...(flow.resourceMetadataUrl ? { resourceMetadataUrl: new URL(flow.resourceMetadataUrl) } : {}),
      fetchFn: d.fetch,
    })
    if (flow.endedBecause) return { ok: false, message: `the sign-in ended while its code was exchanged (${flow.endedBecause}); its tokens were not kept` }
    if (result !== 'AUTHORIZED') return { ok: false, message: 'the authorization server did not issue tokens' }
  } catch (e) {
    return { ok: false, message: `the authorization server did not accept the code: ${cleanRemoteText((e as Error).message)}` }
  }
  return { ok: true, message: `Signed in to ${flow.server}.` }
}
