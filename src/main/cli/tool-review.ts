// `toolgate tools diff` and the review before `tools approve`: a tool under review as text for a
// terminal, from the same model as the window (src/shared/tool-diff.ts). Every upstream text is
// escaped (control, bidi and invisible characters as \u escapes, so it cannot drive the terminal
// or reorder what is shown); colors only on a TTY, else git-style [-removed-] {+added+} marks.
import type { ToolInfo } from '../../shared/api'
import { escapeControls, escapeText } from '../../shared/text'
import { changeSummary, hiddenIn, paramsOf, side, toolChange, type Param, type SchemaChange, type TextPart } from '../../shared/tool-diff'

/** A text with its lines (newlines and tabs kept); one-line fields escape those too. */
const esc = escapeText
const esc1 = escapeControls

export interface Style {
  added(s: string): string
  removed(s: string): string
  /** a whole added (+) or removed (-) line */
  line(op: 'add' | 'del', s: string): string
  strong(s: string): string
  risk(s: string): string
}

const PLAIN: Style = {
  added: (s) => `{+${s}+}`,
  removed: (s) => `[-${s}-]`,
  line: (op, s) => `${op === 'add' ? '+' : '-'} ${s}`,
  strong: (s) => s,
  risk: (s) => s,
}
const ANSI: Style = {
  added: (s) => `\x1b[30;43m${s}\x1b[0m`,
  removed: (s) => `\x1b[9;31m${s}\x1b[0m`,
  line: (op, s) => (op === 'add' ? `\x1b[33m+ ${s}\x1b[0m` : `\x1b[31m- ${s}\x1b[0m`),
  strong: (s) => `\x1b[1m${s}\x1b[0m`,
  risk: (s) => `\x1b[1;31m${s}\x1b[0m`,
}

/** Colors when stdout is a terminal and NO_COLOR is not set. */
export function terminalStyle(stream: { isTTY?: boolean } = process.stdout, env: NodeJS.ProcessEnv = process.env): Style {
  return stream.isTTY && !env.NO_COLOR ? ANSI : PLAIN
}

function indent(text: string, pad: string): string {
  return text.split('\n').join(`\n${pad}`)
}

function sideText(diff: readonly TextPart[], which: 'before' | 'after', st: Style): string {
  const parts = side(diff, which)
  if (parts.length === 0) return '(none)'
  return parts.map((p) => (p.op === 'same' ? esc(p.text) : p.op === 'add' ? st.added(esc(p.text)) : st.removed(esc(p.text)))).join('')
}

/** A line diff of JSON as whole lines: unchanged ones indented, removed and added ones as - and + lines; every line escaped. */
function jsonLines(diff: readonly TextPart[], st: Style): string[] {
  const out: string[] = []
  for (const part of diff) {
    for (const l of part.text.replace(/\n$/, '').split('\n')) out.push(part.op === 'same' ? `      ${esc(l)}` : `    ${st.line(part.op, esc(l))}`)
  }
  return out
}

/**
 * One field of a prompt or resource template under review: its label, then for a changed one the
 * previous and the new text (changes marked), for a new one its text; `code`: JSON as whole
 * lines, removed and added ones marked - and +. Every line escaped.
 */
export function reviewField(label: string, diff: readonly TextPart[], changed: boolean, st: Style, code = false): string[] {
  const pad = '            '
  const out = [`  ${st.strong(label)}`]
  if (code) return [...out, ...jsonLines(diff, st)]
  if (changed) out.push(`    previous: ${indent(sideText(diff, 'before', st), pad)}`)
  out.push(`    ${changed ? 'new:     ' : ''} ${indent(sideText(diff, 'after', st), pad)}`)
  return out
}

function textField(label: string, diff: readonly TextPart[], st: Style, pad = '  '): string[] {
  const inner = `${pad}          `
  return [
    `${pad}${st.strong(label)}`,
    `${pad}  previous: ${indent(sideText(diff, 'before', st), inner)}`,
    `${pad}  new:      ${indent(sideText(diff, 'after', st), inner)}`,
  ]
}

function paramLine(p: Param): string {
  return [esc1(p.path), esc1(p.type), p.required ? 'required' : '', p.description ? `— ${esc1(p.description)}` : '', p.constraints ? esc1(p.constraints) : '']
    .filter(Boolean)
    .join('  ')
}

