// What differs between a tool's approved definition and the one its server lists now, field by
// field and parameter by parameter: the one model behind the review in the window and
// `toolgate tools diff`. Text and JSON diffs come from jsdiff (the `diff` package). Pure: no Node,
// no DOM; the definitions are untrusted text and are only compared, never interpreted.
import { diffJson, diffWordsWithSpace, type ChangeObject } from 'diff'
import { requiredVariant, variantRank, type ToolAnnotations, type Variant } from './call-variant'
import { hiddenCount } from './text'

/** What an agent can read of a tool (the approval hash covers exactly this). */
export interface DefinitionView {
  title?: string
  description?: string
  inputSchema?: Record<string, unknown>
  outputSchema?: Record<string, unknown>
  annotations?: ToolAnnotations
}

export type TextOp = 'same' | 'del' | 'add'
export interface TextPart {
  op: TextOp
  text: string
}

/** One parameter of a schema, flattened: `repo`, `options.mode`, `files[].path`. */
export interface Param {
  path: string
  /** `string`, `number | null`, `array of string`, `enum`, `any` … */
  type: string
  required: boolean
  description: string
  /** every other keyword (enum, default, format, minimum, pattern, title…) as compact JSON; '' when none */
  constraints: string
}

export type ParamAspect = 'type' | 'required' | 'description' | 'constraints'

export interface ParamChange {
  path: string
  kind: 'added' | 'removed' | 'changed'
  before?: Param
  after?: Param
  /** what differs, for a changed parameter */
  aspects: ParamAspect[]
  /** the description's word diff, when it differs */
  description?: TextPart[]
  /** the other keywords' diff, when they differ */
  constraints?: TextPart[]
}

export interface SchemaChange {
  params: ParamChange[]
  /** the schema's own keywords outside its parameters (additionalProperties, $defs…), as a JSON line diff; null when equal */
  rest: TextPart[] | null
}

export interface AnnotationChange {
  key: string
  before?: unknown
  after?: unknown
}

export interface VariantChange {
  before: Variant
  after: Variant
  /** the tool now needs a weaker call variant than approved ("destructive → read"): agents would call it with fewer permissions */
  weaker: boolean
}

export interface ToolChange {
  title: TextPart[] | null
  description: TextPart[] | null
  annotations: AnnotationChange[]
  variant: VariantChange | null
  inputSchema: SchemaChange | null
  outputSchema: SchemaChange | null
}

const MAX_DEPTH = 6
const MAX_PARAMS = 500
/** jsdiff gives up after this long and the text is shown as removed + added */
const DIFF_TIMEOUT_MS = 250

// ---- text ---------------------------------------------------------------------------------------

function parts(changes: ChangeObject<string>[] | undefined, before: string, after: string): TextPart[] {
  if (!changes) return [...(before ? [{ op: 'del' as const, text: before }] : []), ...(after ? [{ op: 'add' as const, text: after }] : [])]
  const raw: TextPart[] = changes.map((c) => ({ op: c.added ? 'add' : c.removed ? 'del' : 'same', text: c.value }))
  const out: TextPart[] = []
  raw.forEach((p, i) => {
    // "from" → "and", " ", "disk" → "upload": a lone space between two changes joins them into one highlight
    if (p.op === 'same' && /^\s+$/.test(p.text) && i > 0 && i < raw.length - 1 && raw[i - 1].op !== 'same' && raw[i + 1].op !== 'same') {
      push(out, 'del', p.text)
      push(out, 'add', p.text)
    } else push(out, p.op, p.text)
  })
  return out
}

function push(out: TextPart[], op: TextOp, text: string): void {
  if (!text) return
  const last = out[out.length - 1]
  if (last && last.op === op) out[out.length - 1] = { op, text: last.text + text }
  else out.push({ op, text })
}

/** A word diff of two texts, whitespace kept exactly (null when equal). */
export function textDiff(before: string, after: string): TextPart[] | null {
  if (before === after) return null
  return parts(diffWordsWithSpace(before, after, { timeout: DIFF_TIMEOUT_MS }), before, after)
}

/** The side of a diff to show as "previous" (same + del) or "new" (same + add). */
export function side(diff: readonly TextPart[], which: 'before' | 'after'): TextPart[] {
  const drop: TextOp = which === 'before' ? 'add' : 'del'
  const out: TextPart[] = []
  for (const p of diff) if (p.op !== drop) push(out, p.op, p.text)
  return out
}

// ---- JSON ---------------------------------------------------------------------------------------

