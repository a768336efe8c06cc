// The Add server / Edit server dialog: paste a client snippet or fill the form (stdio: command,
// arguments, environment, working folder; HTTP: URL, headers), values that are secrets go to the
// secret store. After an add the same dialog goes on to the review: Inspect, then Approve server
// (nothing the user adds runs before they have seen its tools). Operator policy is read-only.
import { useEffect, useState, type FormEvent } from 'react'
import type { ServerEntryView } from '../../shared/server-entry'
import { parseClientSnippet } from '../../shared/client-snippet'
import { emptyForm, formFromEntry, formFromInput, formToInput, secretNameOf, type FormState } from '../lib/server-form'
import { useApp } from '../store/context'
import { busyKey, messageOf } from '../store/store'
import { KeyValueRows } from './KeyValueRows'
import { LockIcon } from './icons'

const POLICY_SENTENCE = 'Set by the operator in mcp_config.json. It is operator policy and cannot be changed from Toolgate.'

function PolicyBlock({ policy }: { policy: ServerEntryView['policy'] }) {
  const entries = Object.entries(policy)
  if (!entries.length) return null
  return (
    <section className="policy" aria-label="Operator policy">
      <h3>
        <LockIcon /> Operator policy (read-only)
      </h3>
      <dl>
        {entries.map(([k, v]) => (
          <div key={k}>
            <dt className="mono">{k}</dt>
            <dd className="mono">{JSON.stringify(v)}</dd>
          </div>
        ))}
      </dl>
      <p className="muted small">{POLICY_SENTENCE}</p>
    </section>
  )
}

/** What the organisation's machine-wide policy sets on this server: the values that apply, read-only. */
function OrganisationBlock({ organisation }: { organisation: NonNullable<ServerEntryView['organisation']> }) {
  const entries = Object.entries(organisation.fields)
  return (
    <section className="policy" aria-label="Set by your organisation" data-policy="organisation">
      <h3>
        <LockIcon /> Set by your organisation (read-only)
      </h3>
      {organisation.blocked && <p className="notice notice--lock">{organisation.blocked}</p>}
      {entries.length > 0 && (
        <dl>
          {entries.map(([k, v]) => (
            <div key={k}>
              <dt className="mono">{k}</dt>
              <dd className="mono">{JSON.stringify(v)}</dd>
            </div>
          ))}
        </dl>
      )}
      <p className="muted small">
        Your organisation&apos;s machine-wide policy sets these; they win over mcp_config.json and cannot be changed from Toolgate, the config or an agent.
      </p>
    </section>
  )
}

function Review({ name, onClose }: { name: string; onClose(): void }) {
  const tools = useApp((s) => s.tools[name])
  const server = useApp((s) => s.servers.find((x) => x.name === name))
  const run = useApp((s) => s.serverAction)
  const inspecting = useApp((s) => Boolean(s.busy[busyKey('server', name, 'inspect')]))
  const approving = useApp((s) => Boolean(s.busy[busyKey('server', name, 'approve')]))
  const approve = async () => {
    if (server) await run(name, 'approve', { hash: server.launch_hash })
    onClose()
  }
  return (
    <div className="review">
      <p>
        <strong>{name}</strong> waits in quarantine. <strong>Inspect</strong> starts it once to list its tools, then stops it; nothing from it is callable until
        you approve it.
      </p>
      {server && <p className="mono small target">{server.target}</p>}
      {tools && (
        <ul className="review-tools" aria-label={`Tools of ${name}`}>
          {tools.map((t) => (
            <li key={t.name}>
              <span className="mono">{t.tool}</span> <span className="muted">{t.description?.split('\n')[0]}</span>
            </li>
          ))}
          {tools.length === 0 && <li className="muted">No tools listed yet.</li>}
        </ul>
      )}
      <div className="dialog-actions">
        <button
          type="button"
          className="btn"
          disabled={inspecting}
          aria-busy={inspecting || undefined}
          onClick={() => void run(name, 'inspect', server ? { hash: server.launch_hash } : undefined)}
        >
          Inspect
        </button>
        <button type="button" className="btn btn--primary" disabled={approving || !tools || !server} onClick={() => void approve()}>
          Approve server
        </button>
        <button type="button" className="btn btn--ghost" onClick={onClose}>
          Later
        </button>
      </div>
    </div>
  )
}

