// What the user decides about resource templates (docs/passthrough.md "Resources"), as for prompts
// (prompt-decisions.ts): approving a server baselines the templates its Inspect showed (none
// without one: inspected-lists.ts); a server trusted otherwise (config, or approved before templates were reviewed)
// takes its first template list as its baseline; `trust: "auto"` approves new and changed ones, a later new or changed template waits for the user;
// approve and reject carry the hash of the definition reviewed (409 definition_changed when it
// changed again). Each lands through the catalog (state.json and the classification together).
import { ApiError } from '../../../shared/api'
import type { TemplateDefinition } from '../../../shared/resources'
import { MAX_REJECTED_PER_TOOL, type ApprovedTemplate, type State, type TemplateRecord } from '../state/schema'
import type { Catalog } from './catalog'
import { isFailClosed } from './facts'
import { templateHash } from '../state/hash'
import { templateId, type TemplateEntry } from './templates'
import { baselineOnApproval } from './inspected-lists'

function record(def: TemplateDefinition, hash: string): ApprovedTemplate {
  const { uriTemplate, ...rest } = def
  void uriTemplate
  return { hash, ...rest, approved_at: new Date().toISOString() }
}

/**
 * A running (approved) server listed its templates (for an agent, or for the window). The first
 * list is the baseline (approved); `trust: "auto"` approves new and changed ones. A fail-closed
 * store takes no baseline. Nothing is written or re-classified when the list is the one known.
 */
export async function ingestTemplates(catalog: Catalog, server: string, templates: TemplateDefinition[]): Promise<void> {
  const cfg = catalog.serverConfig(server)
  if (!cfg) return
  const state = catalog.store.current
  let decision: ((s: State) => void) | undefined
  if (catalog.quarantineOf(cfg) === null) {
    const failClosed = isFailClosed(state, server)
    const baseline = !state.servers[server]?.template_baseline_taken && !failClosed
    const auto = cfg.trust === 'auto' && !failClosed
    const todo = templates
      .map((t) => ({ def: t, id: templateId(server, t.uriTemplate), hash: templateHash(t) }))
      .filter((t) => (baseline || auto) && state.resource_templates?.[t.id]?.approved?.hash !== t.hash)
    if (baseline || todo.length > 0) {
      decision = (s) => {
        if (baseline) s.servers[server] = { ...s.servers[server], template_baseline_taken: true }
        const records = { ...s.resource_templates }
        for (const t of todo) records[t.id] = { ...records[t.id], approved: record(t.def, t.hash) }
        s.resource_templates = records
      }
    }
  }
  const known = catalog.templates.liveHashes(server)
  const now = templates.map((t) => `${templateId(server, t.uriTemplate)}=${templateHash(t)}`).join('\n')
  if (!decision && known === now) return
  await catalog.setLiveTemplates(server, templates, decision)
}

/** Approving a server approves exactly the templates its Inspect showed (inspected-lists.ts baselineOnApproval). */
export function templateBaselineOnApproval(s: State, server: string, inspected: readonly TemplateDefinition[] | null): void {
  baselineOnApproval(s, server, 'template_baseline_taken', inspected, (st, defs) => {
    const records = { ...st.resource_templates }
    for (const t of defs) {
      const id = templateId(server, t.uriTemplate)
      records[id] = { ...records[id], approved: record(t, templateHash(t)) }
    }
    st.resource_templates = records
  })
}

function requireTemplate(catalog: Catalog, server: string, uriTemplate: string): TemplateEntry {
  if (!catalog.serverConfig(server))
    throw new ApiError('unknown_server', `no server named "${server}" in mcp_config.json; run \`toolgate servers list\` to see the configured servers.`, 404)
  const e = catalog.templates.entry(templateId(server, uriTemplate))
  if (!e)
    throw new ApiError(
      'unknown_template',
      `server "${server}" has no known resource template "${uriTemplate}"; \`toolgate resources list ${server}\` lists its templates (the server's own URI templates).`,
      404,
    )
  return e
}

function requireReviewed(e: TemplateEntry, expectedHash: string): void {
  if (expectedHash !== e.hash) {
    throw new ApiError(
      'definition_changed',
      `the resource template ${e.id} changed again while you reviewed it; nothing was decided. Review its current definition (\`toolgate resources list ${e.server}\`) and decide again.`,
      409,
    )
  }
}

function withoutRejection(rec: TemplateRecord, hash: string): TemplateRecord {
  const rejected = (rec.rejected ?? []).filter((r) => r.hash !== hash)
  const out = { ...rec }
  if (rejected.length) out.rejected = rejected
  else delete out.rejected
  return out
}

/** Approve the template's current definition; `hash` is the one the user reviewed. */
export async function approveTemplate(catalog: Catalog, server: string, uriTemplate: string, hash: string): Promise<string> {
  const e = requireTemplate(catalog, server, uriTemplate)
  requireReviewed(e, hash)
  if (e.facts.serverQuarantined) throw new ApiError('server_quarantined', `"${server}" is quarantined; approve the server first.`, 409)
  if (e.approval === 'approved' && e.rejectedAt === undefined) return `The resource template ${e.id} is already approved.`
  await catalog.decide([server], (s) => {
    const records = { ...s.resource_templates }
    records[e.id] = withoutRejection({ ...records[e.id], approved: record(e.def, e.hash) }, e.hash)
    s.resource_templates = records
  })
  return `Approved the resource template ${e.id}.`
}

/** Reject: agents do not get the template while the server lists exactly this definition; a further change asks again. */
export async function rejectTemplate(catalog: Catalog, server: string, uriTemplate: string, hash: string): Promise<string> {
  const e = requireTemplate(catalog, server, uriTemplate)
  requireReviewed(e, hash)
  if (e.facts.serverQuarantined) throw new ApiError('server_quarantined', `"${server}" is quarantined; its templates are reviewed with the server.`, 409)
  if (e.rejectedAt !== undefined) return `The resource template ${e.id} is already rejected.`
  if (e.approval === 'approved')
    throw new ApiError('nothing_to_reject', `the resource template ${e.id} is approved as it is; nothing waits for a decision.`, 409)
  await catalog.decide([server], (s) => {
    const records = { ...s.resource_templates }
    const rec = { ...records[e.id] }
    const kept = (rec.rejected ?? []).filter((r) => r.hash !== e.hash)
    rec.rejected = [...kept, { hash: e.hash, at: new Date().toISOString() }].slice(-MAX_REJECTED_PER_TOOL)
    records[e.id] = rec
    s.resource_templates = records
  })
  return `Rejected the resource template ${e.id}: agents do not get it and this definition will not ask again; if ${server} changes it again, it waits for your review.`
}
