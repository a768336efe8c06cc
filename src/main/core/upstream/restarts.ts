// What restarts a server from outside its config entry: a secret it uses set, changed or removed
// (a server waiting in `error` for it too), and a completed sign-in or a sign-out of an HTTP
// server, which then connects with its new tokens (or finds it needs sign-in again).
import { secretsUsedBy } from '../../../shared/secret-refs'
import type { Logger } from '../log'
import type { OAuthService } from '../oauth/service'
import type { Secrets } from '../secrets/store'
import type { Upstream } from './upstream'

/** Restarts the running servers of `servers()` that use a secret that changed; returns the detach. */
export function restartOnSecrets(secrets: Secrets, servers: () => Iterable<[string, { up: Upstream }]>, logger: Logger): () => void {
  return secrets.onChange((names) => {
    for (const [name, { up }] of servers()) {
      if (up.state === 'stopped' || !secretsUsedBy(up.config).some((n) => names.includes(n))) continue
      logger.info({ server: name, secrets: names }, 'a secret it uses changed; restarting')
      void up.restart().catch((e: unknown) => logger.warn({ server: name, err: String(e) }, 'restart failed'))
    }
  })
}

/** Calls `restart` with the server whose sign-in completed or ended; returns the detach. */
export function restartOnSignIn(oauth: OAuthService, restart: (server: string) => void): () => void {
  oauth.on('signedIn', restart)
  oauth.on('signedOut', restart)
  return () => {
    oauth.off('signedIn', restart)
    oauth.off('signedOut', restart)
  }
}
