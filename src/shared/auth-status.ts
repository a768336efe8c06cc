// A server's OAuth sign-in as the control API shows it (docs/remote-servers.md): where it stands,
// the summary on a server's card, the full status (`toolgate auth status`) and a sign-in started.
// Never a token.

/** Where a server's OAuth sign-in stands (docs/remote-servers.md). */
export type AuthState = 'signed_in' | 'needs_sign_in' | 'signing_in' | 'not_signed_in' | 'not_applicable'

/** A server's sign-in as the window shows it: present once OAuth is known to apply (signed in, needs or is doing a sign-in). */
export interface ServerAuthSummary {
  status: Exclude<AuthState, 'not_applicable'>
  /** why a sign-in is needed (never a token) */
  reason?: string
}

/** `toolgate auth status`, `GET /api/v1/servers/:name/auth`: everything about a sign-in but the tokens. */
export interface AuthStatus {
  server: string
  status: AuthState
  reason: string | null
  /** the authorization server the tokens come from */
  authorization_server: string | null
  /** the client Toolgate signs in as: the config's oauth.client_id, or one from dynamic registration */
  client: 'configured' | 'registered' | null
  signed_in_at: string | null
  /** when the current access token expires (it is renewed before) */
  expires_at: string | null
  /** whether a refresh token can renew it without the user */
  refreshable: boolean
  scopes: string[]
  /** a sign-in waiting for the browser to come back */
  pending: { expires_at: string } | null
  /** how the last sign-in started here ended */
  last_attempt: { ok: boolean; message: string; at: string } | null
  /** where tokens and client secrets are kept */
  stored_in: string
}

/** A sign-in started: the page the user opens (the system browser, a new tab, or by hand from the CLI). */
export interface SignInStart {
  server: string
  authorization_url: string
  /** the sign-in must be completed before this */
  expires_at: string
  /** Electron opened the system browser already */
  opened?: boolean
}
