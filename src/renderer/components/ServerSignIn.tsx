// A server's OAuth sign-in on its card: the Sign in button (when it needs one), Sign out (when
// signed in), and the sentence that says why, or that the browser is waiting.
import type { ServerInfo } from '../../shared/api'
import { useApp } from '../store/context'
import { busyKey } from '../store/store'
import { KeyIcon } from './icons'

/** Whether the card offers Sign in: the server waits in needs_auth, or (quarantined) its Inspect needs a sign-in first. */
export function offersSignIn(server: ServerInfo): boolean {
  if (!server.enabled || server.quarantine_source === 'config' || server.quarantine_source === 'organisation') return false
  const a = server.auth?.status
  return server.state === 'needs_auth' || a === 'needs_sign_in' || a === 'signing_in' || (server.quarantined && a === 'not_signed_in')
}

export function SignInButton({ server }: { server: ServerInfo }) {
  const busy = useApp((s) => Boolean(s.busy[busyKey('sign-in', server.name)]))
  const signIn = useApp((s) => s.signIn)
  if (!offersSignIn(server)) return null
  return (
    <button type="button" className="btn btn--primary" disabled={busy} aria-busy={busy || undefined} onClick={() => void signIn(server.name)}>
      Sign in
    </button>
  )
}

export function SignOutButton({ server }: { server: ServerInfo }) {
  const busy = useApp((s) => Boolean(s.busy[busyKey('sign-out', server.name)]))
  const signOut = useApp((s) => s.signOut)
  if (server.auth?.status !== 'signed_in') return null
  return (
    <button type="button" className="btn btn--ghost" disabled={busy} aria-busy={busy || undefined} onClick={() => void signOut(server.name)}>
      Sign out
    </button>
  )
}

/** The sentence under the header: why a sign-in is needed, or that the browser is on it. */
export function SignInNotice({ server }: { server: ServerInfo }) {
  const page = useApp((s) => s.signInPages[server.name])
  if (!offersSignIn(server)) return null
  if (server.auth?.status === 'signing_in') {
    return (
      <p className="notice notice--info">
        <KeyIcon />
        <span>
          Waiting for the sign-in in your browser…{' '}
          {page && (
            <a href={page} target="_blank" rel="noopener noreferrer">
              Open the sign-in page again
            </a>
          )}
        </span>
      </p>
    )
  }
  const why = server.auth?.reason ?? server.last_error
  return (
    <p className="notice notice--warn">
      <KeyIcon />
      <span>
        {server.quarantined
          ? 'This server asks for a sign-in before Inspect can list its tools.'
          : 'Needs sign-in: agents cannot call its tools until you sign in.'}
        {why ? ` (${why})` : ''} <strong>Sign in</strong> opens its sign-in page in your browser; the tokens stay in Toolgate's secret store.
      </span>
    </p>
  )
}
