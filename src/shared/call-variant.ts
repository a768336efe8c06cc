// Which call_tool_* variant a tool needs (docs/contract.md §3): from its hints where
// it gives any, else the MCP spec's defaults (not read-only, may destroy); a classification by the
// operator or the user stands in for missing hints and never weakens a server's own stricter hint.

export const VARIANTS = ['read', 'write', 'destructive'] as const
export type Variant = (typeof VARIANTS)[number]
export type CallWith = `call_tool_${Variant}`

export interface ToolAnnotations {
  title?: string
  readOnlyHint?: boolean
  destructiveHint?: boolean
  idempotentHint?: boolean
  openWorldHint?: boolean
  [k: string]: unknown
}

export function isVariant(v: unknown): v is Variant {
  return typeof v === 'string' && (VARIANTS as readonly string[]).includes(v)
}

/**
 * Whether the tool gives a hint that decides its variant: `readOnlyHint` or `destructiveHint` as a
 * boolean (a string "true" is no hint: upstream text is untrusted). Without one the spec's
 * defaults apply, and every surface says "no annotations: treated as destructive".
 */
export function hasVariantHints(annotations: ToolAnnotations | undefined): boolean {
  return typeof annotations?.readOnlyHint === 'boolean' || typeof annotations?.destructiveHint === 'boolean'
}

/**
 * The variant the server's own hints ask for, or null when it gives none:
 * destructiveHint:true → destructive (whatever readOnlyHint says); readOnlyHint:true → read;
 * readOnlyHint:false, or destructiveHint:false alone (the spec's readOnlyHint default is false) → write.
 */
export function hintVariant(annotations: ToolAnnotations | undefined): Variant | null {
  if (annotations?.destructiveHint === true) return 'destructive'
  if (annotations?.readOnlyHint === true) return 'read'
  if (annotations?.readOnlyHint === false || annotations?.destructiveHint === false) return 'write'
  return null
}

/** The variant a definition needs by its annotations alone: no hints → destructive (the spec's defaults). */
export function requiredVariant(annotations: ToolAnnotations | undefined): Variant {
  return hintVariant(annotations) ?? 'destructive'
}

/** Who classified a tool: the operator in mcp_config.json (`tool_classes`), the organisation's machine-wide policy (its `tool_classes`), or the user (bound to the definition hash). */
export type ClassifiedBy = 'operator' | 'organisation' | 'user'

export interface Classification {
  class: Variant
  by: ClassifiedBy
}

/** Where a tool's variant comes from: its own hints, the spec's defaults (no hints), or a classification. */
export type VariantSource = 'annotations' | 'no_annotations' | ClassifiedBy

export interface VariantDecision {
  variant: Variant
  source: VariantSource
}

/**
 * The variant of one definition: a classification replaces the spec's defaults of a tool without
 * hints, and makes a hinted tool stricter only (a server's own stricter hint always wins).
 */
export function decideVariant(annotations: ToolAnnotations | undefined, classification?: Classification): VariantDecision {
  const hinted = hintVariant(annotations)
  if (classification && (hinted === null || variantRank(classification.class) > variantRank(hinted))) {
    return { variant: classification.class, source: classification.by }
  }
  return hinted === null ? { variant: 'destructive', source: 'no_annotations' } : { variant: hinted, source: 'annotations' }
}

export function variantRank(v: Variant): number {
  return VARIANTS.indexOf(v)
}

export function callWith(v: Variant): CallWith {
  return `call_tool_${v}`
}

/** What the window and `toolgate tools list` show for a tool whose server gave no hints and that nobody classified. */
export const NO_ANNOTATIONS_TEXT = 'no annotations: treated as destructive'

/** Why a tool needs its variant, as the end of a sentence ("… because <reason>"); `annotations` are the definition's. */
export function variantReason(d: VariantDecision, annotations?: ToolAnnotations): string {
  switch (d.source) {
    case 'operator':
      return `the operator classified it ${d.variant} (tool_classes in mcp_config.json)`
    case 'organisation':
      return `your organisation classified it ${d.variant} (set by your organisation, tool_classes in its policy)`
    case 'user':
      return `the user classified it ${d.variant}`
    case 'no_annotations':
      return "its server gives no annotations, so the MCP spec's defaults apply (not read-only, may destroy data)"
    case 'annotations':
      return d.variant === 'destructive'
        ? 'its annotations mark it destructive (destructiveHint: true)'
        : d.variant === 'write'
          ? annotations?.readOnlyHint === false
            ? 'its annotations mark it as not read-only (readOnlyHint: false)'
            : "its annotations say destructiveHint: false but not readOnlyHint: true, so it is not read-only (the spec's default)"
          : 'its annotations mark it read-only (readOnlyHint: true)'
  }
}
