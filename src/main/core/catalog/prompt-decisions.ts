// What the user decides about prompts (docs/passthrough.md), as for tools (decisions.ts): approving a
// server approves the prompts its Inspect showed (none without one: inspected-lists.ts); a server
// trusted otherwise (config, or approved before prompts were reviewed) takes its first prompt list
// as its baseline; `trust: "auto"` approves new and changed prompts, a
// later new or changed prompt waits for the user; approve and reject carry the hash of the
// definition reviewed (409 definition_changed when it changed again); Disable and Re-enable are
// the user's switch. Each lands through the catalog (state.json and the classification together).
import { ApiError } from '../../../shared/api'
import type { PromptDefinition } from '../../../shared/prompts'
import { toolId } from '../../../shared/ids'
import { MAX_REJECTED_PER_TOOL, type ApprovedPrompt, type PromptRecord, type State } from '../state/schema'
import type { Catalog } from './catalog'
import { isFailClosed } from './facts'
import { promptHash } from '../state/hash'
import type { PromptEntry } from './prompts'
import { baselineOnApproval } from './inspected-lists'

function record(def: PromptDefinition, hash: string): ApprovedPrompt {
  return {
    hash,
    description: def.description,
    arguments: def.arguments,
    ...(def.title ? { title: def.title } : {}),
    ...(def.messages_hash ? { messages_hash: def.messages_hash } : {}),
    ...(def.messages ? { messages: def.messages } : {}),
    approved_at: new Date().toISOString(),
  }
}

/** Approving a server approves exactly the prompts its Inspect showed (inspected-lists.ts baselineOnApproval). */
export function promptBaselineOnApproval(s: State, server: string, inspected: readonly PromptDefinition[] | null): void {
  baselineOnApproval(s, server, 'prompt_baseline_taken', inspected, (st, defs) => {
    for (const p of defs) {
      const id = toolId(server, p.name)
      st.prompts[id] = { ...st.prompts[id], approved: record(p, promptHash(p)) }
    }
  })
}

/**
 * A running (approved) server listed its prompts. The first list of a server not approved through
 * approveServer (trusted in the config, or approved before prompts were reviewed) is the baseline (approved);
 * `trust: "auto"` approves new and changed ones. A fail-closed store takes no baseline.
 */
export async function ingestPrompts(catalog: Catalog, server: string, prompts: PromptDefinition[], o: { batch?: boolean } = {}): Promise<void> {
  const cfg = catalog.serverConfig(server)
  const state = catalog.store.current
  let decision: ((s: State) => void) | undefined
  if (cfg && catalog.quarantineOf(cfg) === null) {
    const failClosed = isFailClosed(state, server)
    const baseline = !state.servers[server]?.prompt_baseline_taken && !failClosed
    const auto = cfg.trust === 'auto' && !failClosed
    const todo = prompts
      .map((p) => ({ def: p, id: toolId(server, p.name), hash: promptHash(p) }))
      .filter((p) => (baseline || auto) && state.prompts[p.id]?.approved?.hash !== p.hash)
    if (baseline || todo.length > 0) {
      decision = (s) => {
        if (baseline) s.servers[server] = { ...s.servers[server], prompt_baseline_taken: true }
        for (const p of todo) s.prompts[p.id] = { ...s.prompts[p.id], approved: record(p.def, p.hash) }
      }
    }
  }
  await catalog.setLivePrompts(server, prompts, decision, o)
}

export function requirePrompt(catalog: Catalog, server: string, prompt: string): PromptEntry {
  if (!catalog.serverConfig(server))
    throw new ApiError('unknown_server', `no server named "${server}" in mcp_config.json; run \`toolgate servers list\` to see the configured servers.`, 404)
  const e = catalog.prompts.entry(toolId(server, prompt))
  if (!e)
    throw new ApiError('unknown_prompt', `server "${server}" has no known prompt "${prompt}"; run \`toolgate prompts list ${server}\` to see its prompts.`, 404)
  return e
}