function schemaLines(label: string, c: SchemaChange, st: Style): string[] {
  const out = [`  ${st.strong(label)}`]
  for (const p of c.params) {
    if (p.kind === 'added') out.push(`    ${st.line('add', paramLine(p.after as Param))}`)
    else if (p.kind === 'removed') out.push(`    ${st.line('del', paramLine(p.before as Param))}`)
    else {
      const b = p.before as Param
      const a = p.after as Param
      out.push(`    ~ ${esc1(p.path)}  changed: ${p.aspects.join(', ')}`)
      if (p.aspects.includes('type')) out.push(`        type: ${st.removed(esc1(b.type))} → ${st.added(esc1(a.type))}`)
      if (p.aspects.includes('required')) out.push(`        required: ${b.required ? 'yes' : 'no'} → ${a.required ? 'yes' : 'no'}`)
      if (p.description) out.push(...textField('description', p.description, st, '        '))
      if (p.constraints) out.push(...textField('keywords', p.constraints, st, '        '))
    }
  }
  if (c.rest) out.push('    other keywords:', ...jsonLines(c.rest, st))
  return out
}

const json = (v: unknown): string => (v === undefined ? '(none)' : esc1(JSON.stringify(v)))

/** Whether a tool waits for a decision on its current definition (what `tools diff` and the approve review show). */
export function underReview(t: ToolInfo): boolean {
  return t.approval.status !== 'approved'
}

/** The review of one tool as terminal text (ends with a newline). */
export function formatReview(t: ToolInfo, st: Style = PLAIN): string {
  const name = esc1(t.name)
  if (!underReview(t)) return `${name} is approved as it is: nothing changed since you approved it.\n`
  const prev = t.approval.previous
  const state = t.approval.rejected_at
    ? `you rejected this definition on ${t.approval.rejected_at}`
    : prev
      ? 'changed since you approved it'
      : 'new, never approved'
  const out = [`${st.strong(name)} (${state}; status ${t.status})`]
  const now = { title: t.title, description: t.description ?? '', inputSchema: t.inputSchema, outputSchema: t.outputSchema, annotations: t.annotations }
  const hidden = hiddenIn(now)
  if (hidden > 0)
    out.push(
      st.risk(
        `  ! ${hidden} hidden character${hidden === 1 ? '' : 's'}: text an agent reads but a person would not see (invisible, bidi or control characters), shown below as \\u escapes; approve only if you know why it is there.`,
      ),
    )
  if (!prev) {
    out.push(`  call with: ${t.call_with}`)
    if (t.title) out.push(`  title: ${esc1(t.title)}`)
    out.push(`  ${st.strong('description')}`, `    ${indent(esc(t.description || '(none)'), '    ')}`)
    for (const [label, schema] of [
      ['parameters', t.inputSchema],
      ['output fields', t.outputSchema],
    ] as const) {
      const params = paramsOf(schema)
      if (params.length) out.push(`  ${st.strong(label)}`, ...params.map((p) => `    ${paramLine(p)}`))
    }
    return out.join('\n') + '\n'
  }
  const c = toolChange(prev, now)
  if (c.variant) {
    const v = c.variant
    out.push(
      st.risk(
        `  ! ${v.before} → ${v.after}: ` +
          (v.weaker
            ? `riskier if approved: agents allowed only ${v.after} calls could call it (it needed ${v.before}).`
            : `it now says it is ${v.after}: only agents allowed ${v.after} calls can call it once approved.`),
      ),
    )
  }
  out.push(`  what changed: ${changeSummary(c).join(' · ') || 'nothing an agent reads'}`)
  if (c.title) out.push(...textField('title', c.title, st))
  if (c.description) out.push(...textField('description', c.description, st))
  if (c.inputSchema) out.push(...schemaLines('parameters (input schema)', c.inputSchema, st))
  if (c.outputSchema) out.push(...schemaLines('output fields (output schema)', c.outputSchema, st))
  if (c.annotations.length) {
    out.push(`  ${st.strong('annotations')}`)
    for (const a of c.annotations) out.push(`    ${esc1(a.key)}: ${st.removed(json(a.before))} → ${st.added(json(a.after))}`)
  }
  return out.join('\n') + '\n'
}
