// Classifying a tool whose server gave no hints: the body of
// POST /api/v1/servers/:name/tools/:tool/classify, and the class its name suggests. The window
// shows the suggestion and never applies it: a name is upstream text and proves nothing.
import { z } from 'zod'
import { VARIANTS, type Variant } from './call-variant'

/** A tool's class: the call variant it is given. */
export const ToolClassSchema = z.enum(VARIANTS, { error: 'class must be "read", "write" or "destructive"' })

/** The definition hash the user saw, required (a classification is bound to it). */
export const ClassifiedHashSchema = z
  .string({ error: 'hash is required: the definition hash you reviewed (approval.hash in GET /api/v1/servers/:name/tools)' })
  .min(1, 'hash must not be empty')

/** `{"class": "read"|"write"|"destructive", "hash": "<the definition hash the user saw>"}`. */
export const ClassifyBodySchema = z.object(
  { class: ToolClassSchema, hash: ClassifiedHashSchema },
  { error: 'the body must be an object like {"class": "read", "hash": "…"}' },
)

/** Leading words of tool names, by the class they usually mean (lower case, the first word of the name). */
const NAME_WORDS: Record<Variant, readonly string[]> = {
  read: ['get', 'list', 'search', 'read', 'find', 'fetch', 'query', 'describe', 'show', 'view', 'lookup', 'count', 'check', 'inspect', 'browse'],
  write: ['create', 'add', 'update', 'set', 'write', 'edit', 'post', 'send', 'put', 'insert', 'upload', 'push', 'comment', 'rename', 'copy', 'merge', 'fork'],
  destructive: [
    'delete',
    'remove',
    'drop',
    'destroy',
    'purge',
    'wipe',
    'erase',
    'truncate',
    'reset',
    'revoke',
    'kill',
    'terminate',
    'overwrite',
    'force',
    'move',
  ],
}

/** The words of a tool name: split on `_`, `-`, `.`, spaces and camelCase ("getFileContents" → get, file, contents). */
function nameWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[\s_.\-/]+/)
    .filter(Boolean)
    .map((w) => w.toLowerCase())
}

export interface ClassSuggestion {
  class: Variant
  /** the word of the name it comes from */
  word: string
}

/**
 * The class a tool's name suggests, or null. A destructive word anywhere in the name wins (a
 * `repo_delete` is no read); otherwise the first word decides. Only a suggestion to show.
 */
export function suggestClass(name: string): ClassSuggestion | null {
  const words = nameWords(name)
  const destructive = words.find((w) => NAME_WORDS.destructive.includes(w))
  if (destructive) return { class: 'destructive', word: destructive }
  const first = words[0]
  if (first === undefined) return null
  for (const v of ['read', 'write'] as const) if (NAME_WORDS[v].includes(first)) return { class: v, word: first }
  return null
}
