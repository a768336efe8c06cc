// OAuth for HTTP upstreams, in one place: sessions for the upstream connections (session.ts),
// sign-ins started from the window, the tray or `toolgate auth login` and finished at the loopback
// callback (sign-in.ts, flows.ts), status, sign-out, and the end of a removed server's sign-in.
// Tokens and registered clients live in the secret store's "oauth" namespace (record.ts), never
// in mcp_config.json, state.json, a log line or an API answer.
import { EventEmitter } from 'node:events'
import type { AuthState, AuthStatus, ServerAuthSummary, SignInStart } from '../../../shared/auth-status'
import { usesStdio, type ServerConfig } from '../../../shared/config-schema'
import type { Logger } from '../log'
import { scopeUnion, type Challenge } from './challenge'
import { CALLBACK_PATH, configScopes, configuredClient, usesClientCredentials } from './client-info'
import { NeedsSignInError } from './errors'
import { InsecureUrlError, oauthFetch, secureUrl } from './fetch'
import { PendingFlows, type FlowOutcome } from './flows'
import { OAuthRecords, withoutTokens, type SecretSlots } from './record'
import { revokeGrant, type Revocation } from './revoke'
import { UpstreamAuth, type SessionHost } from './session'
import { beginSignIn, finishSignIn, probe, type Probe, type SignInDeps } from './sign-in'

export { CALLBACK_PATH }

export interface OAuthServiceOptions {
  /** the secret store's "oauth" namespace */
  slots: SecretSlots
  /** what protects `slots`, for `auth status` ("the secret store (…)") */
  storedIn: () => string
  logger: Logger
  /** this process's loopback listener (`http://127.0.0.1:PORT`), once it listens */
  listenerUrl(): string | null
  /** the server's current config entry with `${secret:…}`/`${env:…}` resolved, or null when it is gone */
  serverConfig(name: string): ServerConfig | null
  now?: () => number
  flowTtlMs?: number
}

export interface CallbackAnswer {
  status: number
  title: string
  message: string
}

export class SignInError extends Error {
  constructor(
    readonly code: 'not_applicable' | 'no_listener' | 'insecure' | 'no_sign_in' | 'failed',
    message: string,
  ) {
    super(message)
  }
}

/** Whether OAuth sign-in applies to a server entry: HTTP, without an Authorization header of its own. */
export function oauthApplies(config: ServerConfig): boolean {
  if (usesStdio(config) || !config.url) return false
  return !Object.keys(config.headers ?? {}).some((k) => k.toLowerCase() === 'authorization')
}

export class OAuthService extends EventEmitter<{ changed: [server: string]; signedIn: [server: string]; signedOut: [server: string] }> {
  readonly records: OAuthRecords
  private readonly flows: PendingFlows
  /** servers found to need sign-in, with why (until they are signed in) */
  private readonly required = new Map<string, string>()
  /** the last 401/403 challenge each server's connection got: Sign in starts from it instead of probing */
  private readonly challenges = new Map<string, Challenge>()
  /** the scope the next sign-in of a server asks for, after a 403 insufficient_scope (a step-up) */
  private readonly stepUps = new Map<string, { url: string; scope: string }>()
  /** how each server's last sign-in ended */
  private readonly attempts = new Map<string, { ok: boolean; message: string; at: string }>()
  /** revocations of removed servers' tokens (under way, or ended in the last minute) */
  private readonly revoking = new Map<string, Promise<Revocation>>()
  /** revocations of tokens a sign-in got after it was ended (deps().discard) */
  private readonly discarding = new Set<Promise<Revocation>>()
  private readonly now: () => number
  private readonly host: SessionHost

  constructor(private readonly o: OAuthServiceOptions) {
    super()
    this.records = new OAuthRecords(o.slots)
    this.now = o.now ?? Date.now
    this.flows = new PendingFlows(this.now, o.flowTtlMs)
    this.host = {
      records: this.records,
      redirectUrl: () => this.redirectUrl(),
      reasonFor: (server) => this.required.get(server) ?? null,
      signInRequired: (server, reason) => {
        if (this.required.get(server) === reason) return
        this.required.set(server, reason)
        this.emit('changed', server)
      },
      challenged: (server, challenge) => void this.challenges.set(server, challenge),
      stepUp: (server, scope) => void this.stepUps.set(server, { url: this.urlOf(server) ?? '', scope }),
      now: this.now,
    }
  }

