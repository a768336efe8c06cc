// The two ways an OAuth-protected upstream can stop a connection: it needs the user to sign in
// (state needs_auth, no retries until a sign-in), or no sign-in and no retry can help (state
// error at once, with the reason): it answered 401 without offering OAuth at all (its credentials
// belong in the config's headers), its OAuth setup names another server or an unsafe endpoint, it
// refuses the scope it was already given (a step-up loop), or its authorization server refused
// Toolgate's client credentials.

/** The upstream needs an interactive sign-in; `reason` says why, for people (never a token). */
export class NeedsSignInError extends Error {
  override readonly name = 'NeedsSignInError'
  constructor(
    readonly server: string,
    readonly reason: string,
  ) {
    super(`server "${server}" needs sign-in: ${reason}`)
  }
}

/** No sign-in and no retry can help this server: the connection stops in state error with this reason. */
export class OAuthRefusedError extends Error {
  override readonly name: string = 'OAuthRefusedError'
}

/** The upstream answered 401 but offers no OAuth authorization server to sign in with. */
export class NoOAuthError extends OAuthRefusedError {
  override readonly name = 'NoOAuthError'
}

/** Whether `err` (or an error it wraps) says that no sign-in or retry can help. */
export function refusal(err: unknown): OAuthRefusedError | null {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = (e as Error & { cause?: unknown }).cause, depth++) {
    if (e instanceof OAuthRefusedError) return e
  }
  return null
}

/** Whether `err` (or an error it wraps) is a NeedsSignInError. */
export function needsSignIn(err: unknown): NeedsSignInError | null {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = (e as Error & { cause?: unknown }).cause, depth++) {
    if (e instanceof NeedsSignInError) return e
  }
  return null
}

/** Untrusted text from an authorization server, made safe to show: printable, one line, capped. */
export function cleanRemoteText(text: string, max = 200): string {
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max)}…` : flat
}
