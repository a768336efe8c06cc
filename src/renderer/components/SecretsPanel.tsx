// The Secrets view: names, whether each is set, which servers use it, what protects the store.
// Values are write-only: typed into a password field, sent once, never shown or fetched back.
import { useState, type FormEvent } from 'react'
import { SECRET_NAME_RE, SECRET_NAME_RULE } from '../../shared/secret-refs'
import { useApp } from '../store/context'

/** Dismissed notices are remembered per text, so a changed one (another key file) shows again. */
const DISMISSED = 'toolgate.dismissed.secrets-key-file'

/**
 * No keyring, so a key file protects the store: said here, where it matters, in plain
 * words, once: Dismiss hides it for good (this browser profile); the system's reason on request.
 */
function KeyFileNotice({ warning, detail }: { warning: string; detail: string | null }) {
  const [dismissed, setDismissed] = useState(() => readDismissed() === warning)
  if (dismissed) return null
  return (
    <div className="notice notice--warn" role="note" data-notice="secrets-key-file">
      <p>{warning}</p>
      {detail && (
        <details>
          <summary>Why</summary>
          <p className="mono small">{detail}</p>
        </details>
      )}
      <button
        type="button"
        className="btn btn--ghost btn--small"
        onClick={() => {
          writeDismissed(warning)
          setDismissed(true)
        }}
      >
        Dismiss
      </button>
    </div>
  )
}

function readDismissed(): string | null {
  try {
    return window.localStorage.getItem(DISMISSED)
  } catch {
    return null
  }
}

function writeDismissed(text: string): void {
  try {
    window.localStorage.setItem(DISMISSED, text)
  } catch {
    // no storage (a locked-down profile): dismissed until the view is opened again
  }
}

export function SecretsPanel() {
  const list = useApp((s) => s.secretList)
  const setSecret = useApp((s) => s.setSecret)
  const deleteSecret = useApp((s) => s.deleteSecret)
  const [name, setName] = useState('')
  const [value, setValue] = useState('')
  const [error, setError] = useState<string | null>(null)

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    if (!SECRET_NAME_RE.test(name)) return setError(`Invalid name: ${SECRET_NAME_RULE}.`)
    if (!value) return setError('Type the value.')
    const err = await setSecret(name, value)
    if (err) return setError(err)
    setError(null)
    setName('')
    setValue('')
  }

  return (
    <div className="secrets">
      <p className="muted">
        Use a secret in a server's environment, headers, arguments or URL as <code>{'${secret:NAME}'}</code>. Values are never shown again; a server that uses a
        secret restarts when it changes.
      </p>
      {list && (
        <p className="small">
          {list.store.error
            ? `The store cannot be read: ${list.store.error}`
            : list.store.backend === 'none'
              ? `${list.store.protected_by.charAt(0).toUpperCase()}${list.store.protected_by.slice(1)}.`
              : `Protected by ${list.store.protected_by}.`}
        </p>
      )}
      {list?.store.warning && <KeyFileNotice warning={list.store.warning} detail={list.store.warning_detail ?? null} />}
      {list && list.secrets.length > 0 && (
        <table className="queries secret-table">
          <thead>
            <tr>
              <th>Name</th>
              <th>Set</th>
              <th>Used by</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {list.secrets.map((s) => (
              <tr key={s.name} data-secret={s.name} data-set={String(s.set)}>
                <td className="mono">{s.name}</td>
                <td>{s.set ? s.updated_at ? `yes, ${new Date(s.updated_at).toLocaleString()}` : 'yes' : <strong>not set</strong>}</td>
                <td>{s.used_by.join(', ') || '—'}</td>
                <td>
                  <button type="button" className="btn btn--small" onClick={() => setName(s.name)}>
                    {s.set ? 'Replace' : 'Set'}
                    <span className="sr-only"> {s.name}</span>
                  </button>{' '}
                  {s.set && (
                    <button
                      type="button"
                      className="btn btn--ghost btn--small"
                      aria-label={`Remove secret ${s.name}`}
                      onClick={() => void deleteSecret(s.name)}
                    >
                      Remove
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {list && list.secrets.length === 0 && <p className="muted">No secrets yet.</p>}
      <form className="secret-form" onSubmit={(e) => void submit(e)}>
        <label className="field">
          <span>Secret name</span>
          <input className="input mono" value={name} placeholder="GITHUB_TOKEN" onChange={(e) => setName(e.target.value)} />
        </label>
        <label className="field">
          <span>Secret value</span>
          <input className="input mono" type="password" autoComplete="off" value={value} onChange={(e) => setValue(e.target.value)} />
        </label>
        <button type="submit" className="btn btn--primary">
          Save secret
        </button>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
      </form>
    </div>
  )
}
