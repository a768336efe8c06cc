// A server's OAuth sign-in as the control API, IPC and the CLI see it (docs/remote-servers.md):
// start one, its status, sign out. The entry is resolved first, so a sign-in goes to the URL the
// server connects to; the OAuth service (oauth/service.ts) does the rest.
import { ApiError } from '../../../shared/api'
import type { AuthStatus, SignInStart } from '../../../shared/auth-status'
import type { ServerConfig } from '../../../shared/config-schema'
import { SignInError, type OAuthService } from '../oauth/service'
import { resolveReferences } from '../secrets/resolve'
import type { ServiceDeps } from './deps'

function oauthOf(d: ServiceDeps): OAuthService {
  if (!d.oauth) throw new ApiError('no_sign_in', 'this Toolgate cannot sign in to servers (it has no loopback listener for the redirect)', 409)
  return d.oauth
}

/** The entry (`entry()`: the service's lookup, which throws unknown_server) with its ${secret:…}/${env:…} resolved. */
function resolved(d: ServiceDeps, entry: () => ServerConfig): ServerConfig {
  const s = entry()
  const r = resolveReferences(s, { secret: (n) => d.secrets.get(n), env: process.env })
  if (!r.ok) throw new ApiError('missing_reference', `server "${s.name}": ${r.error}`, 409)
  return r.config
}

export async function startSignIn(d: ServiceDeps, entry: () => ServerConfig): Promise<SignInStart> {
  const config = resolved(d, entry)
  try {
    return await oauthOf(d).start(config)
  } catch (e) {
    if (e instanceof SignInError) throw new ApiError(e.code, e.message, e.code === 'failed' ? 502 : 409)
    throw e
  }
}

export function signInStatus(d: ServiceDeps, entry: () => ServerConfig): AuthStatus {
  return oauthOf(d).status(resolved(d, entry))
}

/** Signs out: the answer says what became of the tokens. */
export function signOutOf(d: ServiceDeps, entry: () => ServerConfig): Promise<string> {
  return oauthOf(d).signOut(resolved(d, entry))
}
