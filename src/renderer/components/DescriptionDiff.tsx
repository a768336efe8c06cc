// What changed in a tool since it was approved: the description with the changed words
// highlighted, and every other field that differs (title, call variant, annotations, input and
// output schema as JSON). A weaker call variant is shown as a risk. Upstream text is untrusted:
// rendered as text nodes only.
import { useMemo } from 'react'
import type { ToolInfo } from '../../shared/api'
import { callWith, requiredVariant, VARIANTS } from '../../shared/call-variant'
import { diffWords, side, type DiffPart } from '../lib/diff'

function Side({ parts }: { parts: DiffPart[] }) {
  return (
    <>{parts.map((p, i) => (p.op === 'del' ? <del key={i}>{p.text}</del> : p.op === 'add' ? <ins key={i}>{p.text}</ins> : <span key={i}>{p.text}</span>))}</>
  )
}

const json = (v: unknown): string => (v === undefined ? '' : JSON.stringify(v, null, 2))

/** One changed field as before/after text with the difference highlighted (schemas and annotations as JSON). */
function FieldDiff({ label, before, after, code }: { label: string; before: string; after: string; code?: boolean }) {
  const parts = useMemo(() => diffWords(before, after), [before, after])
  const Block = code ? 'pre' : 'p'
  return (
    <div className="diff" data-diff={label}>
      <div className="diff-side diff-before">
        <span className="diff-label">Previous {label}</span>
        <Block>{before ? <Side parts={side(parts, 'before')} /> : <em className="muted">(none)</em>}</Block>
      </div>
      <div className="diff-side diff-after">
        <span className="diff-label">New {label}</span>
        <Block>{after ? <Side parts={side(parts, 'after')} /> : <em className="muted">(none)</em>}</Block>
      </div>
    </div>
  )
}

export function DescriptionDiff({ before, after, tool }: { before: string; after: string; tool?: ToolInfo }) {
  const prev = tool?.approval.previous
  const fields = prev
    ? [
        { label: 'title', before: prev.title ?? '', after: tool.title ?? '' },
        { label: 'annotations', before: json(prev.annotations), after: json(tool.annotations), code: true },
        { label: 'input schema', before: json(prev.inputSchema), after: json(tool.inputSchema), code: true },
        { label: 'output schema', before: json(prev.outputSchema), after: json(tool.outputSchema), code: true },
      ].filter((f) => f.before !== f.after)
    : []
  const nowNeeds = tool ? callWith(requiredVariant(tool.annotations)) : null
  const weaker = prev && nowNeeds && VARIANTS.indexOf(variantOf(nowNeeds)) < VARIANTS.indexOf(variantOf(prev.call_with))
  return (
    <div className="diffs">
      {weaker && (
        <p className="notice notice--danger" data-risk="weaker-variant">
          Riskier if approved: it would be called as {variantOf(nowNeeds)} instead of {variantOf(prev.call_with)} ({variantOf(prev.call_with)} →{' '}
          {variantOf(nowNeeds)}).
        </p>
      )}
      {before !== after && <FieldDiff label="description" before={before} after={after} />}
      {fields.map((f) => (
        <FieldDiff key={f.label} {...f} />
      ))}
      {before === after && fields.length === 0 && <p className="muted small">The description is the same; the input schema changed.</p>}
    </div>
  )
}

function variantOf(c: string): (typeof VARIANTS)[number] {
  return c.replace('call_tool_', '') as (typeof VARIANTS)[number]
}