  redirectUrl(): string | null {
    const base = this.o.listenerUrl()
    return base ? `${base}${CALLBACK_PATH}` : null
  }

  private urlOf(server: string): string | undefined {
    return this.o.serverConfig(server)?.url
  }

  /** The OAuth side of a new connection to `config` (resolved); null when OAuth does not apply. */
  sessionFor(config: ServerConfig): UpstreamAuth | null {
    if (!oauthApplies(config)) return null
    // a bearer token never goes over plain http to another machine: such a server's 401 stays a plain error
    if (!secureUrl(new URL(config.url as string))) return null
    return new UpstreamAuth(config, this.host)
  }

  /** What a sign-in of the server at `serverUrl` needs. */
  private deps(serverUrl: string): SignInDeps {
    return {
      records: this.records,
      now: this.now,
      fetch: oauthFetch(fetch, { serverUrl }),
      discard: (flow, tokens, client) => {
        const done = revokeGrant(flow.discovery?.authorizationServerUrl, client, tokens, this.revocationFetch()).then((outcome) => {
          if (outcome.ok) this.o.logger.info({ server: flow.server }, 'a sign-in ended while its code was exchanged: the tokens it got were revoked')
          else
            this.o.logger.warn(
              { server: flow.server },
              `a sign-in ended while its code was exchanged: the tokens it got were not kept, but not revoked: ${outcome.reason}`,
            )
          return outcome
        })
        this.discarding.add(done)
        void done.then(() => this.discarding.delete(done))
      },
    }
  }

  /** Starts a sign-in of `config` (resolved): the URL to open; the browser comes back to the callback. */
  async start(config: ServerConfig): Promise<SignInStart> {
    const name = config.name
    if (!oauthApplies(config)) {
      throw new SignInError(
        'not_applicable',
        usesStdio(config)
          ? `server "${name}" runs on this machine (stdio); sign-in is for HTTP servers`
          : `server "${name}" sends its own Authorization header (config "headers"); remove it to sign in with OAuth`,
      )
    }
    if (usesClientCredentials(config)) {
      throw new SignInError(
        'not_applicable',
        `server "${name}" signs in by itself with its client credentials (oauth.grant_type "client_credentials"): there is no browser sign-in; restart it to get a new token`,
      )
    }
    const url = new URL(config.url as string)
    if (!secureUrl(url)) throw new SignInError('insecure', new InsecureUrlError(url).message)
    const redirectUrl = this.redirectUrl()
    if (!redirectUrl) throw new SignInError('no_listener', 'this Toolgate has no loopback listener to receive the sign-in')
    const d = this.deps(config.url as string)
    // what the connection was answered (a server may let initialize through and ask for a token only later), else one probe
    const seen = this.challenges.get(name)
    let p: Probe
    if (seen && seen.url === config.url) {
      p = {
        asks: true,
        ...(seen.resourceMetadataUrl ? { resourceMetadataUrl: new URL(seen.resourceMetadataUrl) } : {}),
        ...(seen.scope ? { scope: seen.scope } : {}),
      }
    } else {
      try {
        p = await probe(config, d.fetch)
      } catch (e) {
        throw new SignInError('failed', `could not reach server "${name}" at ${url.origin}: ${(e as Error).message}`)
      }
    }
    if (!p.asks && !config.oauth) {
      throw new SignInError('no_sign_in', `server "${name}" answers without asking for a sign-in; there is nothing to sign in to`)
    }
    const stepUp = this.stepUps.get(name)
    // the config's scopes, the challenge's, and the scope a step-up asked for: all of them, once
    const scope = scopeUnion(configScopes(config), p.scope, stepUp && stepUp.url === config.url ? stepUp.scope : undefined)
    const flow = this.flows.create(name, config.url as string, redirectUrl)
    try {
      await beginSignIn(flow, config, p, scope, d)
    } catch (e) {
      this.flows.drop(flow)
      throw new SignInError('failed', `could not start the sign-in of server "${name}": ${(e as Error).message}`)
    }
    this.o.logger.info({ server: name, authorization_server: flow.discovery?.authorizationServerUrl }, 'sign-in started')
    void flow.done.then((outcome) => this.finished(name, outcome))
    this.emit('changed', name)
    return { server: name, authorization_url: flow.authorizationUrl as string, expires_at: new Date(flow.expiresAt).toISOString() }
  }

