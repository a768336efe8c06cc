// A tool as the control API, the CLI and the window show it: status, remediation, how to call it,
// its classification, what changed since approval, and a time-boxed grant on it.
import type { ToolInfo } from '../../../shared/api'
import { callWith, requiredVariant, type ToolAnnotations } from '../../../shared/call-variant'
import { ORGANISATION } from '../../../shared/policy'
import { remediationFor } from '../../../shared/statuses'
import { nameWarning } from '../../../shared/tool-name'
import type { CatalogEntry } from '../catalog/catalog'
import { timedGrantOf } from '../state/grant-undo'
import { approvalView } from './approval-view'
import type { State } from '../state/schema'

export function toolInfo(e: CatalogEntry, state?: Readonly<State>): ToolInfo {
  const warning = nameWarning(e.name)
  const grant = state ? timedGrantOf(state, e.server, e.name) : undefined
  return {
    name: e.id,
    server: e.server,
    tool: e.name,
    ...(warning ? { name_warning: warning } : {}),
    ...(e.def.title ? { title: e.def.title } : {}),
    // shown to the user for review (rendered as text); never indexed unless approved
    description: e.def.description,
    status: e.status,
    ...(e.status !== 'callable' ? { remediation: remediationFor(e.status, e.operatorHold, e.organisation) } : {}),
    ...(e.organisation ? { policy: ORGANISATION } : {}),
    call_with: callWith(e.variant),
    ...(e.def.annotations ? { annotations: e.def.annotations } : {}),
    ...(e.annotationsMissing ? { annotations_missing: true as const } : {}),
    variant_source: e.variantSource,
    ...(e.classification ? { classification: { ...e.classification } } : {}),
    inputSchema: e.def.inputSchema,
    ...(e.def.outputSchema ? { outputSchema: e.def.outputSchema } : {}),
    approval: approvalView(e, (p) => ({
      inputSchema: p.inputSchema,
      ...(p.outputSchema ? { outputSchema: p.outputSchema } : {}),
      ...(p.annotations ? { annotations: p.annotations as ToolAnnotations } : {}),
      call_with: callWith(requiredVariant(p.annotations as ToolAnnotations | undefined)),
    })),
    ...(grant ? { grant } : {}),
  }
}
