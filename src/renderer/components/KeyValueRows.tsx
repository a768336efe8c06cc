// Environment variables or headers in the server form: one row per name, each value either plain
// or kept in the secret store (typed once, never shown again: a password field, and a stored
// value comes back hidden).
import type { FormRow } from '../lib/server-form'

export function KeyValueRows({
  label,
  rows,
  onChange,
  secretName,
  keyLabel,
}: {
  label: string
  rows: FormRow[]
  onChange(rows: FormRow[]): void
  /** the secret a row's value is stored under */
  secretName(row: FormRow): string
  keyLabel: string
}) {
  const update = (i: number, patch: Partial<FormRow>) => onChange(rows.map((r, j) => (j === i ? { ...r, ...patch } : r)))
  return (
    <fieldset className="kv-editor">
      <legend>{label}</legend>
      {rows.length === 0 && <p className="muted small">None.</p>}
      {rows.map((r, i) => (
        <div className="kv-row" key={i} data-row={r.key}>
          <input
            aria-label={`${keyLabel} ${i + 1}`}
            className="input mono"
            value={r.key}
            placeholder={keyLabel}
            onChange={(e) => update(i, { key: e.target.value })}
          />
          <input
            aria-label={`Value of ${r.key || `${keyLabel.toLowerCase()} ${i + 1}`}`}
            className="input mono kv-value"
            type={r.secret || r.hidden ? 'password' : 'text'}
            autoComplete="off"
            value={r.value}
            placeholder={r.hidden ? 'stored, hidden — leave empty to keep' : r.secret ? 'secret value' : 'value'}
            onChange={(e) => update(i, { value: e.target.value })}
          />
          <label className="check small" title={r.key ? `stored as \${secret:${secretName(r)}}` : undefined}>
            <input
              type="checkbox"
              checked={r.secret}
              aria-label={`Keep ${r.key || 'this value'} in the secret store`}
              onChange={(e) => update(i, { secret: e.target.checked })}
            />
            secret
          </label>
          <button
            type="button"
            className="btn btn--ghost btn--small"
            aria-label={`Remove ${r.key || `row ${i + 1}`}`}
            onClick={() => onChange(rows.filter((_, j) => j !== i))}
          >
            ×
          </button>
          {r.secret && r.key && (
            <p className="kv-note muted small">
              stored in the secret store as <code>{secretName(r)}</code>; the config gets <code>{`\${secret:${secretName(r)}}`}</code>
            </p>
          )}
        </div>
      ))}
      <button type="button" className="btn btn--small" onClick={() => onChange([...rows, { key: '', value: '', secret: false, hidden: false }])}>
        Add {keyLabel.toLowerCase()}
      </button>
    </fieldset>
  )
}
