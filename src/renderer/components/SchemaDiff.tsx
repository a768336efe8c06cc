// A schema change, parameter by parameter: what was added, removed, or changed in a
// parameter (type, required, description, other keywords), and the schema's own keywords as a
// JSON line diff. Also the plain parameter list of a new tool. Text nodes only, hidden characters
// as marked escapes.
import { side, type Param, type ParamChange, type SchemaChange, type TextPart } from '../../shared/tool-diff'
import { DiffSide } from './DiffText'
import { Visible } from './Visible'

function ParamHead({ p, mark }: { p: Param; mark?: 'added' | 'removed' }) {
  const Name = mark === 'removed' ? 'del' : 'code'
  return (
    <span className="param-head">
      {mark && (
        <span className={`param-mark param-mark--${mark}`} aria-hidden="true">
          {mark === 'added' ? '+' : '−'}
        </span>
      )}
      <Name className="param-name">
        <Visible text={p.path} />
      </Name>
      <span className="param-type">
        <Visible text={p.type} />
      </span>
      {p.required && <span className="param-required">required</span>}
    </span>
  )
}

/** A parameter's description and other keywords (an added one's description marked as new text). */
function ParamBody({ p, added }: { p: Param; added?: boolean }) {
  return (
    <>
      {p.description && (
        <p className={added ? 'param-desc param-desc--added' : 'param-desc'}>
          <Visible text={p.description} />
        </p>
      )}
      {p.constraints && (
        <code className="param-constraints">
          <Visible text={p.constraints} />
        </code>
      )}
    </>
  )
}

function Row({ c }: { c: ParamChange }) {
  if (c.kind !== 'changed') {
    const p = (c.after ?? c.before) as Param
    return (
      <li className={`param param--${c.kind}`} data-param={c.path} data-change={c.kind}>
        <ParamHead p={p} mark={c.kind} />
        <span className="param-what">{c.kind === 'added' ? 'new parameter' : 'removed'}</span>
        <ParamBody p={p} added={c.kind === 'added'} />
      </li>
    )
  }
  const before = c.before as Param
  const after = c.after as Param
  return (
    <li className="param param--changed" data-param={c.path} data-change="changed">
      <ParamHead p={after} />
      <span className="param-what">changed: {c.aspects.join(', ')}</span>
      <dl className="param-changes">
        {c.aspects.includes('type') && <Change label="type" before={before.type} after={after.type} />}
        {c.aspects.includes('required') && <Change label="required" before={before.required ? 'yes' : 'no'} after={after.required ? 'yes' : 'no'} />}
        {c.description && <TextChange label="description" diff={c.description} />}
        {c.constraints && <TextChange label="keywords" diff={c.constraints} code />}
      </dl>
    </li>
  )
}

function Change({ label, before, after }: { label: string; before: string; after: string }) {
  return (
    <div data-aspect={label}>
      <dt>{label}</dt>
      <dd>
        <del>
          <Visible text={before} />
        </del>{' '}
        →{' '}
        <ins>
          <Visible text={after} />
        </ins>
      </dd>
    </div>
  )
}

function TextChange({ label, diff, code }: { label: string; diff: readonly TextPart[]; code?: boolean }) {
  const Block = code ? 'code' : 'span'
  const none = (which: 'before' | 'after') => side(diff, which).length === 0
  return (
    <div data-aspect={label}>
      <dt>{label}</dt>
      <dd className="param-textdiff">
        <span className="diff-before">
          <span className="diff-label">previous</span>
          {none('before') ? <em className="muted">(none)</em> : <Block>{<DiffSide diff={diff} which="before" />}</Block>}
        </span>
        <span className="diff-after">
          <span className="diff-label">new</span>
          {none('after') ? <em className="muted">(none)</em> : <Block>{<DiffSide diff={diff} which="after" />}</Block>}
        </span>
      </dd>
    </div>
  )
}

export function SchemaDiff({ label, change, unchanged }: { label: 'input schema' | 'output schema'; change: SchemaChange; unchanged: number }) {
  const heading = label === 'input schema' ? 'Parameters' : 'Output fields'
  return (
    <div className="schema-diff" data-diff={label}>
      <span className="diff-label">
        {heading}: {change.params.length} changed{unchanged > 0 ? `, ${unchanged} unchanged` : ''}
      </span>
      {change.params.length > 0 && (
        <ul className="params">
          {change.params.map((c) => (
            <Row key={`${c.kind}:${c.path}`} c={c} />
          ))}
        </ul>
      )}
      {change.rest && (
        <div className="schema-rest">
          <span className="diff-label">Other keywords of the {label}</span>
          <pre className="diff-lines">
            {change.rest.map((p, i) =>
              p.op === 'same' ? (
                <span key={i}>
                  <Visible text={p.text} />
                </span>
              ) : p.op === 'add' ? (
                <ins key={i}>
                  <Visible text={p.text} />
                </ins>
              ) : (
                <del key={i}>
                  <Visible text={p.text} />
                </del>
              ),
            )}
          </pre>
        </div>
      )}
    </div>
  )
}

/** The parameters of a new tool, as a plain list (everything in it is new). */
export function ParamList({ label, params }: { label: 'input schema' | 'output schema'; params: Param[] }) {
  if (params.length === 0) return null
  return (
    <div className="schema-diff" data-params={label}>
      <span className="diff-label">{label === 'input schema' ? 'Parameters' : 'Output fields'}</span>
      <ul className="params">
        {params.map((p) => (
          <li key={p.path} className="param" data-param={p.path}>
            <ParamHead p={p} />
            <ParamBody p={p} />
          </li>
        ))}
      </ul>
    </div>
  )
}
