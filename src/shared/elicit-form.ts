// The form of an MCP elicitation (form mode) as Toolgate shows it to the user: the requested schema
// (flat: string, number, integer, boolean, single- and multi-select enums, with titles, defaults,
// required) read into fields, and the zod schema an answer must match, built from those fields.
// The window validates with it before sending, the core validates again before anything reaches
// the server (an answer that does not match is refused 400 with what is wrong). Pure: no Node, no DOM.
import { z } from 'zod'
import { escapeControls } from './text'

export type FieldKind = 'string' | 'number' | 'integer' | 'boolean' | 'enum' | 'multi'
export const STRING_FORMATS = ['email', 'uri', 'date', 'date-time'] as const
export type StringFormat = (typeof STRING_FORMATS)[number]

export interface FormOption {
  value: string
  title: string
}

/** One field of the form; every string in it is the server's (made safe by the core before it gets here). */
export interface FormField {
  name: string
  kind: FieldKind
  title?: string
  description?: string
  required: boolean
  default?: string | number | boolean | string[]
  /** enum and multi: the choices */
  options?: FormOption[]
  format?: StringFormat
  minLength?: number
  maxLength?: number
  minimum?: number
  maximum?: number
  minItems?: number
  maxItems?: number
}

/** A form has at most this many fields, a field at most this many choices (a person answers it; more is refused to the server). */
export const MAX_FIELDS = 40
export const MAX_OPTIONS = 200
/** The server's message of a question is cut here, with a mark that says so. */
export const MAX_MESSAGE_CHARS = 4000
/** Titles, enum names and other short texts of a form are cut here, descriptions at MAX_DESCRIPTION_CHARS (marked). */
export const MAX_TITLE_CHARS = 200
export const MAX_DESCRIPTION_CHARS = 1000
/** A value an answer carries (an enum value, a default) is never cut: a longer one is refused to the server. */
export const MAX_VALUE_CHARS = 1000
/** The whole requested schema as JSON text: a longer one is refused to the server. */
export const MAX_SCHEMA_CHARS = 262_144

const text = z.string().max(2000)
const common = { title: text.optional(), description: text.optional() }
const count = z.number().int().nonnegative()
// The schemas of a requested form are built when a server first asks a question (most sessions
// see none: docs/performance.md, memory).
const Titled = z.lazy(() => z.object({ const: z.string(), title: text.optional() }))

const StringProp = z.lazy(() =>
  z.object({
    type: z.literal('string'),
    ...common,
    minLength: count.optional(),
    maxLength: count.optional(),
    format: z.enum(STRING_FORMATS).optional(),
    default: z.string().optional(),
  }),
)
const EnumProp = z.lazy(() =>
  z.object({
    type: z.literal('string'),
    ...common,
    enum: z.array(z.string()).min(1).max(MAX_OPTIONS),
    enumNames: z.array(text).optional(),
    default: z.string().optional(),
  }),
)
const OneOfProp = z.lazy(() =>
  z.object({ type: z.literal('string'), ...common, oneOf: z.array(Titled).min(1).max(MAX_OPTIONS), default: z.string().optional() }),
)
const NumberProp = z.lazy(() =>
  z.object({
    type: z.enum(['number', 'integer']),
    ...common,
    minimum: z.number().optional(),
    maximum: z.number().optional(),
    default: z.number().optional(),
  }),
)
const BooleanProp = z.lazy(() => z.object({ type: z.literal('boolean'), ...common, default: z.boolean().optional() }))
const MultiProp = z.lazy(() =>
  z.object({
    type: z.literal('array'),
    ...common,
    minItems: count.optional(),
    maxItems: count.optional(),
    items: z.union([
      z.object({ type: z.literal('string'), enum: z.array(z.string()).min(1).max(MAX_OPTIONS) }),
      z.object({ anyOf: z.array(Titled).min(1).max(MAX_OPTIONS) }),
    ]),
    default: z.array(z.string()).optional(),
  }),
)

const SchemaShape = z.lazy(() =>
  z.object({
    type: z.literal('object'),
    properties: z.record(z.string().min(1).max(200), z.unknown()),
    required: z.array(z.string()).optional(),
  }),
)

