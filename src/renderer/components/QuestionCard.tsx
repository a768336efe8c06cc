// One server's question that the agent's client could not show (docs/passthrough.md#questions-asked-in-toolgate):
// labelled with the server's configured name (never text the server chose), the server's words in
// a box of their own, and a form built from the requested schema, checked before it is sent (the
// core checks again). A URL question shows the page's host prominently and the whole URL; the page
// opens only when the user clicks it. Three answers: send (accept), decline, dismiss (cancel).
// A choice left unanswered ("(no answer)") and the choice whose value is "" stay apart.
import { useId, useState, type FormEvent } from 'react'
import { checkContent, type FormField, type FormOption } from '../../shared/elicit-form'
import { escapeControls } from '../../shared/text'
import { askedBy, type Question } from '../../shared/questions'
import { useApp } from '../store/context'
import { questionKey } from '../store/questions'
import { useNow } from '../lib/now'

/** A field's value in the form; `null`: a choice left unanswered ("(no answer)"), never confused with a choice whose value is "". */
type Value = string | boolean | string[] | null

function initial(f: FormField): Value {
  if (f.kind === 'boolean') return typeof f.default === 'boolean' ? f.default : false
  if (f.kind === 'multi') return Array.isArray(f.default) ? f.default : []
  if (f.kind === 'enum') return typeof f.default === 'string' && (f.options ?? []).some((o) => o.value === f.default) ? f.default : null
  return f.default === undefined || Array.isArray(f.default) || typeof f.default === 'boolean' ? '' : String(f.default)
}

/** A choice as the user reads it: its title; a choice without one shows its value, and the empty value says so (it is a choice, not "no answer"). */
function choiceText(o: FormOption): string {
  if (o.title !== '') return o.title
  return o.value === '' ? EMPTY_CHOICE : escapeControls(o.value)
}
const EMPTY_CHOICE = '"" (the empty value)'
const NO_ANSWER = '(no answer)'

/** The form's values as content: empty optional fields left out, numbers as numbers (a typo stays text, for the check to name). */
function contentOf(fields: readonly FormField[], values: Record<string, Value>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const f of fields) {
    const v = values[f.name]
    // a choice: unanswered (null) is left out; the empty value "" is an answer like any other
    if (f.kind === 'enum') {
      if (typeof v === 'string') out[f.name] = v
      continue
    }
    if (f.kind === 'boolean') {
      out[f.name] = v
      continue
    }
    // an optional multi-select left empty is left out (its minItems binds only an answer given)
    if (f.kind === 'multi') {
      if (f.required || (Array.isArray(v) && v.length > 0)) out[f.name] = v
      continue
    }
    if (v === '' || v === null || v === undefined) continue
    if ((f.kind === 'number' || f.kind === 'integer') && typeof v === 'string') out[f.name] = Number.isNaN(Number(v)) ? v : Number(v)
    else out[f.name] = v
  }
  return out
}

function FieldInput({ f, value, set }: { f: FormField; value: Value; set(v: Value): void }) {
  const id = useId()
  const label = (
    <label htmlFor={id} className="question-label">
      {f.title ?? f.name}
      {f.required && <span aria-hidden="true"> *</span>}
      {f.title && <code className="muted small"> {f.name}</code>}
    </label>
  )
  const help = f.description ? <span className="muted small question-help">{f.description}</span> : null
  if (f.kind === 'boolean') {
    return (
      <div className="question-field question-field--check" data-field={f.name}>
        <input id={id} type="checkbox" checked={value === true} onChange={(e) => set(e.target.checked)} /> {label}
        {help}
      </div>
    )
  }
  if (f.kind === 'enum') {
    // the choices by position: a value is the server's (any text, even "" or markup), never an attribute the DOM could change
    const opts = f.options ?? []
    const at = typeof value === 'string' ? opts.findIndex((o) => o.value === value) : -1
    return (
      <div className="question-field" data-field={f.name}>
        {label}
        <select
          id={id}
          value={at < 0 ? '' : String(at)}
          required={f.required}
          onChange={(e) => set(e.target.value === '' ? null : (opts[Number(e.target.value)]?.value ?? null))}
        >
          <option value="">{f.required ? 'Choose…' : NO_ANSWER}</option>
          {opts.map((o, i) => (
            <option key={i} value={String(i)}>
              {choiceText(o)}
            </option>
          ))}
        </select>
        {help}
      </div>
    )
  }
  if (f.kind === 'multi') {
    const chosen = Array.isArray(value) ? value : []
    return (
      <fieldset className="question-field" data-field={f.name}>
        <legend className="question-label">
          {f.title ?? f.name}
          {f.required && <span aria-hidden="true"> *</span>}
        </legend>
        {(f.options ?? []).map((o, i) => (
          <label key={i} className="question-choice">
            <input
              type="checkbox"
              checked={chosen.includes(o.value)}
              onChange={(e) => set(e.target.checked ? [...chosen, o.value] : chosen.filter((x) => x !== o.value))}
            />{' '}
            {choiceText(o)}
          </label>
        ))}
        {help}
      </fieldset>
    )
  }
  const type = f.kind === 'number' || f.kind === 'integer' ? 'number' : f.format === 'email' ? 'email' : f.format === 'uri' ? 'url' : 'text'
  return (
    <div className="question-field" data-field={f.name}>
      {label}
      <input
        id={id}
        type={type}
        step={f.kind === 'integer' ? 1 : f.kind === 'number' ? 'any' : undefined}
        value={typeof value === 'string' ? value : ''}
        placeholder={f.format === 'date' ? 'YYYY-MM-DD' : f.format === 'date-time' ? 'YYYY-MM-DDThh:mm:ssZ' : undefined}
        onChange={(e) => set(e.target.value)}
      />
      {help}
    </div>
  )
}

