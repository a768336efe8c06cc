// What the user decides on for a tool under review. A changed tool shows every field
// that changed since it was approved: a call-variant change as a risk line, the description
// (added text marked as a risk), the title, the annotations, and the input and output schemas
// parameter by parameter; a new tool shows everything it offers. The model is the shared one
// (src/shared/tool-diff.ts) that `toolgate tools diff` prints. Upstream text: text nodes only, and
// hidden characters (text an agent reads and a person would not see) as a risk line and marked escapes.
import { useMemo } from 'react'
import type { ToolInfo } from '../../shared/api'
import { changeSummary, hiddenIn, paramsOf, toolChange, type AnnotationChange, type DefinitionView, type VariantChange } from '../../shared/tool-diff'
import { FieldDiff } from './DiffText'
import { LongText } from './LongText'
import { ParamList, SchemaDiff } from './SchemaDiff'
import { Visible } from './Visible'

function current(tool: ToolInfo): DefinitionView {
  return {
    title: tool.title,
    description: tool.description ?? '',
    inputSchema: tool.inputSchema,
    outputSchema: tool.outputSchema,
    annotations: tool.annotations,
  }
}

const VERB = { read: 'only read', write: 'change things', destructive: 'delete or overwrite things' } as const

/** The call-variant change as a risk line, either way. */
function VariantRisk({ v }: { v: VariantChange }) {
  return (
    <p className="notice notice--danger risk" data-risk={v.weaker ? 'weaker-variant' : 'stricter-variant'}>
      <span>
        <strong>
          {v.before} → {v.after}:
        </strong>{' '}
        {v.weaker
          ? `riskier if approved. It now claims to ${VERB[v.after]}, so agents allowed only ${v.after} calls could call it; it needed ${v.before} before.`
          : `it now says it may ${VERB[v.after]}. Only agents allowed ${v.after} calls can call it once approved.`}
      </span>
    </p>
  )
}

/** Hidden characters anywhere an agent reads: a risk line (each one is shown below as an escape). */
function HiddenRisk({ tool }: { tool: ToolInfo }) {
  const n = useMemo(() => hiddenIn(current(tool)), [tool])
  if (n === 0) return null
  return (
    <p className="notice notice--danger risk" data-risk="hidden-characters">
      <span>
        <strong>
          {n} hidden character{n === 1 ? '' : 's'}:
        </strong>{' '}
        text an agent reads but a person would not see (invisible, bidi or control characters). Each is shown below as a marked \u escape; approve only if you
        know why it is there.
      </span>
    </p>
  )
}

const show = (v: unknown): string => (v === undefined ? '(none)' : JSON.stringify(v))

function AnnotationsDiff({ changes }: { changes: AnnotationChange[] }) {
  return (
    <div className="schema-diff" data-diff="annotations">
      <span className="diff-label">Annotations</span>
      <dl className="param-changes">
        {changes.map((a) => (
          <div key={a.key} data-annotation={a.key}>
            <dt>
              <code>{a.key}</code>
            </dt>
            <dd>
              <del>
                <Visible text={show(a.before)} />
              </del>{' '}
              →{' '}
              <ins>
                <Visible text={show(a.after)} />
              </ins>
            </dd>
          </div>
        ))}
      </dl>
    </div>
  )
}

export function ToolReview({ tool }: { tool: ToolInfo }) {
  const prev = tool.approval.previous
  const change = useMemo(() => (prev ? toolChange(prev, current(tool)) : null), [prev, tool])
  if (!prev || !change) return <NewTool tool={tool} />
  const summary = changeSummary(change)
  const unchanged = (schema: Record<string, unknown> | undefined, n: number) => Math.max(0, paramsOf(schema).length - n)
  return (
    <div className="diffs" data-review="changed">
      {change.variant && <VariantRisk v={change.variant} />}
      <HiddenRisk tool={tool} />
      <p className="change-summary small" data-change-summary>
        <strong>What changed:</strong> {summary.length ? <Visible text={summary.join(' · ')} /> : 'nothing an agent reads (only how it is stored)'}
      </p>
      {change.description && <FieldDiff label="description" diff={change.description} />}
      {change.description && change.description.some((p) => p.op === 'add') && (
        <p className="diff-legend small">
          Marked text was added by the server. Agents read a description as instructions: approve only what you would ask for.
        </p>
      )}
      {change.title && <FieldDiff label="title" diff={change.title} />}
      {change.inputSchema && (
        <SchemaDiff
          label="input schema"
          change={change.inputSchema}
          unchanged={unchanged(tool.inputSchema, change.inputSchema.params.filter((p) => p.kind !== 'removed').length)}
        />
      )}
      {change.outputSchema && (
        <SchemaDiff
          label="output schema"
          change={change.outputSchema}
          unchanged={unchanged(tool.outputSchema, change.outputSchema.params.filter((p) => p.kind !== 'removed').length)}
        />
      )}
      {change.annotations.length > 0 && <AnnotationsDiff changes={change.annotations} />}
    </div>
  )
}

/** A new tool: everything it would offer agents, in full (nothing folded: this is the review). */
function NewTool({ tool }: { tool: ToolInfo }) {
  return (
    <div className="diffs" data-review="new">
      <HiddenRisk tool={tool} />
      {tool.title && (
        <p className="small">
          <span className="diff-label">Title</span> <Visible text={tool.title} />
        </p>
      )}
      {tool.description ? (
        <p className="tool-desc tool-desc--review">
          <Visible text={tool.description} />
        </p>
      ) : (
        <p className="muted small">(no description)</p>
      )}
      <ParamList label="input schema" params={paramsOf(tool.inputSchema)} />
      <ParamList label="output schema" params={paramsOf(tool.outputSchema)} />
    </div>
  )
}

/** The description of a tool that is not under review, folded when long. */
export function ToolDescription({ text }: { text: string }) {
  return <LongText text={text} className="tool-desc" />
}