// a choice without a title shows its value escaped (the value itself stays as the server sent it)
const options = (values: string[], names?: string[]): FormOption[] => values.map((v, i) => ({ value: v, title: names?.[i] ?? escapeControls(v) }))
const titled = (list: Array<z.infer<typeof Titled>>): FormOption[] => list.map((o) => ({ value: o.const, title: o.title ?? escapeControls(o.const) }))

function fieldOf(name: string, raw: unknown, required: boolean): FormField | string {
  const base = (p: { title?: string; description?: string }): Pick<FormField, 'name' | 'required' | 'title' | 'description'> => ({
    name,
    required,
    ...(p.title !== undefined ? { title: p.title } : {}),
    ...(p.description !== undefined ? { description: p.description } : {}),
  })
  // a default that is none of the field's choices cannot be shown (the form shows "(none)"): it is dropped
  const choice = (opts: FormOption[], d: string | undefined): { default?: string } => (d !== undefined && opts.some((x) => x.value === d) ? { default: d } : {})
  const e = EnumProp.safeParse(raw)
  if (e.success) {
    const opts = options(e.data.enum, e.data.enumNames)
    return { ...base(e.data), kind: 'enum', options: opts, ...choice(opts, e.data.default) }
  }
  const o = OneOfProp.safeParse(raw)
  if (o.success) {
    const opts = titled(o.data.oneOf)
    return { ...base(o.data), kind: 'enum', options: opts, ...choice(opts, o.data.default) }
  }
  const s = StringProp.safeParse(raw)
  if (s.success) {
    const { type, title, description, ...rest } = s.data
    void type
    void title
    void description
    return { ...base(s.data), kind: 'string', ...rest }
  }
  const n = NumberProp.safeParse(raw)
  if (n.success) {
    const { type, title, description, ...rest } = n.data
    void title
    void description
    return { ...base(n.data), kind: type, ...rest }
  }
  const b = BooleanProp.safeParse(raw)
  if (b.success) return { ...base(b.data), kind: 'boolean', ...(b.data.default !== undefined ? { default: b.data.default } : {}) }
  const m = MultiProp.safeParse(raw)
  if (m.success) {
    const it = m.data.items
    const opts = 'anyOf' in it ? titled(it.anyOf) : options(it.enum)
    const d = m.data.default
    return {
      ...base(m.data),
      kind: 'multi',
      options: opts,
      ...(m.data.minItems !== undefined ? { minItems: m.data.minItems } : {}),
      ...(m.data.maxItems !== undefined ? { maxItems: m.data.maxItems } : {}),
      // only a default whose every value is a choice: a box the form has no checkbox for cannot be unticked
      ...(d !== undefined && d.every((v) => opts.some((x) => x.value === v)) ? { default: d } : {}),
    }
  }
  return `field "${name}" is not one of the kinds an MCP elicitation may ask for (string, number, integer, boolean, enum, multi-select enum)`
}

/** The requested schema as fields, or why it cannot be shown (then nobody is asked). */
export function formOf(schema: unknown): { fields: FormField[] } | { error: string } {
  const s = SchemaShape.safeParse(schema)
  if (!s.success) return { error: 'the requested schema is not an object schema with "properties"' }
  const names = Object.keys(s.data.properties)
  if (names.length > MAX_FIELDS) return { error: `the requested schema has ${names.length} fields (at most ${MAX_FIELDS})` }
  const required = new Set(s.data.required ?? [])
  for (const r of required) if (!names.includes(r)) return { error: `"required" names "${r}", which is not a field` }
  const fields: FormField[] = []
  for (const name of names) {
    if (escapeControls(name) !== name) return { error: `a field name holds control, bidi or invisible characters (${escapeControls(name)})` }
    const f = fieldOf(name, s.data.properties[name], required.has(name))
    if (typeof f === 'string') return { error: f }
    fields.push(f)
  }
  return { fields }
}