  /** Resolves when the sign-in pending for `server` ends (or at once when none is pending). */
  async wait(server: string): Promise<FlowOutcome> {
    const flow = this.flows.of(server)
    if (!flow) return { ok: false, message: `no sign-in of server "${server}" is in progress` }
    return flow.done
  }

  /** GET /oauth/callback: only a live state gets its code exchanged; the answer is a page for the browser. */
  async callback(params: URLSearchParams): Promise<CallbackAnswer> {
    const taken = this.flows.take(params.get('state'))
    if ('error' in taken) {
      this.o.logger.warn(`sign-in redirect refused: ${taken.error}`)
      return { status: 400, title: 'Sign-in refused', message: `Toolgate refused this sign-in redirect: ${taken.error}.` }
    }
    const flow = taken.flow
    const outcome = await finishSignIn(flow, this.o.serverConfig(flow.server), params, this.deps(flow.url))
    flow.finish(outcome)
    return outcome.ok
      ? { status: 200, title: 'Signed in', message: `Signed in to ${flow.server}. You can close this tab and go back to Toolgate.` }
      : { status: 400, title: 'Sign-in failed', message: `The sign-in to ${flow.server} did not complete: ${outcome.message}.` }
  }

  private finished(server: string, outcome: FlowOutcome): void {
    this.attempts.set(server, { ...outcome, at: new Date(this.now()).toISOString() })
    if (outcome.ok) {
      this.required.delete(server)
      this.challenges.delete(server)
      this.stepUps.delete(server)
      this.o.logger.info({ server }, 'signed in')
      this.emit('signedIn', server)
    } else {
      this.o.logger.warn({ server }, `sign-in not completed: ${outcome.message}`)
    }
    this.emit('changed', server)
  }

  /** Deletes the tokens of `config` (and revokes the refresh token where the server offers it). */
  async signOut(config: ServerConfig): Promise<string> {
    const name = config.name
    this.flows.cancel(name, 'signed out')
    const r = oauthApplies(config) && config.url ? this.records.read(name, config.url) : null
    if (!r?.tokens) {
      return `Server ${name} was not signed in.`
    }
    const revoked = (await revokeGrant(r.authorization_server, configuredClient(config) ?? r.client, r.tokens, this.revocationFetch())).ok
    this.records.update(name, config.url as string, withoutTokens)
    this.required.set(name, 'signed out; sign in to connect again')
    this.o.logger.info({ server: name, revoked }, 'signed out')
    this.emit('signedOut', name)
    this.emit('changed', name)
    return `Signed out of ${name}: its tokens were deleted${revoked ? ' and revoked at the authorization server' : ''}.`
  }

  /** The sign-in of `config` (resolved) without any token. */
  status(config: ServerConfig): AuthStatus {
    const name = config.name
    const base: AuthStatus = {
      server: name,
      status: 'not_applicable',
      reason: null,
      authorization_server: null,
      client: configuredClient(config) ? 'configured' : null,
      signed_in_at: null,
      expires_at: null,
      refreshable: false,
      scopes: [],
      pending: null,
      last_attempt: this.attempts.get(name) ?? null,
      stored_in: this.o.storedIn(),
    }
    if (!oauthApplies(config)) {
      return { ...base, client: null, reason: usesStdio(config) ? 'a stdio server: no sign-in' : 'it sends its own Authorization header' }
    }
    const r = this.records.read(name, config.url as string)
    const flow = this.flows.of(name)
    const needed = this.required.get(name) ?? null
    // signed in, but the server asks for more scope (a step-up): the tokens stay until the new sign-in replaces them
    const steppingUp = needed !== null && this.stepUps.get(name)?.url === config.url
    const status: AuthState = flow ? 'signing_in' : r?.tokens && !steppingUp ? 'signed_in' : needed ? 'needs_sign_in' : 'not_signed_in'
    return {
      ...base,
      status,
      reason: r?.tokens && !steppingUp ? null : needed,
      authorization_server: r?.authorization_server ?? null,
      client: base.client ?? (r?.client ? 'registered' : null),
      signed_in_at: r?.tokens ? (r.signed_in_at ?? null) : null,
      expires_at: r?.tokens && r.expires_at !== undefined ? new Date(r.expires_at).toISOString() : null,
      refreshable: Boolean(r?.tokens?.refresh_token),
      scopes: r?.tokens?.scope ? r.tokens.scope.split(' ').filter(Boolean) : [],
      pending: flow ? { expires_at: new Date(flow.expiresAt).toISOString() } : null,
    }
  }

