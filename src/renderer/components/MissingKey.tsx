// The web UI without a usable key: say where the right URL comes from.
export function MissingKey({ refused, onForget }: { refused?: string; onForget?: () => void }) {
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
          <code>#key=…</code>. Open that exact URL; the key is kept for this tab only and removed from the address bar.
        </p>
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
