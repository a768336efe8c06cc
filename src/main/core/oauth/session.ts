// The OAuth side of one upstream connection: the MCP SDK's OAuthClientProvider that its HTTP
// transports call on every request (for the bearer token) and on a 401 (through the SDK's
// auth(): discovery, refresh). It never signs in by itself: where the SDK would send the user
// to the authorization server, it stops with NeedsSignInError (state needs_auth) instead, and it
// never registers a client in the background. It renews the access token shortly before it
// expires, and the SDK renews it on a 401; a refused renewal forgets the tokens and says why.
import { randomBytes } from 'node:crypto'
import { auth } from '@modelcontextprotocol/client'
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/client'
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/client'
import type { FetchLike } from '@modelcontextprotocol/client'
import type { ServerConfig } from '../../../shared/config-schema'
import { clientMetadata, configuredClient } from './client-info'
import { NeedsSignInError, NoOAuthError } from './errors'
import { oauthFetch, type RefreshFailure } from './fetch'
import { shouldRefresh, withoutTokens, withTokens, type OAuthRecords } from './record'

/** What a session needs from the OAuth service (oauth/service.ts). */
export interface SessionHost {
  records: OAuthRecords
  /** the loopback callback URL of this process's listener, when it has one */
  redirectUrl(): string | null
  /** why the server last needed sign-in (signed out, refused refresh), if known */
  reasonFor(server: string): string | null
  /** a session found that the server needs sign-in: remembered for status and the UI */
  signInRequired(server: string, reason: string): void
  now(): number
}

export class UpstreamAuth {
  /** the provider the transports use: tokens renewed before they expire */
  readonly provider: OAuthClientProvider
  /** the same storage without the early renewal (what the renewal itself runs auth() with) */
  private readonly plain: OAuthClientProvider
  private discovery: OAuthDiscoveryState | undefined
  private refreshing: Promise<void> | null = null
  private lastRefreshFailure: RefreshFailure | null = null
  /** set once the server turned out to need sign-in on this connection */
  needsSignIn: NeedsSignInError | null = null
  /** called (once per connection) when the server needs sign-in */
  onNeedsSignIn: (err: NeedsSignInError) => void = () => undefined
  readonly url: string
  /** the secret values this session handed out (tokens, a registered client's secret): masked in all the server sends back */
  private readonly secrets = new Set<string>()
  private readonly secretListeners = new Set<(values: string[]) => void>()

  constructor(
    readonly config: ServerConfig,
    private readonly host: SessionHost,
  ) {
    if (!config.url) throw new Error(`server "${config.name}" has no url`)
    this.url = config.url
    this.provider = new SessionProvider(this, true)
    this.plain = new SessionProvider(this, false)
  }

  get name(): string {
    return this.config.name
  }

  /** Told every secret value this session has handled and will handle (issue 24 point 4); returns the way to stop. */
  onSecrets(listener: (values: string[]) => void): () => void {
    this.secretListeners.add(listener)
    const r = this.record()
    this.noteTokens(r?.tokens)
    this.noteSecret(r?.client?.client_secret)
    if (this.secrets.size) listener([...this.secrets])
    return () => this.secretListeners.delete(listener)
  }

  noteTokens(tokens: OAuthTokens | undefined): void {
    if (!tokens) return
    for (const v of [tokens.access_token, tokens.refresh_token, tokens.id_token]) this.noteSecret(v)
  }

  private noteSecret(value: string | undefined): void {
    if (!value || this.secrets.has(value)) return
    this.secrets.add(value)
    for (const l of this.secretListeners) l([value])
  }

  redirectUrl(): string {
    // never visited in the background; the sign-in flow (sign-in.ts) has its own provider
    return this.host.redirectUrl() ?? 'http://127.0.0.1/oauth/callback'
  }

  /** The transport's fetch with the OAuth rules (https only, refused renewals observed). */
  fetch(base: FetchLike): FetchLike {
    return oauthFetch(base, (f) => {
      this.lastRefreshFailure = f
    })
  }

  // ---- storage, shared by both providers --------------------------------------------------

  record() {
    return this.host.records.read(this.name, this.url)
  }

  clientInformation(): OAuthClientInformationMixed {
    const fromConfig = configuredClient(this.config)
    if (fromConfig) return fromConfig
    const stored = this.record()?.client
    if (stored) {
      this.noteSecret(stored.client_secret)
      return stored
    }
    if (this.discovery && !this.discovery.authorizationServerMetadata) {
      throw new NoOAuthError(
        `server "${this.name}" answered 401 Unauthorized and offers no OAuth sign-in (no authorization server metadata was found); ` +
          'give its credentials in "headers" of its config entry',
      )
    }
    throw this.stop(this.host.reasonFor(this.name) ?? 'it uses OAuth and nobody has signed in yet')
  }