function fieldSchema(f: FormField): z.ZodType {
  const what = f.title ? `"${f.name}" (${f.title})` : `"${f.name}"`
  switch (f.kind) {
    case 'string': {
      let s: z.ZodType<string> =
        f.format === 'email'
          ? z.email({ error: `${what} must be an email address` })
          : f.format === 'uri'
            ? z.url({ error: `${what} must be a URL` })
            : f.format === 'date'
              ? z.iso.date({ error: `${what} must be a date (YYYY-MM-DD)` })
              : f.format === 'date-time'
                ? z.iso.datetime({ offset: true, error: `${what} must be a date and time (ISO 8601)` })
                : z.string({ error: `${what} must be text` })
      if (f.minLength !== undefined) s = s.refine((v) => v.length >= (f.minLength ?? 0), `${what} must be at least ${f.minLength} characters`)
      if (f.maxLength !== undefined) s = s.refine((v) => v.length <= (f.maxLength ?? 0), `${what} must be at most ${f.maxLength} characters`)
      return s
    }
    case 'number':
    case 'integer': {
      let n =
        f.kind === 'integer'
          ? z.number({ error: `${what} must be a whole number` }).int(`${what} must be a whole number`)
          : z.number({ error: `${what} must be a number` })
      if (f.minimum !== undefined) n = n.min(f.minimum, `${what} must be at least ${f.minimum}`)
      if (f.maximum !== undefined) n = n.max(f.maximum, `${what} must be at most ${f.maximum}`)
      return n
    }
    case 'boolean':
      return z.boolean({ error: `${what} must be true or false` })
    case 'enum': {
      const values = (f.options ?? []).map((o) => o.value)
      return z.string().refine((v) => values.includes(v), `${what} must be one of ${values.map((v) => JSON.stringify(v)).join(', ')}`)
    }
    case 'multi': {
      const values = (f.options ?? []).map((o) => o.value)
      let a = z.array(
        z.string().refine((v) => values.includes(v), `${what} may only hold ${values.map((v) => JSON.stringify(v)).join(', ')}`),
        {
          error: `${what} must be a list of choices`,
        },
      )
      if (f.minItems !== undefined) a = a.min(f.minItems, `${what} needs at least ${f.minItems} choices`)
      if (f.maxItems !== undefined) a = a.max(f.maxItems, `${what} takes at most ${f.maxItems} choices`)
      return a
    }
  }
}

/** The schema an accepted answer's content must match: the form's fields, required ones required, nothing else. */
export function contentSchema(fields: readonly FormField[]): z.ZodType<Record<string, string | number | boolean | string[]>> {
  const shape: Record<string, z.ZodType> = {}
  for (const f of fields) shape[f.name] = f.required ? fieldSchema(f) : fieldSchema(f).optional()
  return z.strictObject(shape, { error: 'content must be an object of the form\'s fields, e.g. {"name": "value"}' }) as never
}

/**
 * The form as shown (SEP-1034): each field's default, which the window fills in. Accepting a question
 * without content sends this; an answer with content is the whole answer (a field it leaves out was
 * left empty, and no default is put back). Defaults the form cannot show are not here (fieldOf).
 */
export function shownDefaults(fields: readonly FormField[]): Record<string, string | number | boolean | string[]> {
  const out: Record<string, string | number | boolean | string[]> = {}
  for (const f of fields) if (f.default !== undefined) out[f.name] = Array.isArray(f.default) ? [...f.default] : f.default
  return out
}

/** Checks an answer's content: the content as it goes to the server, or every problem in words. */
export function checkContent(
  fields: readonly FormField[],
  content: unknown,
): { ok: true; content: Record<string, string | number | boolean | string[]> } | { ok: false; error: string } {
  // a copy without a prototype: a field named "toString" or "constructor" must not read Object's
  // inherited members (an optional one left empty would be refused, a required one seem present)
  const given: unknown =
    content !== null && typeof content === 'object' && !Array.isArray(content) ? Object.assign(Object.create(null) as object, content) : (content ?? {})
  const missing =
    given !== null && typeof given === 'object' && !Array.isArray(given)
      ? fields.filter((f) => f.required && (given as Record<string, unknown>)[f.name] === undefined).map((f) => `"${f.name}" is required`)
      : []
  const r = contentSchema(fields).safeParse(given)
  if (r.success && missing.length === 0) return { ok: true, content: r.data }
  const problems = r.success
    ? []
    : r.error.issues
        .filter(
          (i) => !(i.path.length === 1 && fields.some((f) => f.required && f.name === i.path[0] && (given as Record<string, unknown>)[f.name] === undefined)),
        )
        .map((i) => (i.code === 'unrecognized_keys' ? `the form has no field ${i.keys.map((k) => JSON.stringify(k)).join(', ')}` : i.message))
  return { ok: false, error: [...missing, ...problems].join('; ') }
}