/** JSON with sorted keys: equal values give equal text, whatever the key order. */
export function stableJson(v: unknown, indent?: number): string {
  return JSON.stringify(sortKeys(v), null, indent)
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys)
  if (v && typeof v === 'object') {
    const out: Record<string, unknown> = {}
    for (const k of Object.keys(v as Record<string, unknown>).sort()) out[k] = sortKeys((v as Record<string, unknown>)[k])
    return out
  }
  return v
}

/** A line diff of two JSON values as sorted, indented JSON (null when equal). */
export function jsonDiff(before: Record<string, unknown>, after: Record<string, unknown>): TextPart[] | null {
  const a = stableJson(before, 2)
  const b = stableJson(after, 2)
  if (a === b) return null
  return parts(diffJson(sortKeys(before) as object, sortKeys(after) as object, { timeout: DIFF_TIMEOUT_MS }), a, b)
}

// ---- schemas ------------------------------------------------------------------------------------

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/** A readable type for a schema: `string`, `number | null`, `array of string`, `one of (string | number)`, `any`. */
export function typeOf(schema: unknown, depth = 0): string {
  if (schema === true || schema === undefined) return 'any'
  if (schema === false) return 'nothing'
  if (!isObj(schema) || depth > MAX_DEPTH) return 'any'
  const t = schema.type
  if (t === 'array' || (Array.isArray(t) && t.length === 1 && t[0] === 'array')) return `array of ${typeOf(schema.items, depth + 1)}`
  if (typeof t === 'string') return t
  if (Array.isArray(t) && t.every((x) => typeof x === 'string')) return t.join(' | ')
  for (const k of ['anyOf', 'oneOf'] as const) {
    const v = schema[k]
    if (Array.isArray(v)) return `${k === 'anyOf' ? 'any of' : 'one of'} (${v.map((s) => typeOf(s, depth + 1)).join(' | ')})`
  }
  if (Array.isArray(schema.allOf)) return `all of (${schema.allOf.map((s) => typeOf(s, depth + 1)).join(', ')})`
  if (Array.isArray(schema.enum)) return 'enum'
  if ('const' in schema) return 'const'
  if (typeof schema.$ref === 'string') return `ref ${schema.$ref}`
  if (isObj(schema.properties)) return 'object'
  return 'any'
}

/** The parameters of a schema, nested ones by dotted path, in the schema's order. */
export function paramsOf(schema: Record<string, unknown> | undefined): Param[] {
  const out: Param[] = []
  const walk = (s: Record<string, unknown>, prefix: string, depth: number): void => {
    const props = s.properties
    if (!isObj(props)) return
    const required = Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : []
    for (const [name, raw] of Object.entries(props)) {
      if (out.length >= MAX_PARAMS) return
      const path = prefix + name
      const p = isObj(raw) ? raw : {}
      const rest: Record<string, unknown> = { ...p }
      delete rest.type
      delete rest.description
      const nested = depth < MAX_DEPTH && isObj(p.properties)
      const items = p.items
      const nestedItems = depth < MAX_DEPTH && isObj(items) && isObj(items.properties)
      if (nested) {
        delete rest.properties
        delete rest.required
      }
      if (isObj(items)) {
        // the items' type is in the parameter's type ("array of string"); keep only what else they say
        const itemRest: Record<string, unknown> = { ...items }
        if (typeof itemRest.type === 'string') delete itemRest.type
        if (nestedItems) {
          delete itemRest.properties
          delete itemRest.required
        }
        if (Object.keys(itemRest).length) rest.items = itemRest
        else delete rest.items
      }
      out.push({
        path,
        type: isObj(raw) || typeof raw === 'boolean' ? typeOf(raw) : 'any',
        required: required.includes(name),
        description: typeof p.description === 'string' ? p.description : '',
        constraints: Object.keys(rest).length ? stableJson(rest) : '',
      })
      if (nested) walk(p, `${path}.`, depth + 1)
      if (nestedItems) walk(items, `${path}[].`, depth + 1)
    }
  }
  if (schema) walk(schema, '', 0)
  return out
}

/** The schema's own keywords outside its parameters. */
function schemaRest(schema: Record<string, unknown> | undefined): Record<string, unknown> {
  if (!schema) return {}
  const rest: Record<string, unknown> = { ...schema }
  if (isObj(schema.properties)) {
    delete rest.properties
    delete rest.required
    if (rest.type === 'object') delete rest.type
  }
  return rest
}