function requireReviewed(e: PromptEntry, expectedHash: string | undefined): void {
  if (expectedHash !== undefined && expectedHash !== e.hash) {
    throw new ApiError(
      'definition_changed',
      `the prompt ${e.id} changed again while you reviewed it; nothing was decided. Review its current definition (\`toolgate prompts list ${e.server}\`) and decide again.`,
      409,
    )
  }
}

function withoutRejection(rec: PromptRecord, hash?: string): PromptRecord {
  const rejected = hash === undefined ? [] : (rec.rejected ?? []).filter((r) => r.hash !== hash)
  const out = { ...rec }
  if (rejected.length) out.rejected = rejected
  else delete out.rejected
  return out
}

export async function approvePrompt(catalog: Catalog, server: string, prompt: string, expectedHash?: string): Promise<string> {
  const e = requirePrompt(catalog, server, prompt)
  requireReviewed(e, expectedHash)
  if (e.facts.serverQuarantined) throw new ApiError('server_quarantined', `"${server}" is quarantined; approve the server first.`, 409)
  if (e.approval === 'approved') return `The prompt ${e.id} is already approved.`
  await catalog.decide([server], (s) => {
    s.prompts[e.id] = withoutRejection({ ...s.prompts[e.id], approved: record(e.def, e.hash) }, e.hash)
  })
  return `Approved the prompt ${e.id}.`
}

/** Reject: the prompt stays off while the server lists exactly this definition, without asking again; a further change asks again. */
export async function rejectPrompt(catalog: Catalog, server: string, prompt: string, expectedHash?: string): Promise<string> {
  const e = requirePrompt(catalog, server, prompt)
  requireReviewed(e, expectedHash)
  if (e.facts.serverQuarantined) throw new ApiError('server_quarantined', `"${server}" is quarantined; its prompts are reviewed with the server.`, 409)
  if (e.rejectedAt !== undefined) return `The prompt ${e.id} is already rejected.`
  if (e.approval === 'approved') {
    throw new ApiError(
      'nothing_to_reject',
      `the prompt ${e.id} is approved as it is; nothing waits for a decision. To switch it off, disable it (\`toolgate prompts disable ${e.id}\`).`,
      409,
    )
  }
  await catalog.decide([server], (s) => {
    const rec = { ...s.prompts[e.id] }
    const kept = (rec.rejected ?? []).filter((r) => r.hash !== e.hash)
    rec.rejected = [...kept, { hash: e.hash, at: new Date().toISOString() }].slice(-MAX_REJECTED_PER_TOOL)
    s.prompts[e.id] = rec
  })
  return `Rejected the prompt ${e.id}: agents do not get it and this definition will not ask again; if ${server} changes it again, it waits for your review.`
}

export const PROMPT_CONFIG_LOCK_MESSAGE = (id: string): string =>
  `the prompt ${id} is blocked by operator policy in mcp_config.json (enabled_prompts/disabled_prompts). This is the operator's decision and cannot be overridden from Toolgate; ask the operator to change enabled_prompts/disabled_prompts in the config file.`

export async function setPromptDisabled(catalog: Catalog, server: string, prompt: string, disabled: boolean): Promise<string> {
  const e = requirePrompt(catalog, server, prompt)
  if (!disabled && e.facts.configDenied) throw new ApiError('config_locked', PROMPT_CONFIG_LOCK_MESSAGE(e.id), 409)
  const already = disabled ? catalog.store.current.prompts[e.id]?.user_disabled === true : !e.facts.userDisabled
  if (already) return `The prompt ${e.id} is already ${disabled ? 'disabled' : 'enabled'}.`
  await catalog.decide([server], (s) => {
    // Re-enable also takes a rejection back: the prompt asks for review again (it is never approved by this)
    const rec = disabled ? { ...s.prompts[e.id] } : withoutRejection({ ...s.prompts[e.id] })
    if (disabled) rec.user_disabled = true
    else delete rec.user_disabled
    s.prompts[e.id] = rec
  })
  return `${disabled ? 'Disabled' : 'Re-enabled'} the prompt ${e.id}.`
}
