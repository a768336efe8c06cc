// The JSON shapes of retrieve_tools (docs/contract.md §3). Key order matters: the objects are
// built in exactly this order and serialized with JSON.stringify.
import type { CallWith, ToolAnnotations } from './call-variant'
import type { LockStatus } from './statuses'
import { z } from 'zod'

/** The longest query searched: the longest real task in LiveMCPBench is 18,686 characters; a longer one
 *  only costs Toolgate CPU (every word is ranked), its answer (the query is echoed) and the activity record. */
export const MAX_QUERY_CHARS = 32_768

/** The arguments of retrieve_tools (and of the control API's search, which answers the same text). */
export const RetrieveArgsSchema = z.object(
  {
    query: z
      .string({
        error: (i) => (i.input === undefined ? 'query is required: describe the capability you need, e.g. {"query": "read a file"}' : 'query must be a string'),
      })
      .max(MAX_QUERY_CHARS, `query is at most ${MAX_QUERY_CHARS} characters: describe the capability you need in a sentence or two`)
      .refine((q) => q.trim().length > 0, 'query must not be empty: describe the capability you need'),
    limit: z
      .number({ error: 'limit must be an integer from 1 to 100' })
      .int('limit must be an integer from 1 to 100')
      .min(1, 'limit must be an integer from 1 to 100')
      .max(100, 'limit must be an integer from 1 to 100')
      .optional(),
    include_disabled: z.boolean({ error: 'include_disabled must be true or false' }).optional(),
  },
  { error: 'arguments must be an object like {"query": "..."}' },
)
export type RetrieveArgs = z.infer<typeof RetrieveArgsSchema>

export interface CallableEntry {
  name: string
  server: string
  description: string
  inputSchema: Record<string, unknown>
  /** the approved outputSchema, when the tool has one: its structuredContent is checked against it */
  outputSchema?: Record<string, unknown>
  annotations?: ToolAnnotations
  /** present (true) only when the tool gives neither readOnlyHint nor destructiveHint: call_with then follows the spec's defaults or a classification */
  annotations_missing?: true
  call_with: CallWith
  score: number
}

export interface LockedEntry {
  name: string
  server: string
  description?: string
  status: LockStatus
  /** the lock is the organisation's machine-wide policy: set by your organisation */
  policy?: 'organisation'
}

/** A locked tool that would rank above the best callable result or within the page: never its description. */
export interface LockedAheadEntry {
  name: string
  server: string
  status: LockStatus
  remediation: string
}

export interface RetrieveResponse {
  query: string
  tools: CallableEntry[]
  total: number
  disabled?: LockedEntry[]
  remediation?: Partial<Record<LockStatus, string>>
  notice?: string
  /** round three, always last: the locked tools that outrank the callable results (docs/search.md) */
  locked_ahead?: LockedAheadEntry[]
}
