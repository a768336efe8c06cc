// Problems the user must see: a bad config (the last good one keeps running), an unreadable
// state file, failed actions. Never swallowed; action errors can be dismissed.
import { useEffect } from 'react'
import { useApp } from '../store/context'
import { AlertIcon } from './icons'
import { localTimes } from '../lib/local-times'

export function Banners() {
  const info = useApp((s) => s.info)
  const banners = useApp((s) => s.banners)
  const dismiss = useApp((s) => s.dismiss)
  return (
    <div className="banners">
      {info?.config_error && (
        <div className="banner banner--danger" role="alert">
          <AlertIcon />
          <div>
            <strong>The config file has an error; Toolgate keeps running the last good config, without what it cannot use.</strong>
            <p className="mono small">{info.config_path}</p>
            <p>{info.config_error}</p>
          </div>
        </div>
      )}
      {info?.policy?.error && (
        <div className="banner banner--danger" role="alert" data-banner="policy-error">
          <AlertIcon />
          <div>
            <strong>Your organisation&apos;s policy file cannot be used, so no server runs until it is fixed.</strong>
            <p className="mono small">{info.policy.file}</p>
            <p>{info.policy.error}</p>
          </div>
        </div>
      )}
      {info && info.config_warnings?.length > 0 && (
        <div className="banner banner--warn" role="status" data-banner="config-warnings">
          <AlertIcon />
          <div>
            <strong>The config file has keys Toolgate does not know; they are ignored (typos?).</strong>
            <p className="mono small">{info.config_path}</p>
            <p className="mono small">{info.config_warnings.join(', ')}</p>
          </div>
        </div>
      )}
      {info && (info.config_notes?.length ?? 0) > 0 && (
        <div className="banner banner--warn" role="status" data-banner="config-notes">
          <AlertIcon />
          <div>
            <strong>The config file has something that looks like a mistake.</strong>
            <p className="mono small">{info.config_path}</p>
            {info.config_notes?.map((n) => (
              <p key={n}>{n}</p>
            ))}
          </div>
        </div>
      )}
      {info?.state_warning && (
        <div className="banner banner--warn" role="alert">
          <AlertIcon />
          <div>
            <strong>Problem with Toolgate's state file.</strong>
            <p>{info.state_warning}</p>
          </div>
        </div>
      )}
      {info?.secrets?.error && (
        <div className="banner banner--danger" role="alert">
          <AlertIcon />
          <div>
            <strong>The secret store cannot be read; servers that use secrets cannot start.</strong>
            <p>{info.secrets.error}</p>
          </div>
        </div>
      )}
      {banners.map((b) => (
        <div key={b.id} className="banner banner--danger" role="alert">
          <AlertIcon />
          <div>
            <p>{b.message}</p>
          </div>
          <button type="button" className="btn btn--ghost btn--small" onClick={() => dismiss(b.id)}>
            Dismiss
          </button>
        </div>
      ))}
    </div>
  )
}

export function Toast() {
  const toast = useApp((s) => s.toast)
  const action = useApp((s) => s.toastAction)
  const clear = useApp((s) => s.clearToast)
  useEffect(() => {
    if (!toast) return
    // a toast with an action (Undo) stays long enough to use it
    const t = setTimeout(clear, action ? 15000 : 4000)
    return () => clearTimeout(t)
  }, [toast, action, clear])
  return (
    <div className="toast-region" role="status" aria-live="polite">
      {toast && (
        <div className="toast">
          <span>{localTimes(toast)}</span>
          {action && (
            <button type="button" className="btn btn--small toast-action" onClick={action.run}>
              {action.label}
            </button>
          )}
        </div>
      )}
    </div>
  )
}
