// What an agent reads of a listed resource or resource template (docs/passthrough.md "Resources"):
// the standard fields only, each text on one line (runs of whitespace and line breaks as one
// space), escaped (shared/text.ts: control, bidi and invisible characters as \u escapes, as for
// progress and log messages) and cut; a MIME type, a size and annotations only in their known
// shape; `_meta` only the App's keys (`ui`, OpenAI's `openai/widget…`), small, its strings escaped.
// Every other key the server put in an item (its own instructions, icons that point anywhere, a
// `_meta["toolgate/id"]` naming another server) is dropped. Upstream text is untrusted: a listed
// resource's text is not reviewed, so it reaches agents bounded and neutralised. A list of items
// in this shape is also one a strict client accepts: a malformed field no longer fails the whole
// list of every server in the agent's scope.
import { z } from 'zod'
import { escapeControls } from '../../../shared/text'
import type { TemplateDefinition } from '../../../shared/resources'

/** The longest name or title an agent gets (characters, once escaped). */
export const MAX_RESOURCE_NAME_CHARS = 200
/** The longest description an agent gets (characters, once escaped). */
export const MAX_RESOURCE_DESCRIPTION_CHARS = 1000
/** The largest `_meta` kept (JSON characters); a larger one is dropped whole. */
const MAX_META_CHARS = 4096
/** The deepest `_meta` kept (objects and arrays). */
const MAX_META_DEPTH = 8

type Item = Record<string, unknown>

const isRecord = (v: unknown): v is Item => typeof v === 'object' && v !== null && !Array.isArray(v)

/** `s` cut to `max` characters with an ellipsis, never inside a surrogate pair. */
function cut(s: string, max: number): string {
  if (s.length <= max) return s
  let c = s.slice(0, max - 1)
  const last = c.charCodeAt(c.length - 1)
  if (last >= 0xd800 && last <= 0xdbff) c = c.slice(0, -1)
  return `${c}…`
}

/**
 * A server's text as one line an agent may read: whitespace runs (line breaks, tabs) as one space,
 * every other unsafe character escaped, cut to `max`. The text is cut before it is escaped too, so
 * the work stays bounded whatever the server sent.
 */
export function oneLine(s: string, max: number): string {
  return cut(escapeControls(s.slice(0, max * 2).replace(/[\t\n\v\f\r ]+/g, ' ')).trim(), max)
}

