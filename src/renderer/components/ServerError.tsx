// A failing server's error on its card: what happened and what to do in plain words
// (src/shared/upstream-error.ts), whether Toolgate still retries, and the raw text behind
// "Details". The card's primary action is then Restart server (ServerActions). Text nodes only;
// what the program printed may hold escape sequences: shown as escapes (Visible).
import type { ServerInfo } from '../../shared/api'
import { explainServerError, retryText } from '../../shared/upstream-error'
import { AlertIcon } from './icons'
import { Visible } from './Visible'

export function ServerError({ server }: { server: ServerInfo }) {
  if (!server.last_error) {
    return (
      <p className="notice notice--danger" data-server-error>
        <AlertIcon />
        <span>Not running. Restart server starts it again.</span>
      </p>
    )
  }
  const e = explainServerError(server.last_error)
  return (
    <div className="notice notice--danger server-error" data-server-error role="group" aria-label={`${server.name} failed`}>
      <AlertIcon />
      <div>
        <p>
          <strong data-error-title>{e.title}</strong> {e.hint}
        </p>
        {e.said && (
          <p className="small">
            It said:{' '}
            <code>
              <Visible text={e.said} />
            </code>
          </p>
        )}
        {e.retry && <p className="small muted">{retryText(e)} Restart server tries again now.</p>}
        <details className="error-details">
          <summary>Details</summary>
          <pre>
            <Visible text={server.last_error} />
          </pre>
        </details>
      </div>
    </div>
  )
}
