// The OAuth side of one upstream connection. Its provider (session-provider.ts) is what the MCP
// SDK's HTTP transports call on every request (for the bearer token) and on a 401/403 (through the
// SDK's auth(): discovery, refresh, step-up). It never signs in by itself: where the SDK would send
// the user to the authorization server, it stops with NeedsSignInError (state needs_auth) instead,
// and it never registers a client in the background. It keeps the last challenge the server
// answered with (Sign in starts from it), asks for more scope once on a 403 insufficient_scope,
// and stops for good (OAuthRefusedError, state error) where no sign-in can help: a server that
// refuses the scope it already has, names another resource, points at unsafe endpoints, or whose
// authorization server refuses the configured client credentials. A client-credentials server
// gets its tokens by itself, with no browser. Tokens are renewed shortly before they expire.
import { auth } from '@modelcontextprotocol/client'
import type { OAuthClientInformationMixed, OAuthClientProvider, OAuthDiscoveryState, OAuthTokens } from '@modelcontextprotocol/client'
import type { FetchLike } from '@modelcontextprotocol/client'
import type { ServerConfig } from '../../../shared/config-schema'
import { asksForScope, holdsScopes, isOAuthScheme, readChallenge, scopeUnion, type Challenge } from './challenge'
import { configuredClient, usesClientCredentials } from './client-info'
import { discover } from './discovery'
import { NeedsSignInError, NoOAuthError, OAuthRefusedError, refusal } from './errors'
import { oauthFetch, type TokenFailure } from './fetch'
import { expiresSoon, shouldRefresh, withoutTokens, withTokens, type OAuthRecords } from './record'
import { SessionProvider } from './session-provider'

/** What a session needs from the OAuth service (oauth/service.ts). */
export interface SessionHost {
  records: OAuthRecords
  /** the loopback callback URL of this process's listener, when it has one */
  redirectUrl(): string | null
  /** why the server last needed sign-in (signed out, refused refresh), if known */
  reasonFor(server: string): string | null
  /** a session found that the server needs sign-in: remembered for status and the UI */
  signInRequired(server: string, reason: string): void
  /** the server answered 401/403 with `challenge`: the next sign-in starts from it */
  challenged(server: string, challenge: Challenge): void
  /** the next sign-in of `server` asks for `scope` (a step-up: the scope it had and the scope the server asked for) */
  stepUp(server: string, scope: string): void
  now(): number
}

/** The server asks again for a scope it was given: another sign-in would loop. */
export class ScopeRefusedError extends OAuthRefusedError {
  override readonly name = 'ScopeRefusedError'
}

/** The authorization server refused the configured client credentials. */
export class ClientRefusedError extends OAuthRefusedError {
  override readonly name = 'ClientRefusedError'
}

export class UpstreamAuth {
  /** the provider the transports use: tokens renewed before they expire */
  readonly provider: OAuthClientProvider
  /** the same storage without the early renewal (what the renewal itself runs auth() with) */
  private readonly plain: OAuthClientProvider
  private discovery: Promise<OAuthDiscoveryState> | undefined
  /** the discovery once it settled */
  private discovered: OAuthDiscoveryState | undefined
  private refreshing: Promise<void> | null = null
  private lastTokenFailure: TokenFailure | null = null
  /** the scope the last client-credentials grant asked for */
  private grantScope: string | undefined
  /** why the next sign-in is needed after a 403 insufficient_scope */
  private stepUpReason: string | null = null
  /** set once the server turned out to need sign-in on this connection */
  needsSignIn: NeedsSignInError | null = null
  /** set once no sign-in or retry can help this server (the connection stops in state error) */
  refused: OAuthRefusedError | null = null
  /** called (once per connection) when the server needs sign-in */
  onNeedsSignIn: (err: NeedsSignInError) => void = () => undefined
  /** called (once per connection) when no sign-in or retry can help */
  onRefused: (err: OAuthRefusedError) => void = () => undefined
  /** the last 401/403 challenge of the MCP endpoint */
  lastChallenge: Challenge | null = null
  readonly url: string
  /** the MCP endpoint as requests name it (no credentials, no fragment) */
  private readonly endpoint: string
  readonly clientCredentials: boolean
  /** the secret values this session handed out (tokens, a registered client's secret): masked in all the server sends back */
  private readonly secrets = new Set<string>()
  private readonly secretListeners = new Set<(values: string[]) => void>()