  /** What the server list shows: only once OAuth is known to apply (a 401 seen, a sign-in, or `oauth` in the config). */
  summary(config: ServerConfig): ServerAuthSummary | undefined {
    if (!oauthApplies(config)) return undefined
    const s = this.status(config)
    if (s.status === 'not_applicable' || (s.status === 'not_signed_in' && !config.oauth)) return undefined
    return { status: s.status, ...(s.reason ? { reason: s.reason } : {}) }
  }

  private revocationFetch() {
    return oauthFetch(fetch)
  }

  /**
   * A server that is gone (removed in the window, by the CLI or the API, by an agent, or from the
   * file): its sign-in ends. A pending sign-in is cancelled and its record (tokens and registered
   * client) deleted at once; the tokens are revoked at the authorization server in the background
   * (`howEnded(server)` answers how that went). `last` is its last entry (resolved, for a client from
   * the config), null when unknown.
   */
  endSignIn(server: string, last: ServerConfig | null): void {
    this.flows.cancel(server, 'the server was removed')
    this.required.delete(server)
    this.challenges.delete(server)
    this.stepUps.delete(server)
    this.attempts.delete(server)
    let r
    try {
      r = this.records.take(server)
    } catch (e) {
      this.o.logger.error({ server }, `removed server: its sign-in could not be deleted from the secret store: ${(e as Error).message}`)
      return
    }
    if (r?.tokens) {
      const tokens = r.tokens
      const client = (last ? configuredClient(last) : undefined) ?? r.client
      const done = revokeGrant(r.authorization_server, client, tokens, this.revocationFetch()).then((outcome) => {
        if (outcome.ok) this.o.logger.info({ server, authorization_server: r.authorization_server }, 'removed server: its tokens were revoked')
        else this.o.logger.warn({ server }, `removed server: its tokens were deleted but not revoked: ${outcome.reason}`)
        return outcome
      })
      this.revoking.set(server, done)
      // the outcome stays a minute for the answer to the removal (howEnded), then goes
      void done.then(() =>
        setTimeout(() => {
          if (this.revoking.get(server) === done) this.revoking.delete(server)
        }, 60_000).unref(),
      )
      this.o.logger.info({ server }, 'removed server: its sign-in ended, the tokens were deleted')
    }
    this.emit('changed', server)
  }

  /** Servers with a stored sign-in that are not among `configured` (removed while Toolgate was not running): their sign-ins end. */
  endSignInsNotIn(configured: string[]): string[] {
    let gone: string[]
    try {
      gone = this.records.servers().filter((s) => !configured.includes(s))
    } catch (e) {
      this.o.logger.error(`the sign-ins of removed servers could not be looked up in the secret store: ${(e as Error).message}`)
      return []
    }
    for (const s of gone) this.endSignIn(s, null)
    return gone
  }

  /**
   * The sentence for the answer to a removal: how the end of `server`'s sign-in went, waiting at
   * most `waitMs` for its revocation; null when it had no tokens.
   */
  async howEnded(server: string, waitMs = 3000): Promise<string | null> {
    const done = this.revoking.get(server)
    if (!done) return null
    let timer: NodeJS.Timeout | undefined
    const outcome = await Promise.race([done, new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), waitMs).unref()))]).finally(() =>
      clearTimeout(timer),
    )
    return endingSentence(outcome)
  }

  /** Waits (at most `waitMs`) for the revocations under way, so a process that stops does not cut them off. */
  async settle(waitMs = 6000): Promise<void> {
    if (this.revoking.size === 0 && this.discarding.size === 0) return
    let timer: NodeJS.Timeout | undefined
    await Promise.race([
      Promise.allSettled([...this.revoking.values(), ...this.discarding]),
      new Promise((resolve) => (timer = setTimeout(resolve, waitMs).unref())),
    ]).finally(() => clearTimeout(timer))
  }
}

function endingSentence(outcome: Revocation | null): string {
  const head = 'Its sign-in ended: the tokens were deleted'
  if (!outcome) return `${head}; revoking them at the authorization server is still under way (the log says how it ends).`
  if (outcome.ok) return `${head} and revoked at the authorization server.`
  return `${head}, but revoking them at the authorization server failed (${outcome.reason}): they stay valid there until they expire or you revoke Toolgate's access at the provider.`
}

export { NeedsSignInError }
