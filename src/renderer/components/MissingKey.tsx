// The web UI without a usable key: where the right URL comes from, and a field to paste the key
// (or the whole URL `toolgate serve` printed). The key is kept for this tab only.
import { useId, useState, type FormEvent } from 'react'
import { keyFromInput } from '../api/key'

export function MissingKey({ refused, onForget, onKey }: { refused?: string; onForget?: () => void; onKey?: (key: string) => void }) {
  const [text, setText] = useState('')
  const [problem, setProblem] = useState<string | null>(null)
  const fieldId = useId()
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const key = keyFromInput(text)
    if (!key) return setProblem('That is not a key: paste the key itself, or the whole URL that ends in #key=…')
    setProblem(null)
    onKey?.(key)
  }
  return (
    <main className="keyscreen">
      <div className="keycard">
        <div className="brand">
          <span className="logo" aria-hidden="true" />
          <span className="brand-name">Toolgate</span>
        </div>
        <h1>{refused ? 'The API key was not accepted' : 'Open the link that toolgate serve printed'}</h1>
        {refused && <p className="notice notice--danger">{refused}</p>}
        <p>
          This page controls your Toolgate instance, so it needs its API key. When <code>toolgate serve</code> starts, it prints a URL that ends in{' '}
          <code>#key=…</code>. Open that exact URL, or paste the key (or the whole URL) here; the key is kept for this tab only and removed from the address
          bar.
        </p>
        {onKey && (
          <form className="keyform" onSubmit={submit}>
            <label htmlFor={fieldId}>API key</label>
            <div className="keyform-row">
              <input
                id={fieldId}
                type="password"
                autoComplete="off"
                spellCheck={false}
                value={text}
                aria-invalid={problem ? true : undefined}
                aria-describedby={problem ? `${fieldId}-problem` : undefined}
                onChange={(e) => setText(e.target.value)}
              />
              <button type="submit" className="btn btn--primary">
                Use this key
              </button>
            </div>
            {problem && (
              <p className="small keyform-problem" id={`${fieldId}-problem`} role="alert">
                {problem}
              </p>
            )}
          </form>
        )}
        <p className="muted small">
          The key is also stored in <code>api_key</code> in the Toolgate data folder (default <code>~/.toolgate</code>), unless it is set in the config or by{' '}
          <code>TOOLGATE_API_KEY</code>.
        </p>
        {onForget && (
          <button type="button" className="btn" onClick={onForget}>
            Forget this key
          </button>
        )}
      </div>
    </main>
  )
}