  constructor(
    readonly config: ServerConfig,
    private readonly host: SessionHost,
  ) {
    if (!config.url) throw new Error(`server "${config.name}" has no url`)
    this.url = config.url
    const u = new URL(config.url)
    u.username = ''
    u.password = ''
    u.hash = ''
    this.endpoint = u.href
    this.clientCredentials = usesClientCredentials(config)
    this.provider = new SessionProvider(this, true)
    this.plain = new SessionProvider(this, false)
  }

  get name(): string {
    return this.config.name
  }

  /** Told every secret value this session has handled and will handle; returns the way to stop. */
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

  /** The loopback callback, or none for a client-credentials server (no browser: the SDK then runs its grant alone). */
  redirectUrl(): string | undefined {
    if (this.clientCredentials) return undefined
    // never visited in the background; the sign-in flow (sign-in.ts) has its own provider
    return this.host.redirectUrl() ?? 'http://127.0.0.1/oauth/callback'
  }

  /**
   * The transport's fetch with the OAuth rules (https only, nothing on this machine for a remote
   * server, failed token requests observed), which also reads the challenges of the MCP endpoint.
   */
  fetch(base: FetchLike): FetchLike {
    const inner = oauthFetch(base, { serverUrl: this.url, onTokenFailure: (f) => this.tokenFailed(f) })
    return async (input, init) => {
      if (this.refused) throw this.refused // a refused server is sent nothing more
      let res: Response
      try {
        res = await inner(input, init)
      } catch (e) {
        const r = refusal(e)
        if (r) this.refuse(r)
        throw e
      }
      const target = typeof input === 'string' ? input : input instanceof URL ? input.href : (input as Request).url
      if (target.split('#')[0] === this.endpoint) this.observe(res)
      return res
    }
  }

  /** A 401/403 of the MCP endpoint: remembered for Sign in; a 403 insufficient_scope asks for more scope once. */
  private observe(res: Response): void {
    const c = readChallenge(res, this.url)
    if (!c) return
    this.lastChallenge = c
    this.host.challenged(this.name, c)
    if (c.status === 401 && !isOAuthScheme(c)) {
      this.refuse(
        new NoOAuthError(
          `server "${this.name}" answered 401 Unauthorized asking for ${c.scheme} credentials, not an OAuth sign-in; ` +
            'give its credentials in "headers" of its config entry',
        ),
      )
      return
    }
    if (!asksForScope(c)) return
    const r = this.record()
    const have = scopeUnion(r?.scope_requested, r?.tokens?.scope)
    if (c.scope === undefined || holdsScopes(have, c.scope)) {
      this.refuse(
        new ScopeRefusedError(
          `server "${this.name}" answered 403 insufficient_scope ${c.scope ? `for scope "${c.scope}", which its sign-in already asked for` : 'without naming the scope it needs'}; ` +
            "another sign-in would ask for the same again, so Toolgate stopped trying. Ask the server's operator which permission is missing, then restart the server",
        ),
      )
      return
    }
    const wanted = scopeUnion(have, c.scope) ?? c.scope
    this.host.stepUp(this.name, wanted)
    this.stepUpReason = `it needs more permissions (scope "${c.scope}") for what was asked; sign in again to grant them`
  }

  private tokenFailed(f: TokenFailure): void {
    this.lastTokenFailure = f
    if (f.grant === 'client_credentials' && f.refused) {
      this.refuse(
        new ClientRefusedError(
          `the authorization server refused Toolgate's client credentials for server "${this.name}" (${f.text}); ` +
            'check oauth.client_id and the secret its client_secret names, then restart the server',
        ),
      )
    }
  }

  /** No sign-in or retry can help: said once, the connection stops in state error. */
  refuse(err: OAuthRefusedError): OAuthRefusedError {
    if (!this.refused) {
      this.refused = err
      this.onRefused(err)
    }
    return this.refused
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
    throw this.stop(this.host.reasonFor(this.name) ?? this.unsignedReason())
  }