export function schemaChange(before: Record<string, unknown> | undefined, after: Record<string, unknown> | undefined): SchemaChange | null {
  if (stableJson(before ?? null) === stableJson(after ?? null)) return null
  const a = paramsOf(before)
  const b = paramsOf(after)
  const byPath = new Map(a.map((p) => [p.path, p]))
  const seen = new Set<string>()
  const params: ParamChange[] = []
  for (const p of b) {
    seen.add(p.path)
    const old = byPath.get(p.path)
    if (!old) {
      params.push({ path: p.path, kind: 'added', after: p, aspects: [] })
      continue
    }
    const aspects = (['type', 'required', 'description', 'constraints'] as const).filter((k) => old[k] !== p[k])
    if (aspects.length === 0) continue
    params.push({
      path: p.path,
      kind: 'changed',
      before: old,
      after: p,
      aspects,
      ...(aspects.includes('description') ? { description: textDiff(old.description, p.description) ?? [] } : {}),
      ...(aspects.includes('constraints') ? { constraints: textDiff(old.constraints, p.constraints) ?? [] } : {}),
    })
  }
  for (const p of a) if (!seen.has(p.path)) params.push({ path: p.path, kind: 'removed', before: p, aspects: [] })
  return { params, rest: jsonDiff(schemaRest(before), schemaRest(after)) }
}

// ---- the whole tool -----------------------------------------------------------------------------

function annotationChanges(before: ToolAnnotations | undefined, after: ToolAnnotations | undefined): AnnotationChange[] {
  const a = before ?? {}
  const b = after ?? {}
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()
  const out: AnnotationChange[] = []
  for (const key of keys) {
    if (stableJson(a[key] ?? null) === stableJson(b[key] ?? null)) continue
    out.push({ key, ...(key in a ? { before: a[key] } : {}), ...(key in b ? { after: b[key] } : {}) })
  }
  return out
}

/**
 * What changed from `before` (the approved definition) to `after` (the listed one). Without
 * `before` (a new tool) everything the tool offers is "added".
 */
export function toolChange(before: DefinitionView | undefined, after: DefinitionView): ToolChange {
  const prev: DefinitionView = before ?? { description: '', inputSchema: { type: 'object', properties: {} } }
  const va = requiredVariant(prev.annotations)
  const vb = requiredVariant(after.annotations)
  return {
    title: textDiff(prev.title ?? '', after.title ?? ''),
    description: textDiff(prev.description ?? '', after.description ?? ''),
    annotations: annotationChanges(prev.annotations, after.annotations),
    variant: before && va !== vb ? { before: va, after: vb, weaker: variantRank(vb) < variantRank(va) } : null,
    inputSchema: schemaChange(prev.inputSchema, after.inputSchema),
    outputSchema: schemaChange(prev.outputSchema, after.outputSchema),
  }
}

/** One short line per changed field, for a headline ("description changed", "parameter mirror_to added", "read → destructive"). */
export function changeSummary(c: ToolChange): string[] {
  const lines: string[] = []
  if (c.variant) lines.push(`${c.variant.before} → ${c.variant.after}`)
  if (c.title) lines.push('title changed')
  if (c.description) lines.push('description changed')
  for (const [label, s] of [
    ['input', c.inputSchema],
    ['output', c.outputSchema],
  ] as const) {
    if (!s) continue
    for (const p of s.params)
      lines.push(`${label === 'output' ? 'output field' : 'parameter'} ${p.path} ${p.kind === 'changed' ? `changed (${p.aspects.join(', ')})` : p.kind}`)
    if (s.rest) lines.push(`${label} schema changed`)
  }
  if (c.annotations.length) lines.push(`annotations changed (${c.annotations.map((a) => a.key).join(', ')})`)
  return lines
}

/**
 * How many hidden characters (control, bidi, invisible: see text.ts) a definition holds in any
 * text an agent reads: title, description, and every key and string of its schemas and annotations.
 */
export function hiddenIn(view: DefinitionView): number {
  let n = 0
  const walk = (v: unknown, depth: number): void => {
    if (typeof v === 'string') n += hiddenCount(v)
    else if (depth > 64 || v === null || typeof v !== 'object') return
    else if (Array.isArray(v)) for (const x of v) walk(x, depth + 1)
    else
      for (const [k, x] of Object.entries(v)) {
        n += hiddenCount(k)
        walk(x, depth + 1)
      }
  }
  walk([view.title ?? '', view.description ?? '', view.inputSchema, view.outputSchema, view.annotations], 0)
  return n
}
