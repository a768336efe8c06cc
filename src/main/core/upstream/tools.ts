// tools/list from an upstream: paginated, read loosely (one bad tool must not hide the others),
// then validated and capped per UpstreamLimits. Tool descriptions are untrusted text.
import { z } from 'zod'
import type { Client } from '@modelcontextprotocol/client'
import type { UpstreamLimits } from './types'
import type { ToolDefinition } from '../../../shared/tool-definition'
import type { ToolAnnotations } from '../../../shared/call-variant'

/** A tools/list page read without judging the tools (the SDK's schema rejects the whole page). */
const LooseListToolsResult = z.object({ tools: z.array(z.unknown()), nextCursor: z.string().optional() }).loose()

const MAX_PAGES = 1000
const MAX_NAME_CHARS = 256
/**
 * How deep a tool's definition may nest (objects and arrays). A real tool's schema nests a few
 * dozen levels at most; Toolgate copies, masks, hashes and shows it with recursive walks, and one
 * tool nested tens of thousands deep (a few hundred KB) overflowed the stack there: the whole list
 * was lost, the server's other tools too.
 */
export const MAX_TOOL_DEPTH = 128

/** Whether `v` nests deeper than `max` (walked without recursion, stopping there). */
export function nestsDeeper(v: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[v, 0]]
  while (stack.length > 0) {
    const [x, d] = stack.pop() as [unknown, number]
    if (typeof x !== 'object' || x === null) continue
    if (d >= max) return true
    for (const child of Array.isArray(x) ? x : Object.values(x)) if (typeof child === 'object' && child !== null) stack.push([child, d + 1])
  }
  return false
}

export interface ToolListing {
  tools: ToolDefinition[]
  /** problems worth showing the operator (cap hit, tools dropped); empty when clean */
  warnings: string[]
  /** the tools the server runs only as a task (2025-11-25 `execution.taskSupport: "required"`: task-call.ts) */
  taskOnly?: string[]
}

/**
 * Fetch every page of tools/list. Uses mcp.request rather than mcp.listTools on purpose:
 * listTools validates every tool strictly and compiles each outputSchema (Ajv) — one broken
 * tool would fail the whole list, and the proxy passes results through without output checks.
 */
export async function fetchToolList(
  mcp: Client,
  limits: UpstreamLimits,
  timeoutMs: number,
  mask: (raw: unknown[]) => unknown[] = (raw) => raw,
): Promise<ToolListing> {
  const raw: unknown[] = []
  const seenCursors = new Set<string>()
  let cursor: string | undefined
  let truncatedFetch = false
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await mcp.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, LooseListToolsResult, { timeout: timeoutMs })
    raw.push(...result.tools)
    cursor = result.nextCursor
    if (cursor === undefined || cursor === '') break
    if (seenCursors.has(cursor)) break // a server repeating a cursor would loop forever
    seenCursors.add(cursor)
    if (raw.length > limits.maxTools) {
      truncatedFetch = true
      break
    }
  }
  // a tool nested too deep is left out before anything walks it (the rest of the list stays)
  const tooDeep: string[] = []
  const shallow = raw.filter((t) => {
    if (!nestsDeeper(t, MAX_TOOL_DEPTH)) return true
    const name = (t as { name?: unknown }).name
    tooDeep.push(`${typeof name === 'string' ? JSON.stringify(name.slice(0, 80)) : 'a tool'}: nests deeper than ${MAX_TOOL_DEPTH} levels`)
    return false
  })
  // the server's secrets are masked before anything reads the list
  const masked = mask(shallow)
  const taskOnly = masked.flatMap((t) => {
    const r = t as { name?: unknown; execution?: { taskSupport?: unknown } } | null
    return typeof r?.name === 'string' && r.execution?.taskSupport === 'required' ? [r.name] : []
  })
  return { ...sanitizeTools(masked, limits, truncatedFetch, tooDeep), ...(taskOnly.length > 0 ? { taskOnly } : {}) }
}

export const DEFAULT_MAX_TITLE_CHARS = 256
export const DEFAULT_MAX_ANNOTATIONS_BYTES = 4096
const STANDARD_HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const

/** Annotations over the cap keep only the standard boolean hints (so the call variant is never weakened) and a capped title. */
function capAnnotations(a: Record<string, unknown>, limits: UpstreamLimits): ToolAnnotations {
  const max = limits.maxAnnotationsBytes ?? DEFAULT_MAX_ANNOTATIONS_BYTES
  if (JSON.stringify(a).length <= max) return a as ToolAnnotations
  const kept: ToolAnnotations = {}
  for (const k of STANDARD_HINTS) if (typeof a[k] === 'boolean') kept[k] = a[k]
  const titleMax = limits.maxTitleChars ?? DEFAULT_MAX_TITLE_CHARS
  if (typeof a.title === 'string') kept.title = a.title.length > titleMax ? truncate(a.title, titleMax) : a.title
  return kept
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function truncate(text: string, max: number): string {
  let cut = text.slice(0, Math.max(0, max - 1))
  const last = cut.charCodeAt(cut.length - 1)
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1) // do not split a surrogate pair
  return `${cut}…`
}

