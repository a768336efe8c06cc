// `toolgate auth login|status|logout SERVER`: OAuth sign-in of an HTTP server from the terminal.
// login prints the authorization page to open and waits until the browser has come back to
// Toolgate's loopback callback (the live owner's listener, or one started for this command).
import type { AuthStatus } from '../../shared/auth-status'
import { openOperator, withOperator, type Where } from './control-client'

const POLL_MS = 500

export async function authLogin(server: string, where: Where): Promise<void> {
  const op = await openOperator(where, { listen: true })
  const stop = (): void => {
    void op.close().finally(() => process.exit(130))
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
  try {
    const start = await op.api.signIn(server)
    process.stdout.write(
      `To sign in to ${server}, open this page in a browser on this machine:\n\n  ${start.authorization_url}\n\n` +
        `Waiting for the sign-in to finish (until ${new Date(start.expires_at).toLocaleTimeString()}; Ctrl+C to stop)…\n`,
    )
    let status: AuthStatus
    for (;;) {
      status = await op.api.authStatus(server)
      if (status.status !== 'signing_in') break
      await new Promise((r) => setTimeout(r, POLL_MS))
    }
    if (status.status === 'signed_in') {
      process.stdout.write(`Signed in to ${server}.\n`)
      return
    }
    throw new Error(`the sign-in to ${server} did not complete: ${status.last_attempt?.message ?? status.reason ?? 'no answer came back'}`)
  } finally {
    process.off('SIGINT', stop)
    process.off('SIGTERM', stop)
    await op.close()
  }
}

export function statusText(s: AuthStatus): string {
  const lines = [`${s.server}: ${s.status.replace(/_/g, ' ')}${s.reason ? ` (${s.reason})` : ''}`]
  if (s.authorization_server) lines.push(`  authorization server: ${s.authorization_server}`)
  if (s.client) lines.push(`  client: ${s.client === 'configured' ? 'oauth.client_id from the config' : 'registered by Toolgate (dynamic registration)'}`)
  if (s.signed_in_at) lines.push(`  signed in: ${s.signed_in_at}`)
  if (s.expires_at)
    lines.push(`  access token expires: ${s.expires_at}${s.refreshable ? ' (renewed automatically)' : ' (no refresh token: sign in again then)'}`)
  if (s.scopes.length) lines.push(`  scopes: ${s.scopes.join(' ')}`)
  if (s.pending) lines.push(`  a sign-in is waiting for the browser until ${s.pending.expires_at}`)
  if (s.last_attempt && !s.last_attempt.ok) lines.push(`  last sign-in (${s.last_attempt.at}): ${s.last_attempt.message}`)
  if (s.status !== 'not_applicable') lines.push(`  tokens are kept in ${s.stored_in}`)
  return lines.join('\n') + '\n'
}

export async function authStatus(server: string, where: Where, json: boolean): Promise<void> {
  await withOperator(where, async (op) => {
    const s = await op.api.authStatus(server)
    process.stdout.write(json ? JSON.stringify(s, null, 2) + '\n' : statusText(s))
  })
}

export async function authLogout(server: string, where: Where): Promise<void> {
  await withOperator(where, async (op) => {
    process.stdout.write((await op.api.signOut(server)).message + '\n')
  })
}
