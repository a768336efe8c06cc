// A prompt as the control API, the CLI and the window show it (docs/passthrough.md): status, remediation,
// the name agents see, the text it gives without arguments, and what changed since approval.
import { nameWarning } from '../../../shared/tool-name'
import { PROMPT_REMEDIATION, promptText, type PromptInfo } from '../../../shared/prompts'
import type { Catalog } from '../catalog/catalog'
import type { PromptEntry } from '../catalog/prompts'
import { approvalView } from './approval-view'

export function promptInfo(catalog: Catalog, e: PromptEntry): PromptInfo {
  const warning = nameWarning(e.name)
  return {
    name: e.id,
    server: e.server,
    prompt: e.name,
    // the name an agent of every server sees (a narrower scope can only make it plainer: agent-names.ts)
    agent_name: catalog.prompts.agentName(e.id) ?? `${e.server}__${e.name}`,
    ...(warning ? { name_warning: warning } : {}),
    ...(e.def.title ? { title: e.def.title } : {}),
    // shown for review (rendered as text); agents get it only once approved
    description: e.def.description,
    arguments: e.def.arguments,
    ...(e.def.messages
      ? { text: promptText(e.def.messages) }
      : e.def.messages_hash
        ? { text: `(${e.def.messages_bytes ?? 0} bytes: too large to show here)` }
        : {}),
    status: e.status,
    ...(e.status !== 'callable' ? { remediation: PROMPT_REMEDIATION[e.status] } : {}),
    approval: approvalView(e, (p) => ({
      arguments: p.arguments,
      ...(p.messages_hash ? { messages_hash: p.messages_hash } : {}),
      ...(p.messages ? { text: promptText(p.messages) } : {}),
    })),
  }
}
