// A server's resources as the control API and the window show them (docs/passthrough.md): each with
// the server's own URI and the URI agents see (shared/resource-uri.ts), read live from the running
// server; a resource template with its approval (approved like a prompt: what an agent reads of it).
// Upstream text (names, descriptions) is untrusted: shown as text.
import type { ApprovalStatus } from './api'
import type { ToolStatus } from './statuses'

export interface ResourceEntry {
  /** the server's own URI */
  uri: string
  /** the URI agents see and read it by */
  agent_uri: string
  name: string
  title?: string
  description?: string
  mimeType?: string
  size?: number
}

/**
 * A resource template as approved: what an agent reads of it (agent-server/resource-text.ts), with
 * the server's own template. Its hash (state/hash.ts templateHash) is what the user approves.
 */
export interface TemplateDefinition {
  /** the server's own URI template: the template's identity on its server */
  uriTemplate: string
  name: string
  title?: string
  description?: string
  mimeType?: string
  annotations?: Record<string, unknown>
  _meta?: Record<string, unknown>
}

/** What the user can do to a waiting template: the control API route and the CLI commands come from this list. */
export const TEMPLATE_ACTIONS = ['approve', 'reject'] as const
export type TemplateAction = (typeof TEMPLATE_ACTIONS)[number]

export interface ResourceTemplateEntry {
  uriTemplate: string
  agent_uri_template: string
  name: string
  title?: string
  description?: string
  mimeType?: string
  /** what agents read of its annotations (resource-text.ts: only the known keys); in the approval hash, so in the review */
  annotations?: Record<string, unknown>
  /** what agents read of its `_meta` (the App's keys only, strings escaped); in the approval hash, so in the review */
  _meta?: Record<string, unknown>
  /** from the one classifier, as for a tool or prompt: agents list only `callable` templates */
  status?: ToolStatus
  remediation?: string
  approval?: {
    status: ApprovalStatus
    /** the definition hash; approve and reject take it back (409 definition_changed when stale) */
    hash: string
    /** the approved definition of a changed template, for the review */
    previous?: Omit<TemplateDefinition, 'uriTemplate'>
    rejected_at?: string
  }
}

export interface ResourceInfo {
  server: string
  resources: ResourceEntry[]
  templates: ResourceTemplateEntry[]
  /** why nothing is listed: the server is not running, offers no resources, or failed to list them */
  note?: string
}

/** What lifts a template's lock, for the window and the CLI (agents never see a locked template: it is not listed). */
export const TEMPLATE_REMEDIATION: Readonly<Record<Exclude<ToolStatus, 'callable'>, string>> = {
  server_disabled: 'The server is switched off; enable the server to offer its resources.',
  disabled_by_config: 'Blocked by operator policy in mcp_config.json; this is NOT user-overridable: only whoever manages the config can change it.',
  server_quarantined: 'The server is in quarantine; its resource templates are offered once the server is approved.',
  disabled_by_user:
    'You rejected this definition of the template; agents do not get it while the server lists it so. Approve it to offer it (`toolgate resources approve SERVER URI_TEMPLATE`).',
  pending_approval:
    'The template is new or changed since it was approved; agents do not get it until you review and approve it (`toolgate resources approve SERVER URI_TEMPLATE`).',
  disabled_unknown: 'Toolgate could not determine whether this template may be offered (its state is unreadable); review it.',
}
