// The JSON shapes of retrieve_tools (docs/contract.md §3). Key order matters: the objects are
// built in exactly this order and serialized with JSON.stringify.
import type { CallWith, ToolAnnotations } from './call-variant'
import type { LockStatus } from './statuses'

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
