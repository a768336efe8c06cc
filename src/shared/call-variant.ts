// Which call_tool_* variant a tool needs, from its annotations (CONTRACT.md §3):
// destructiveHint:true → destructive; readOnlyHint:false → write; otherwise read.

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

export function requiredVariant(annotations: ToolAnnotations | undefined): Variant {
  if (annotations?.destructiveHint === true) return 'destructive'
  if (annotations?.readOnlyHint === false) return 'write'
  return 'read'
}

export function variantRank(v: Variant): number {
  return VARIANTS.indexOf(v)
}

export function callWith(v: Variant): CallWith {
  return `call_tool_${v}`
}