  saveTokens(tokens: OAuthTokens): void {
    this.noteTokens(tokens)
    // a renewal that was under way when the sign-in ended (sign-out, the server removed) does not bring it back
    if (!this.record()?.tokens) return
    this.host.records.update(this.name, this.url, (r) => withTokens(r, tokens, this.host.now()))
    this.lastRefreshFailure = null
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.noteSecret(info.client_secret)
    if (configuredClient(this.config)) return // the config's client is the config's business
    this.host.records.update(this.name, this.url, (r) => ({ ...r, client: info }))
  }

  forget(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'discovery') this.discovery = undefined
    if (scope === 'verifier') return
    const dropClient = scope === 'all' || scope === 'client'
    const dropTokens = scope === 'all' || scope === 'tokens'
    if (!this.record()) return
    this.host.records.update(this.name, this.url, (r) => {
      const next = dropTokens ? withoutTokens(r) : { ...r }
      if (dropClient) delete next.client
      return next
    })
  }

  saveDiscovery(state: OAuthDiscoveryState): void {
    this.discovery = state
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.discovery
  }

  /** Where the SDK would send the user to the authorization server: this connection stops instead. */
  redirectInstead(): never {
    const f = this.lastRefreshFailure
    if (f && !f.refused && this.record()?.tokens?.refresh_token) {
      // an outage, not a refusal: the tokens stay, the connection is retried later
      throw new Error(`could not renew the sign-in of server "${this.name}": ${f.text}`)
    }
    const reason = f?.refused
      ? `the authorization server refused to renew the sign-in (${f.text}); sign in again`
      : (this.host.reasonFor(this.name) ?? 'the sign-in is missing or expired; sign in again')
    throw this.stop(reason)
  }

  private stop(reason: string): NeedsSignInError {
    const err = new NeedsSignInError(this.name, reason)
    if (!this.needsSignIn) {
      this.needsSignIn = err
      this.host.signInRequired(this.name, reason)
      this.onNeedsSignIn(err)
    }
    return err
  }

  /** Tokens for a request: renewed first when the access token expires soon. */
  async freshTokens(): Promise<OAuthTokens | undefined> {
    const r = this.record()
    if (!r?.tokens) return undefined
    if (!shouldRefresh(r, this.host.now())) return r.tokens
    this.refreshing ??= this.renew().finally(() => {
      this.refreshing = null
    })
    await this.refreshing
    return this.record()?.tokens
  }

  private async renew(): Promise<void> {
    const result = await auth(this.plain, {
      serverUrl: this.url,
      ...(this.discovery?.resourceMetadataUrl ? { resourceMetadataUrl: new URL(this.discovery.resourceMetadataUrl) } : {}),
      fetchFn: this.fetch(fetch),
    })
    if (result !== 'AUTHORIZED') this.redirectInstead()
  }
}

/** The SDK's view of an UpstreamAuth. `early` renews tokens before they expire. */
class SessionProvider implements OAuthClientProvider {
  constructor(
    private readonly s: UpstreamAuth,
    private readonly early: boolean,
  ) {}

  get redirectUrl(): string {
    return this.s.redirectUrl()
  }
  get clientMetadata(): OAuthClientMetadata {
    return clientMetadata(this.s.config, this.redirectUrl)
  }
  state(): string {
    return randomBytes(32).toString('base64url')
  }
  clientInformation(): OAuthClientInformationMixed {
    return this.s.clientInformation()
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.s.saveClientInformation(info)
  }
  tokens(): Promise<OAuthTokens | undefined> | OAuthTokens | undefined {
    if (!this.early) {
      const t = this.s.record()?.tokens
      this.s.noteTokens(t)
      return t
    }
    return this.s.freshTokens().then((t) => {
      this.s.noteTokens(t)
      return t
    })
  }
  saveTokens(tokens: OAuthTokens): void {
    this.s.saveTokens(tokens)
  }
  redirectToAuthorization(): void {
    this.s.redirectInstead()
  }
  saveCodeVerifier(): void {
    // no authorization starts here
  }
  codeVerifier(): string {
    throw new Error('no sign-in is in progress on this connection')
  }
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    this.s.forget(scope)
  }
  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.s.saveDiscovery(state)
  }
  discoveryState(): OAuthDiscoveryState | undefined {
    return this.s.discoveryState()
  }
}
