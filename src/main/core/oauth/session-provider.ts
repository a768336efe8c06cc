// The MCP SDK's view of an upstream connection's OAuth session (session.ts): the
// OAuthClientProvider its HTTP transports and auth() call. `early` renews tokens before they
// expire (what the transports use); the renewal itself runs with `early` off. A session that was
// refused (no sign-in or retry can help) answers every call with that refusal.
import { randomBytes } from 'node:crypto'
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/client'
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/client'
import { clientMetadata } from './client-info'
import type { UpstreamAuth } from './session'

export class SessionProvider implements OAuthClientProvider {
  constructor(
    private readonly s: UpstreamAuth,
    private readonly early: boolean,
  ) {}

  get redirectUrl(): string | undefined {
    return this.s.redirectUrl()
  }
  get clientMetadata(): OAuthClientMetadata {
    return clientMetadata(this.s.config, this.redirectUrl)
  }
  state(): string {
    return randomBytes(32).toString('base64url')
  }
  clientInformation(): OAuthClientInformationMixed {
    if (this.s.refused) throw this.s.refused
    return this.s.clientInformation()
  }
  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.s.saveClientInformation(info)
  }
  tokens(): Promise<OAuthTokens | undefined> | OAuthTokens | undefined {
    if (this.s.refused) throw this.s.refused
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
  prepareTokenRequest(scope?: string): URLSearchParams | undefined {
    return this.s.tokenRequest(scope)
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
  discoveryState(): Promise<OAuthDiscoveryState> {
    return this.s.discoveryState()
  }
}