/** The largest `_meta.ui` kept (JSON bytes); a bigger one is dropped (the tool then has no App). */
const MAX_UI_BYTES = 4096

/** An MCP App tool's `_meta.ui` (with the older `_meta["ui/resourceUri"]` read into it), when it is a small object. */
function appUi(meta: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(meta)) return undefined
  const ui: Record<string, unknown> = isPlainObject(meta.ui) ? { ...meta.ui } : {}
  const legacy = meta['ui/resourceUri']
  if (typeof ui.resourceUri !== 'string' && typeof legacy === 'string') ui.resourceUri = legacy
  if (Object.keys(ui).length === 0 || JSON.stringify(ui).length > MAX_UI_BYTES) return undefined
  return ui
}

/** Validate and cap a raw tool list. Pure: exported for unit tests. */
export function sanitizeTools(raw: readonly unknown[], limits: UpstreamLimits, moreNotFetched = false, droppedBefore: readonly string[] = []): ToolListing {
  const warnings: string[] = []
  const tools: ToolDefinition[] = []
  const names = new Set<string>()
  const dropped: string[] = [...droppedBefore]
  let truncated = 0
  let cappedAnnotations = 0
  let truncatedTitles = 0
  for (const [i, item] of raw.entries()) {
    if (!isPlainObject(item)) {
      dropped.push(`#${i}: not an object`)
      continue
    }
    const name = item.name
    if (typeof name !== 'string' || name.length === 0 || name.length > MAX_NAME_CHARS || /[\u0000-\u001f\u007f]/.test(name)) {
      dropped.push(`#${i}: invalid name ${JSON.stringify(name)?.slice(0, 80) ?? 'undefined'}`)
      continue
    }
    if (names.has(name)) {
      dropped.push(`"${name}": duplicate name`)
      continue
    }
    let inputSchema: Record<string, unknown>
    if (item.inputSchema === undefined) {
      inputSchema = { type: 'object', properties: {} }
    } else if (isPlainObject(item.inputSchema)) {
      inputSchema = item.inputSchema
    } else {
      dropped.push(`"${name}": inputSchema is not an object`)
      continue
    }
    if (tools.length >= limits.maxTools) continue
    names.add(name)
    const tool: ToolDefinition = { name, description: '', inputSchema }
    if (typeof item.description === 'string') {
      if (item.description.length > limits.maxDescriptionChars) {
        tool.description = truncate(item.description, limits.maxDescriptionChars)
        truncated++
      } else {
        tool.description = item.description
      }
    }
    if (isPlainObject(item.outputSchema)) tool.outputSchema = item.outputSchema
    if (isPlainObject(item.annotations)) {
      const capped = capAnnotations(item.annotations, limits)
      if (capped !== item.annotations) cappedAnnotations++
      tool.annotations = capped
    }
    const ui = appUi(item._meta)
    if (ui) tool.ui = ui
    if (typeof item.title === 'string') {
      const max = limits.maxTitleChars ?? DEFAULT_MAX_TITLE_CHARS
      tool.title = item.title.length > max ? truncate(item.title, max) : item.title
      if (tool.title !== item.title) truncatedTitles++
    }
    tools.push(tool)
  }
  const listed = raw.length + droppedBefore.length
  if (dropped.length > 0) {
    const shown = dropped.slice(0, 5).join('; ')
    warnings.push(`dropped ${dropped.length} invalid tool(s): ${shown}${dropped.length > 5 ? '; …' : ''}`)
  }
  if (truncated > 0) {
    warnings.push(`truncated ${truncated} tool description(s) to ${limits.maxDescriptionChars} characters (limits.max_description_chars)`)
  }
  if (truncatedTitles > 0) {
    warnings.push(`truncated ${truncatedTitles} tool title(s) to ${limits.maxTitleChars ?? DEFAULT_MAX_TITLE_CHARS} characters (limits.max_title_chars)`)
  }
  if (cappedAnnotations > 0) {
    warnings.push(
      `${cappedAnnotations} tool(s) had annotations over ${limits.maxAnnotationsBytes ?? DEFAULT_MAX_ANNOTATIONS_BYTES} bytes (limits.max_annotations_bytes); only the standard hints were kept`,
    )
  }
  const valid = listed - dropped.length
  if (valid > limits.maxTools || moreNotFetched) {
    const count = moreNotFetched ? `more than ${listed}` : String(valid)
    warnings.push(`lists ${count} tools; only the first ${limits.maxTools} are used (limits.max_tools_per_server)`)
  }
  return { tools, warnings }
}
