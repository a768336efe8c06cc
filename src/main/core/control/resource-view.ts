// A server's resources as the window and the control API show them (docs/passthrough.md): each
// with the server's own URI and the URI agents use, or a note saying why there are none now; each
// template with its status and approval, for the user's review: every field its approval hash
// covers (shared/template-diff.ts), annotations and `_meta` too. A quarantined server shows the
// templates its Inspect listed: approving it approves exactly those (template-decisions.ts).
import type { ServerConfig } from '../../../shared/config-schema'
import { TEMPLATE_REMEDIATION, type ResourceInfo, type ResourceTemplateEntry } from '../../../shared/resources'
import { templateFields } from '../../../shared/template-diff'
import { toAgentTemplate } from '../../../shared/resource-uri'
import { serverResources } from '../agent-server/resources'
import { templateId } from '../catalog/templates'
import { templateHash } from '../state/hash'
import type { ReviewedTemplate } from '../agent-server/template-review'
import { reviewTemplates } from '../agent-server/template-review'
import type { Catalog } from '../catalog/catalog'
import type { UpstreamManager } from '../upstream/manager'

export async function resourceInfo(catalog: Catalog, manager: UpstreamManager, s: ServerConfig): Promise<ResourceInfo> {
  const server = s.name
  const empty = (note: string): ResourceInfo => ({ server, resources: [], templates: [], note })
  const lock = catalog.serverLock(s)
  if (lock) {
    // shown exactly when approving the server approves them (Catalog.inspectedTemplates)
    const inspected = catalog.inspectedTemplates(server)
    if (inspected && inspected.length > 0)
      return {
        ...empty(
          'The server is in quarantine: these are the resource templates its Inspect listed. Approving the server approves them as shown; any other template it lists later waits for your review.',
        ),
        templates: inspected.map((def) =>
          templateEntry({
            def,
            hash: templateHash(def),
            agentUriTemplate: toAgentTemplate(server, def.uriTemplate) ?? def.uriTemplate,
            entry: catalog.templates.entry(templateId(server, def.uriTemplate)),
          }),
        ),
      }
    return empty(
      lock.status === 'server_disabled' ? 'The server is switched off.' : 'The server is in quarantine: its resources are listed once it is approved.',
    )
  }
  const up = manager.get(server)
  if (!up || up.state !== 'connected') return empty('The server is not running now; its resources are listed while it runs.')
  if (!up.capabilities?.resources) return empty('This server offers no resources.')
  try {
    const got = await serverResources(up, Math.min(catalog.currentConfig.call_timeout_ms, 10_000))
    const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined)
    return {
      server,
      resources: got.resources.map((r) => ({
        uri: r.original,
        agent_uri: r.uri,
        name: text(r.name) ?? r.original,
        ...(text(r.title) ? { title: text(r.title) } : {}),
        ...(text(r.description) ? { description: text(r.description) } : {}),
        ...(text(r.mimeType) ? { mimeType: text(r.mimeType) } : {}),
        ...(typeof r.size === 'number' ? { size: r.size } : {}),
      })),
      // a template as it is approved: what agents read of it, with its status and approval (template-review.ts)
      templates: (await reviewTemplates(catalog, server, got.templates)).map((t) => templateEntry(t)),
    }
  } catch (e) {
    return empty(`The server did not list its resources: ${(e as Error).message}`)
  }
}

/** A listed template for the review: what agents read of it (every field its hash covers), its status, and for a changed one the approved definition. */
function templateEntry(t: ReviewedTemplate): ResourceTemplateEntry {
  const { def, entry } = t
  const status = entry?.status ?? 'pending_approval'
  const remediation = status === 'callable' ? undefined : TEMPLATE_REMEDIATION[status]
  const previous = entry?.previous
  return {
    uriTemplate: def.uriTemplate,
    agent_uri_template: t.agentUriTemplate,
    ...templateFields(def),
    status,
    ...(remediation ? { remediation } : {}),
    approval: {
      status: entry?.approval ?? 'pending',
      hash: t.hash,
      ...(previous ? { previous: templateFields(previous) } : {}),
      ...(entry?.rejectedAt ? { rejected_at: entry.rejectedAt } : {}),
    },
  }
}
