// The exact snippet that connects a client (the same as `toolgate connect <client>`), with a copy button.
import { useState } from 'react'
import type { ConnectSnippet } from '../../shared/api'

export function ConnectSnippets({ snippets }: { snippets: ConnectSnippet[] }) {
  const [client, setClient] = useState(snippets[0]?.client ?? '')
  const [copied, setCopied] = useState<string | null>(null)
  const current = snippets.find((s) => s.client === client) ?? snippets[0]
  if (!current) return null
  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(current.snippet)
      setCopied(current.client)
    } catch {
      setCopied(null)
    }
  }
  return (
    <div className="snippets" data-connect={current.client}>
      <div className="snippets-tabs" role="tablist" aria-label="MCP client">
        {snippets.map((s) => (
          <button
            key={s.client}
            type="button"
            role="tab"
            aria-selected={s.client === current.client}
            className={s.client === current.client ? 'tab tab--active' : 'tab'}
            onClick={() => {
              setClient(s.client)
              setCopied(null)
            }}
          >
            {s.label}
          </button>
        ))}
      </div>
      {current.temporary ? (
        <p className="muted small" data-connect-temporary="">
          This Toolgate&apos;s data dir is deleted when it exits (a demo), so this snippet works only while it runs. To connect {current.label} to your own
          Toolgate, run <code>toolgate connect {current.client} --write</code> (it uses ~/.toolgate), then restart {current.label}.
        </p>
      ) : (
        <p className="muted small">
          Merge this into <span className="mono">{current.config_path}</span> (or run <code>{current.write_command}</code>), then restart {current.label}.
        </p>
      )}
      <pre className="code">{current.snippet}</pre>
      <button type="button" className="btn" onClick={() => void copy()}>
        {copied === current.client ? 'Copied' : 'Copy snippet'}
      </button>
    </div>
  )
}
