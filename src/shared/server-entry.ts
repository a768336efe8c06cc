// A server entry as the user adds or edits it (the window's form, `toolgate servers add`, the
// control API) and as the edit form is shown it: values that may be secret hidden, the fields that
// carry operator policy read-only.
import type { ConfirmLevel } from './confirmations'
import type { Variant } from './call-variant'

/** The fields of a server entry that carry operator policy (isolation included): shown read-only, never changed from the window or the API. */
export const POLICY_FIELDS = [
  'quarantined',
  'trust',
  'enabled_tools',
  'disabled_tools',
  'enabled_prompts',
  'disabled_prompts',
  'sandbox',
  'confirm',
  'confirm_tools',
  'confirm_timeout_s',
  'tool_classes',
] as const
export type PolicyField = (typeof POLICY_FIELDS)[number]

/**
 * A server as the user adds or edits it (the window's form, `toolgate servers add`,
 * POST /api/v1/servers, PUT /api/v1/servers/:name). An edit sends the whole entry: an absent
 * field is removed. In `env` and `headers`, `null` keeps the stored value (the edit form never
 * receives values that may be secret); args/url sent back exactly as the entry view showed them
 * masked keep the stored ones.
 */
export interface ServerInput {
  name: string
  command?: string
  args?: string[]
  env?: Record<string, string | null>
  cwd?: string
  url?: string
  headers?: Record<string, string | null>
  protocol?: 'stdio' | 'http' | 'streamable-http' | 'sse' | 'auto'
  enabled?: boolean
}

/** A server's entry for the edit form: as written in mcp_config.json, with values that may be secret hidden. */
export interface ServerEntryView extends Omit<ServerInput, 'protocol' | 'enabled'> {
  /** in env and headers, null = a value is set but hidden (it is not a ${secret:…}/${env:…} reference) */
  protocol: NonNullable<ServerInput['protocol']>
  enabled: boolean
  /** operator policy, read-only */
  policy: {
    quarantined?: boolean
    trust?: 'manual' | 'auto'
    enabled_tools?: string[]
    disabled_tools?: string[]
    enabled_prompts?: string[]
    disabled_prompts?: string[]
    sandbox?: unknown
    /** confirmation of risky calls: the operator's rule, never the form's */
    confirm?: ConfirmLevel
    confirm_tools?: string[]
    confirm_timeout_s?: number
    /** the operator's call variant per tool */
    tool_classes?: Record<string, Variant>
  }
  /** what the organisation's machine-wide policy sets: each key with the value that applies, read-only (set by your organisation) */
  organisation?: { fields: Record<string, unknown>; blocked?: string }
  /** args/url shown with secret-looking parts masked: send them back unchanged to keep them */
  masked: Array<'args' | 'url'>
}
