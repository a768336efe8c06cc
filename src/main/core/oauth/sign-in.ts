// The interactive sign-in, run with the MCP SDK's auth(): start (discovery of the protected
// resource (RFC 9728) and of its authorization server (RFC 8414 / OpenID), dynamic client
// registration (RFC 7591) unless the config names a client, PKCE S256 and the `resource`
// parameter (RFC 8707) in the authorization URL the user opens), then finish when the browser
// comes back to the loopback callback: the code is exchanged at the token endpoint of the very
// authorization server the sign-in started with, after the `iss` check of RFC 9207 (mix-up).
import { auth, extractWWWAuthenticateParams } from '@modelcontextprotocol/client'
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/client'
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/client'
import type { FetchLike } from '@modelcontextprotocol/client'
import { LATEST_PROTOCOL_VERSION } from '@modelcontextprotocol/client'
import type { ServerConfig } from '../../../shared/config-schema'
import { clientMetadata, configScopes, configuredClient } from './client-info'
import { cleanRemoteText } from './errors'
import { InsecureUrlError, secureUrl } from './fetch'
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
  state(): string {
    return this.flow.state
  }
  clientInformation(): OAuthClientInformationMixed | undefined {
    const fromConfig = configuredClient(this.config)
    if (fromConfig) return (this.client = fromConfig)
    const stored = this.d.records.read(this.config.name, this.flow.url)?.client ?? (this.flow.endedBecause ? this.client : undefined)
    // registered for another callback (another port): register again
    if (stored && 'redirect_uris' in stored && Array.isArray(stored.redirect_uris) && !stored.redirect_uris.includes(this.flow.redirectUrl)) return undefined
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
    this.d.records.update(this.config.name, this.flow.url, (r) => ({ ...withTokens(r, tokens, now), signed_in_at: new Date(now).toISOString() }))
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
  discoveryState(): OAuthDiscoveryState | undefined {
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

/** Runs discovery, registration and PKCE for `flow`; on return `flow.authorizationUrl` is the page to open. */
export async function beginSignIn(flow: SignInFlow, config: ServerConfig, p: Probe, d: SignInDeps): Promise<void> {
  if (p.resourceMetadataUrl) flow.resourceMetadataUrl = p.resourceMetadataUrl.href
  const scope = configScopes(config) ?? p.scope
  const result = await auth(new SignInProvider(flow, config, d), {
    serverUrl: flow.url,
    ...(p.resourceMetadataUrl ? { resourceMetadataUrl: p.resourceMetadataUrl } : {}),
    ...(scope ? { scope } : {}),
    fetchFn: d.fetch,
  })
  if (result !== 'REDIRECT' || !flow.authorizationUrl) throw new Error('the authorization server did not start a sign-in')
  const page = new URL(flow.authorizationUrl)
  // the browser opens this: https only (plain http to this machine), never javascript:, file: or the like
  if (!secureUrl(page)) throw new InsecureUrlError(page)
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
