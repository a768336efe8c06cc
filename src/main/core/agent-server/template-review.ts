// A server's listed resource templates against the user's approvals (docs/passthrough.md
// "Resources"): each listed template becomes the definition an agent would read of it (resource-text.ts,
// with the server's own URI template), the catalog learns the list (the first list of an approved
// server is its baseline; a new or changed template waits: template-decisions.ts), and each comes
// back with its catalog entry. Agents get only the templates whose entry is callable for exactly
// the definition listed now; the control API shows all of them with their status.
import { UriTemplate } from '@modelcontextprotocol/server'
import type { TemplateDefinition } from '../../../shared/resources'
import type { Catalog } from '../catalog/catalog'
import { ingestTemplates } from '../catalog/template-decisions'
import { templateId, type TemplateEntry } from '../catalog/templates'
import { templateHash } from '../state/hash'
import { agentTemplate } from './resource-text'

export interface ReviewedTemplate {
  def: TemplateDefinition
  hash: string
  /** the template as agents see it (Toolgate's URI template) */
  agentUriTemplate: string
  entry: TemplateEntry | undefined
}

/** The definitions of a listed page of templates (the first of each URI template; one that names none is left out). */
export function templateDefinitions(
  listed: ReadonlyArray<Record<string, unknown> & { uriTemplate: string; original: string }>,
): Array<{ def: TemplateDefinition; agentUriTemplate: string }> {
  const seen = new Set<string>()
  const out: Array<{ def: TemplateDefinition; agentUriTemplate: string }> = []
  for (const x of listed) {
    if (seen.has(x.original)) continue
    seen.add(x.original)
    out.push({ def: agentTemplate({ ...x, uriTemplate: x.original }), agentUriTemplate: x.uriTemplate })
  }
  return out
}

/** The server's listed templates with their catalog entries, once the catalog has learned the list. */
export async function reviewTemplates(
  catalog: Catalog,
  server: string,
  listed: ReadonlyArray<Record<string, unknown> & { uriTemplate: string; original: string }>,
): Promise<ReviewedTemplate[]> {
  const defs = templateDefinitions(listed)
  await ingestTemplates(
    catalog,
    server,
    defs.map((d) => d.def),
  )
  return defs.map(({ def, agentUriTemplate }) => ({
    def,
    hash: templateHash(def),
    agentUriTemplate,
    entry: catalog.templates.entry(templateId(server, def.uriTemplate)),
  }))
}

/** Whether agents get this template now: approved for exactly the definition listed, and nothing locks it. */
export function agentsGet(t: ReviewedTemplate): boolean {
  return t.entry?.status === 'callable' && t.entry.hash === t.hash
}

/** Whether `uri` is one of the URIs a URI template describes (an invalid template describes none). */
export function templateMatches(template: string, uri: string): boolean {
  try {
    return new UriTemplate(template).match(uri) !== null
  } catch {
    return false
  }
}