export function ServerForm({ editing }: { editing: string | null }) {
  const api = useApp((s) => s.api)
  const save = useApp((s) => s.saveServer)
  const openDialog = useApp((s) => s.openDialog)
  const [form, setForm] = useState<FormState>(emptyForm)
  const [entry, setEntry] = useState<ServerEntryView | null>(null)
  const [paste, setPaste] = useState('')
  const [note, setNote] = useState<string | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [saving, setSaving] = useState(false)
  const [added, setAdded] = useState<string | null>(null)
  const close = () => openDialog(null)

  useEffect(() => {
    if (!editing) return
    api
      .serverEntry(editing)
      .then(({ entry }) => {
        setEntry(entry)
        setForm(formFromEntry(entry))
      })
      .catch((err: unknown) => setError(messageOf(err)))
  }, [api, editing])

  const patch = (p: Partial<FormState>) => setForm((f) => ({ ...f, ...p }))

  const fillFromPaste = () => {
    const r = parseClientSnippet(paste)
    if ('error' in r) {
      setNote(null)
      setError(r.error)
      return
    }
    setError(null)
    setForm(formFromInput(r.servers[0]))
    setNote(r.servers.length > 1 ? `${r.servers.length} servers found; the form has the first (${r.servers[0].name}). Add the others one by one.` : null)
  }

  const submit = async (e: FormEvent) => {
    e.preventDefault()
    setSaving(true)
    const { input, secrets } = formToInput(form)
    const err = await save(input, secrets, editing)
    setSaving(false)
    if (err) return setError(err)
    if (editing) close()
    else setAdded(input.name)
  }

  const title = editing ? `Edit server ${editing}` : added ? `Review ${added}` : 'Add a server'
  return (
    <div className="dialog-backdrop">
      <div className="dialog" role="dialog" aria-modal="true" aria-labelledby="server-form-title">
        <h2 id="server-form-title">{title}</h2>
        {added ? (
          <Review name={added} onClose={close} />
        ) : (
          <form onSubmit={(e) => void submit(e)}>
            {!editing && (
              <details className="paste" open>
                <summary>Paste a client snippet</summary>
                <textarea
                  aria-label="Client snippet"
                  className="input mono"
                  rows={4}
                  value={paste}
                  placeholder={'{"mcpServers": {…}}  ·  claude mcp add NAME -- npx -y …  ·  npx -y @scope/server'}
                  onChange={(e) => setPaste(e.target.value)}
                />
                <button type="button" className="btn btn--small" onClick={fillFromPaste}>
                  Fill in
                </button>
              </details>
            )}
            {note && <p className="muted small">{note}</p>}
            <label className="field">
              <span>Name</span>
              <input className="input mono" value={form.name} readOnly={editing !== null} onChange={(e) => patch({ name: e.target.value })} />
            </label>
            <div className="segmented" role="radiogroup" aria-label="Kind of server">
              {(['stdio', 'http'] as const).map((k) => (
                <label key={k} className="check">
                  <input type="radio" name="kind" checked={form.kind === k} onChange={() => patch({ kind: k })} />
                  {k === 'stdio' ? 'Program (stdio)' : 'Remote (HTTP)'}
                </label>
              ))}
            </div>
            {form.kind === 'stdio' ? (
              <>
                <label className="field">
                  <span>Command</span>
                  <input className="input mono" value={form.command} placeholder="npx" onChange={(e) => patch({ command: e.target.value })} />
                </label>
                <label className="field">
                  <span>Arguments (one per line)</span>
                  <textarea className="input mono" rows={3} value={form.args} onChange={(e) => patch({ args: e.target.value })} />
                </label>
                {entry?.masked.includes('args') && (
                  <p className="muted small">Parts of the arguments look secret and are masked; leave them as they are to keep them.</p>
                )}
                <KeyValueRows
                  label="Environment"
                  keyLabel="Variable"
                  rows={form.env}
                  onChange={(env) => patch({ env })}
                  secretName={(r) => secretNameOf(form, r, true)}
                />
                <label className="field">
                  <span>Working folder</span>
                  <input className="input mono" value={form.cwd} placeholder="(Toolgate's)" onChange={(e) => patch({ cwd: e.target.value })} />
                </label>
              </>
            ) : (
              <>
                <label className="field">
                  <span>URL</span>
                  <input className="input mono" value={form.url} placeholder="https://…/mcp" onChange={(e) => patch({ url: e.target.value })} />
                </label>
                <label className="field">
                  <span>Transport</span>
                  <select className="input" value={form.protocol} onChange={(e) => patch({ protocol: e.target.value as FormState['protocol'] })}>
                    <option value="auto">Streamable HTTP, falling back to SSE</option>
                    <option value="http">Streamable HTTP only</option>
                    <option value="sse">SSE</option>
                  </select>
                </label>
                <KeyValueRows
                  label="Headers"
                  keyLabel="Header"
                  rows={form.headers}
                  onChange={(headers) => patch({ headers })}
                  secretName={(r) => secretNameOf(form, r, false)}
                />
              </>
            )}
            {entry?.organisation && <OrganisationBlock organisation={entry.organisation} />}
            {entry && <PolicyBlock policy={entry.policy} />}
            {error && (
              <p className="form-error" role="alert">
                {error}
              </p>
            )}
            <div className="dialog-actions">
              <button type="submit" className="btn btn--primary" disabled={saving} aria-busy={saving || undefined}>
                {editing ? 'Save' : 'Add'}
              </button>
              <button type="button" className="btn btn--ghost" onClick={close}>
                Cancel
              </button>
            </div>
            {!editing && <p className="muted small">A server you add waits in quarantine: you review its tools before anything can call them.</p>}
          </form>
        )}
      </div>
    </div>
  )
}

export function RemoveDialog({ server }: { server: string }) {
  const remove = useApp((s) => s.removeServer)
  const openDialog = useApp((s) => s.openDialog)
  const [busy, setBusy] = useState(false)
  return (
    <div className="dialog-backdrop">
      <div className="dialog" role="alertdialog" aria-modal="true" aria-labelledby="remove-title" aria-describedby="remove-desc">
        <h2 id="remove-title">Remove server {server}?</h2>
        <p id="remove-desc">It is taken out of mcp_config.json and stopped. Its approvals are kept for 10 minutes: Undo brings it back as it was.</p>
        <div className="dialog-actions">
          <button
            type="button"
            className="btn btn--danger"
            disabled={busy}
            onClick={() => {
              setBusy(true)
              void remove(server)
            }}
          >
            Remove
          </button>
          <button type="button" className="btn btn--ghost" onClick={() => openDialog(null)}>
            Cancel
          </button>
        </div>
      </div>
    </div>
  )
}