/** A MIME type (`type/subtype`, parameters allowed), at most 255 characters; anything else is not one. */
const MIME =
  /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}(?:\s*;\s*[a-z0-9!#$&^_.+-]+=(?:[a-z0-9!#$&^_.+-]+|"[\x20\x21\x23-\x5b\x5d-\x7e]*"))*$/i
/** An ISO 8601 date-time with a zone, as the protocol's `lastModified` (the SDK's own check: a date it would refuse fails a strict client's whole list). */
const DATE_TIME = z.iso.datetime({ offset: true })

/** A MIME type as an agent gets it: the server's when it is one, else undefined. */
export function agentMimeType(v: unknown): string | undefined {
  return typeof v === 'string' && v.length <= 255 && MIME.test(v) ? v : undefined
}

/** Annotations as an agent gets them: the known members in their known shape; undefined when none is left. */
export function agentAnnotations(v: unknown): Item | undefined {
  if (!isRecord(v)) return undefined
  const out: Item = {}
  if (Array.isArray(v.audience)) {
    const audience = [...new Set(v.audience.filter((a): a is string => a === 'user' || a === 'assistant'))]
    if (audience.length > 0) out.audience = audience
  }
  if (typeof v.priority === 'number' && v.priority >= 0 && v.priority <= 1) out.priority = v.priority
  if (typeof v.lastModified === 'string' && v.lastModified.length <= 64 && DATE_TIME.safeParse(v.lastModified).success) out.lastModified = v.lastModified
  return Object.keys(out).length > 0 ? out : undefined
}

/** A `_meta` value with every string (keys too) on one escaped line; undefined when it nests too deep. */
function metaValue(v: unknown, depth: number): unknown {
  if (typeof v === 'string') return oneLine(v, MAX_RESOURCE_DESCRIPTION_CHARS)
  if (typeof v !== 'object' || v === null) return typeof v === 'number' && !Number.isFinite(v) ? undefined : v
  if (depth >= MAX_META_DEPTH) return undefined
  if (Array.isArray(v)) return v.map((x) => metaValue(x, depth + 1)).filter((x) => x !== undefined)
  const out: Item = {}
  for (const [k, x] of Object.entries(v)) {
    const kept = metaValue(x, depth + 1)
    if (kept !== undefined) out[oneLine(k, MAX_RESOURCE_NAME_CHARS)] = kept
  }
  return out
}

/** The App's keys of a `_meta` (`ui`, `openai/widget…`), when small; undefined when none is left. */
function appMeta(v: unknown): Item | undefined {
  if (!isRecord(v)) return undefined
  const out: Item = {}
  for (const [k, x] of Object.entries(v)) {
    if (k !== 'ui' && !k.startsWith('openai/widget')) continue
    const kept = metaValue(x, 1)
    if (kept !== undefined) out[k] = kept
  }
  if (Object.keys(out).length === 0 || JSON.stringify(out).length > MAX_META_CHARS) return undefined
  return out
}

/** The fields a resource and a template share, as an agent gets them; `fallbackName` when the server named none. */
function common(x: Item, fallbackName: string): Omit<TemplateDefinition, 'uriTemplate'> {
  const out: Omit<TemplateDefinition, 'uriTemplate'> = {
    name: oneLine(typeof x.name === 'string' && x.name.trim() !== '' ? x.name : fallbackName, MAX_RESOURCE_NAME_CHARS),
  }
  if (typeof x.title === 'string') out.title = oneLine(x.title, MAX_RESOURCE_NAME_CHARS)
  if (typeof x.description === 'string') out.description = oneLine(x.description, MAX_RESOURCE_DESCRIPTION_CHARS)
  const mimeType = agentMimeType(x.mimeType)
  if (mimeType) out.mimeType = mimeType
  const a = agentAnnotations(x.annotations)
  if (a) out.annotations = a
  const meta = appMeta(x._meta)
  if (meta) out._meta = meta
  return out
}

/** The longest URI or URI template of a listed item an agent gets; a longer one is left out. */
export const MAX_LISTED_URI_CHARS = 2048

/** Characters no URI holds unencoded that could make its text pose as something else: line breaks and other whitespace but the plain space, control, format (bidi, invisible, tag) and private-use characters, lone surrogates. */
const UNSAFE_IN_URI = /[\t\n\v\f\r\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\p{Cc}\p{Cf}\p{Co}\p{Cs}]/u

/**
 * Whether a listed item's URI (or URI template) may reach agents: it cannot be escaped like the
 * other text (an agent reads a resource by it, so it must stay what the server wrote), so a URI
 * with characters that could make it pose as Toolgate's text, or a very long one, is left out of the
 * list instead. A plain space is kept: servers do list file paths with spaces unencoded.
 */
export function listableUri(uri: string): boolean {
  return uri.length <= MAX_LISTED_URI_CHARS && !UNSAFE_IN_URI.test(uri)
}

/** A listed resource as an agent gets it (`uri` is already the URI agents see). */
export function agentResource(x: Item & { uri: string }): Item {
  const out: Item = { uri: x.uri, ...common(x, x.uri) }
  if (typeof x.size === 'number' && Number.isSafeInteger(x.size) && x.size >= 0) out.size = x.size
  return out
}

/** A listed resource template as an agent gets it (`uriTemplate` is already the template agents see, or the server's own for its approval). */
export function agentTemplate(x: Item & { uriTemplate: string }): TemplateDefinition {
  return { uriTemplate: x.uriTemplate, ...common(x, x.uriTemplate) }
}