  /** Why a server nobody signed in to needs sign-in; one with no OAuth metadata at all gets the 2025-03-26 defaults. */
  private unsignedReason(): string {
    if (this.discovered && !this.discovered.authorizationServerMetadata) {
      return (
        'it asks for a token and publishes no OAuth metadata; Sign in tries the default endpoints of the 2025-03-26 spec ' +
        `(/authorize, /token, /register at ${new URL(this.url).origin}). If it takes an API key instead, give it in "headers" of its config entry`
      )
    }
    return 'it uses OAuth and nobody has signed in yet'
  }

  saveTokens(tokens: OAuthTokens): void {
    this.noteTokens(tokens)
    const now = this.host.now()
    if (this.clientCredentials) {
      this.host.records.update(this.name, this.url, (r) => ({
        ...withTokens(r, tokens, now),
        signed_in_at: new Date(now).toISOString(),
        ...(this.grantScope ? { scope_requested: this.grantScope } : {}),
      }))
      this.lastTokenFailure = null
      return
    }
    // a renewal that was under way when the sign-in ended (sign-out, the server removed) does not bring it back
    if (!this.record()?.tokens) return
    this.host.records.update(this.name, this.url, (r) => withTokens(r, tokens, now))
    this.lastTokenFailure = null
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.noteSecret(info.client_secret)
    if (configuredClient(this.config)) return // the config's client is the config's business
    this.host.records.update(this.name, this.url, (r) => ({ ...r, client: info }))
  }

  /** The client-credentials token request (the SDK's default for everything else). */
  tokenRequest(scope: string | undefined): URLSearchParams | undefined {
    if (!this.clientCredentials) return undefined
    this.grantScope = scope
    return new URLSearchParams({ grant_type: 'client_credentials', ...(scope ? { scope } : {}) })
  }

  forget(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    if (scope === 'discovery') this.discovery = this.discovered = undefined
    if (scope === 'verifier' || scope === 'discovery') return
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
    this.discovered = state
    this.discovery = Promise.resolve(state)
  }

  /** Where this server signs in, discovered once (from the challenge's metadata URL) and checked (discovery.ts). */
  discoveryState(): Promise<OAuthDiscoveryState> {
    if (this.refused) return Promise.reject(this.refused)
    this.discovery ??= discover(this.name, this.url, {
      resourceMetadataUrl: this.lastChallenge?.resourceMetadataUrl,
      fetchFn: oauthFetch(fetch, { serverUrl: this.url }),
    }).then(
      (state) => (this.discovered = state),
      (e: unknown) => {
        this.discovery = undefined
        const r = refusal(e)
        throw r ? this.refuse(r) : e
      },
    )
    return this.discovery
  }

  /** Where the SDK would send the user to the authorization server: this connection stops instead. */
  redirectInstead(): never {
    if (this.refused) throw this.refused
    const f = this.lastTokenFailure
    if (f && !f.refused && this.record()?.tokens?.refresh_token) {
      // an outage, not a refusal: the tokens stay, the connection is retried later
      throw new Error(`could not renew the sign-in of server "${this.name}": ${f.text}`)
    }
    const reason = f?.refused
      ? `the authorization server refused to renew the sign-in (${f.text}); sign in again`
      : (this.stepUpReason ?? this.host.reasonFor(this.name) ?? 'the sign-in is missing or expired; sign in again')
    throw this.stop(reason)
  }

  stop(reason: string): NeedsSignInError {
    const err = new NeedsSignInError(this.name, reason)
    if (!this.needsSignIn) {
      this.needsSignIn = err
      this.host.signInRequired(this.name, reason)
      this.onNeedsSignIn(err)
    }
    return err
  }

  /** Tokens for a request: renewed first when the access token expires soon (a client-credentials token by a new grant). */
  async freshTokens(): Promise<OAuthTokens | undefined> {
    const r = this.record()
    if (!r?.tokens) return undefined
    const now = this.host.now()
    if (!(this.clientCredentials ? expiresSoon(r, now) : shouldRefresh(r, now))) return r.tokens
    this.refreshing ??= this.renew().finally(() => {
      this.refreshing = null
    })
    await this.refreshing
    return this.record()?.tokens
  }

  private async renew(): Promise<void> {
    const d = await this.discoveryState()
    const result = await auth(this.plain, {
      serverUrl: this.url,
      ...(d.resourceMetadataUrl ? { resourceMetadataUrl: new URL(d.resourceMetadataUrl) } : {}),
      fetchFn: this.fetch(fetch),
    })
    if (result !== 'AUTHORIZED') this.redirectInstead()
  }
}
