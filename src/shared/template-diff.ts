// What a resource template under review shows (docs/passthrough.md "Resources"), from the same text
// diff as tools and prompts (tool-diff.ts): every field its approval hash covers — name, title,
// description, MIME type, and the annotations and App `_meta` as sorted JSON — against the approved
// definition of a changed template, or against nothing for a new one. The window and the CLI show
// this one model, so a change in any hashed field is shown, never approved blind.
import type { ResourceTemplateEntry, TemplateDefinition } from './resources'
import { jsonDiff, stableJson, textDiff, type TextPart } from './tool-diff'

/** The fields of a template the user reviews (all but the URI template, its identity), in the order shown. */
export const TEMPLATE_REVIEW_FIELDS = ['name', 'title', 'description', 'mimeType', 'annotations', '_meta'] as const
export type TemplateReviewField = (typeof TEMPLATE_REVIEW_FIELDS)[number]

/** How each field is labelled in the window and the CLI. */
export const TEMPLATE_FIELD_LABEL: Readonly<Record<TemplateReviewField, string>> = {
  name: 'name',
  title: 'title',
  description: 'description',
  mimeType: 'MIME type',
  annotations: 'annotations',
  _meta: '_meta',
}

/** The reviewed fields of a template definition, each one present only when set. */
export type TemplateFields = Omit<TemplateDefinition, 'uriTemplate'>

/** A definition's reviewed fields without the unset ones (the control API's `previous` and the entry's own fields). */
export function templateFields(d: Readonly<TemplateFields>): TemplateFields {
  const out: TemplateFields = { name: d.name }
  for (const k of TEMPLATE_REVIEW_FIELDS) if (k !== 'name' && d[k] !== undefined) (out as Record<string, unknown>)[k] = d[k]
  return out
}

/** A field as the text the review shows: JSON (sorted keys, indented) for the annotations and `_meta`. */
function fieldText(d: Readonly<TemplateFields> | undefined, k: TemplateReviewField): string {
  const v = d?.[k]
  if (v === undefined) return ''
  return typeof v === 'string' ? v : stableJson(v, 2)
}

export interface TemplateFieldChange {
  field: TemplateReviewField
  label: string
  diff: TextPart[]
  /** the field's text now ('' when unset) */
  after: string
  /** shown as a block of lines (JSON) */
  code: boolean
}

/** Every reviewed field that differs from the approved definition (for a new template: every field it has). */
export function templateChange(t: Readonly<ResourceTemplateEntry>): TemplateFieldChange[] {
  const prev = t.approval?.previous
  const out: TemplateFieldChange[] = []
  for (const field of TEMPLATE_REVIEW_FIELDS) {
    const after = fieldText(t, field)
    const [a, b] = [prev?.[field], t[field]]
    // JSON line by line when both sides have it (as a tool's schemas), else word by word
    const diff = typeof a === 'object' && typeof b === 'object' ? jsonDiff(a, b) : textDiff(fieldText(prev, field), after)
    if (diff) out.push({ field, label: TEMPLATE_FIELD_LABEL[field], diff, after, code: field === 'annotations' || field === '_meta' })
  }
  return out
}