export function QuestionCard({ q }: { q: Question }) {
  const answer = useApp((s) => s.answerQuestion)
  const openUrl = useApp((s) => s.openQuestionUrl)
  const busy = useApp((s) => Boolean(s.busy[questionKey(q.id)]))
  const fields = q.fields ?? []
  const [values, setValues] = useState<Record<string, Value>>(() => Object.fromEntries(fields.map((f) => [f.name, initial(f)])))
  const [problem, setProblem] = useState<string | null>(null)
  const now = useNow()
  const titleId = useId()
  const who = q.agent !== null ? q.agent : q.client ? `a local client (${q.client})` : 'a local client'
  const left = Math.max(0, Math.round((Date.parse(q.expires_at) - now) / 1000))

  const send = (e: FormEvent) => {
    e.preventDefault()
    const content = contentOf(fields, values)
    const checked = checkContent(fields, content)
    if (!checked.ok) {
      setProblem(checked.error)
      return
    }
    setProblem(null)
    void answer(q.id, 'accept', checked.content)
  }
  return (
    <li className="confirmation question" data-question={q.id} data-mode={q.mode} aria-labelledby={titleId} tabIndex={-1}>
      <div className="confirmation-head">
        <h3 id={titleId} className="confirmation-title" data-question-server={q.server}>
          {askedBy(q)}
        </h3>
        <span className="confirmation-time muted small" aria-live="off">
          {left} s left
        </span>
      </div>
      <p className="muted small question-context">
        During {who}'s call of <code className="confirmation-tool">{q.tool}</code>. Toolgate asks you because the agent's client cannot show it; nothing is
        answered for you (no answer in time dismisses it).
      </p>
      <div className="question-words">
        <span className="muted small">The server's words:</span>
        <p className="question-message">{q.message}</p>
      </div>
      {q.mode === 'url' ? (
        <div className="question-url">
          <p>
            It asks you to open a page on{' '}
            <strong className="question-host" data-url-host={q.url_host}>
              {q.url_host}
            </strong>
          </p>
          <code className="question-url-full">{q.url}</code>
          <div className="confirmation-actions">
            <button type="button" className="btn" onClick={() => q.url && openUrl(q.url)}>
              Open the page on {q.url_host}
            </button>
            <button type="button" className="btn btn--primary" disabled={busy} onClick={() => void answer(q.id, 'accept')}>
              Done
            </button>
            <button type="button" className="btn" disabled={busy} onClick={() => void answer(q.id, 'decline')}>
              Decline
            </button>
            <button type="button" className="btn btn--ghost" disabled={busy} onClick={() => void answer(q.id, 'cancel')}>
              Dismiss
            </button>
          </div>
        </div>
      ) : (
        <form className="question-form" onSubmit={send} noValidate aria-describedby={titleId}>
          {fields.map((f) => (
            <FieldInput
              key={f.name}
              f={f}
              value={Object.hasOwn(values, f.name) ? (values[f.name] ?? null) : initial(f)}
              set={(v) => setValues((old) => ({ ...old, [f.name]: v }))}
            />
          ))}
          {problem && (
            <p className="question-problem" role="alert">
              {problem}
            </p>
          )}
          <div className="confirmation-actions">
            <button type="submit" className="btn btn--primary" disabled={busy} aria-busy={busy || undefined}>
              Send to {q.server}
            </button>
            <button type="button" className="btn" disabled={busy} onClick={() => void answer(q.id, 'decline')}>
              Decline
            </button>
            <button type="button" className="btn btn--ghost" disabled={busy} onClick={() => void answer(q.id, 'cancel')}>
              Dismiss
            </button>
          </div>
        </form>
      )}
    </li>
  )
}
