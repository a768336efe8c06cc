// Every change to what the user decided about tools goes through here: baseline and auto approval
// when an upstream lists its tools, and the human acts (approve / reject / disable / enable a tool,
// approve all). A server's decisions are server-decisions.ts', a prompt's prompt-decisions.ts'.
// Each lands through catalog.decide() (or setLiveTools with its decision), which changes state.json
// and the catalog together, and resolves once the state is on disk. An act made for a time (`timed`)
// records its undo in the same update; a permanent act on the same thing drops that undo
// (state/grant-undo.ts).
import { organisationDenies, SET_BY_ORGANISATION } from '../../../shared/policy'
import { ApiError } from '../../../shared/api'
import { addUndo, dropUndo, findUndo, type TimedAct } from '../state/grant-undo'
import { toolId } from '../../../shared/ids'
import { MAX_REJECTED_PER_TOOL, type ApprovedTool, type State, type ToolRecord } from '../state/schema'
import type { ToolDefinition } from '../../../shared/tool-definition'
import type { Catalog, CatalogEntry } from './catalog'
import { classificationFor, isFailClosed, onlyStricterVariant } from './facts'
import { toolHash } from '../state/hash'

export function approvedRecord(def: ToolDefinition, hash: string): ApprovedTool {
  return {
    hash,
    description: def.description,
    inputSchema: def.inputSchema,
    ...(def.title ? { title: def.title } : {}),
    ...(def.outputSchema ? { outputSchema: def.outputSchema } : {}),
    ...(def.annotations ? { annotations: def.annotations } : {}),
    ...(def.ui ? { ui: def.ui } : {}),
    approved_at: new Date().toISOString(),
  }
}

/**
 * A running (approved) server listed its tools. The first list of a server is its baseline
 * (approved); `trust:"auto"` approves new and changed tools. A fail-closed store takes no baseline.
 * `batch`: other servers are listing too (a start): the state write may wait to take theirs along.
 */
export async function ingestTools(catalog: Catalog, server: string, tools: ToolDefinition[], o: { batch?: boolean } = {}): Promise<void> {
  const cfg = catalog.serverConfig(server)
  const state = catalog.store.current
  let decision: ((s: State) => void) | undefined
  if (cfg && catalog.quarantineOf(cfg) === null) {
    const failClosed = isFailClosed(state, server)
    const baseline = !state.servers[server]?.baseline_taken && !failClosed
    const auto = cfg.trust === 'auto' && !failClosed
    const listed = tools.map((t) => ({ def: t, id: toolId(server, t.name), hash: toolHash(t) }))
    // a change that only makes the call variant stricter applies at once
    const toApprove = listed.filter((t) => {
      const approved = state.tools[t.id]?.approved
      if (approved?.hash === t.hash) return false
      return baseline || auto || (approved !== undefined && onlyStricterVariant(approved, t.def, classificationFor(cfg, t.def.name, state.tools[t.id])))
    })
    // The approvals land with the list, so the tools are never classified as pending in between.
    if (baseline || toApprove.length > 0) {
      decision = (s) => {
        if (baseline) s.servers[server] = { ...s.servers[server], baseline_taken: true }
        for (const t of toApprove) s.tools[t.id] = { ...s.tools[t.id], approved: approvedRecord(t.def, t.hash) }
      }
    }
  }
  await catalog.setLiveTools(server, tools, 'upstream', decision, o)
}

export function requireServer(catalog: Catalog, server: string) {
  const cfg = catalog.serverConfig(server)
  if (!cfg)
    throw new ApiError(
      'unknown_server',
      `no server named "${server}" in ${'mcp_config.json'}; run \`toolgate servers list\` to see the configured servers.`,
      404,
    )
  return cfg
}

export function requireTool(catalog: Catalog, server: string, tool: string): CatalogEntry {
  requireServer(catalog, server)
  const e = catalog.entry(toolId(server, tool))
  if (!e) throw new ApiError('unknown_tool', `server "${server}" has no known tool "${tool}"; run \`toolgate tools list ${server}\` to see its tools.`, 404)
  return e
}

export const until = (t: TimedAct): string => ` until ${t.until}`
/** "1 tool", "3 tools": the window shows these messages as they are (no "tool(s)") */
const tools = (n: number): string => (n === 1 ? '1 tool' : `${n} tools`)

/** The definition the user reviewed must still be the one listed (approve, reject and a grant of a tool carry its hash). */
export function requireReviewed(e: CatalogEntry, expectedHash: string | undefined): void {
  if (expectedHash !== undefined && expectedHash !== e.hash) {
    throw new ApiError(
      'definition_changed',
      `${e.id} changed again while you reviewed it; nothing was decided. Review its current definition (\`toolgate tools diff ${e.id}\`) and decide again.`,
      409,
    )
  }
}

export async function approveTool(catalog: Catalog, server: string, tool: string, timed?: TimedAct, expectedHash?: string): Promise<string> {
  const e = requireTool(catalog, server, tool)
  requireReviewed(e, expectedHash)
  if (e.facts.serverQuarantined) {
    throw new ApiError('server_quarantined', `"${server}" is quarantined; approve the server first (its tools are reviewed with it).`, 409)
  }
  const key = { type: 'tool_approval' as const, tool: e.name }
  const held = findUndo(catalog.store.current, server, key)
  if (e.approval === 'approved' && !held) return `${e.id} is already approved.`
  if (e.approval === 'approved' && !timed) {
    await catalog.decide([server], (s) => void dropUndo(s, server, key))
    return `Approved ${e.id} for good (it was approved for a time).`
  }
  await catalog.decide([server], (s) => {
    const previous = s.tools[e.id]?.approved ?? null
    // approving a definition the user had rejected takes the rejection back
    s.tools[e.id] = withoutRejection({ ...s.tools[e.id], approved: approvedRecord(e.def, e.hash) }, e.hash)
    if (timed) addUndo(s, timed, server, { type: 'tool_approval', tool: e.name, previous })
    else dropUndo(s, server, key)
  })
  return timed ? `Approved ${e.id}${until(timed)}; then it waits for review again.` : `Approved ${e.id}.`
}

function withoutRejection(rec: ToolRecord, hash?: string): ToolRecord {
  const rejected = hash === undefined ? [] : (rec.rejected ?? []).filter((r) => r.hash !== hash)
  const out = { ...rec }
  if (rejected.length) out.rejected = rejected
  else delete out.rejected
  return out
}

/**
 * The safe answer to a review: the tool stays blocked as the user's decision. It is
 * disabled_by_user while the upstream serves exactly the rejected definition, and that definition
 * never asks again (it is not pending, not counted as waiting, not notified); a further change
 * asks again; reverting to the approved definition makes it callable again. Re-enable or Approve
 * takes the rejection back.
 */
export async function rejectTool(catalog: Catalog, server: string, tool: string, expectedHash?: string): Promise<string> {
  const e = requireTool(catalog, server, tool)
  requireReviewed(e, expectedHash)
  if (e.facts.serverQuarantined) {
    throw new ApiError(
      'server_quarantined',
      `"${server}" is quarantined; its tools are reviewed with the server (leave it in quarantine to keep them all off).`,
      409,
    )
  }
  if (e.rejectedAt !== undefined) return `${e.id} is already rejected.`
  if (e.approval === 'approved') {
    throw new ApiError(
      'nothing_to_reject',
      `${e.id} is approved as it is; nothing waits for a decision. To switch it off, disable it (\`toolgate tools disable ${e.id}\`).`,
      409,
    )
  }
  await catalog.decide([server], (s) => {
    const rec = { ...s.tools[e.id] }
    const kept = (rec.rejected ?? []).filter((r) => r.hash !== e.hash)
    rec.rejected = [...kept, { hash: e.hash, at: new Date().toISOString() }].slice(-MAX_REJECTED_PER_TOOL)
    s.tools[e.id] = rec
  })
  return `Rejected ${e.id}: it stays off and this definition will not ask again; if ${server} changes it again, it waits for your review.`
}

/** A waiting tool that has something to compare: changed since approved, or its approval lost with the state (unknown). */
const needsOwnReview = (e: CatalogEntry): boolean => e.approval === 'changed' || e.approval === 'unknown'

/**
 * Approve all: no one-click way around the review. Without `hashes` it approves the
 * new tools (no version approved before) together; a changed tool, or one whose approval was lost
 * with the state, waits for its own review. With `hashes` ({tool: definition hash}, what the user
 * saw: each changed tool's diff) it approves exactly those tools, and only if every one is still
 * that definition (409 definition_changed, nothing approved). A rejected definition stays rejected.
 */
export async function approveAll(catalog: Catalog, server: string, hashes?: Readonly<Record<string, string>>): Promise<{ message: string; waiting: string[] }> {
  const cfg = requireServer(catalog, server)
  if (catalog.quarantineOf(cfg) !== null) {
    throw new ApiError('server_quarantined', `"${server}" is quarantined; approve the server first.`, 409)
  }
  for (const [tool, hash] of Object.entries(hashes ?? {})) requireReviewed(requireTool(catalog, server, tool), hash)
  // a definition the user rejected stays rejected: "Approve all" approves what waits, not what was refused
  const waiting = catalog.entries(server).filter((e) => e.approval !== 'approved' && e.rejectedAt === undefined)
  const todo = waiting.filter((e) => (hashes ? Object.hasOwn(hashes, e.name) : !needsOwnReview(e)))
  const left = waiting.filter((e) => !todo.includes(e))
  const review = left.filter(needsOwnReview)
  await catalog.decide([server], (s) => {
    // the server's baseline resumes once nothing whose approval was lost waits (else those would turn "new")
    if (!left.some((e) => e.approval === 'unknown')) s.servers[server] = { ...s.servers[server], baseline_taken: true }
    for (const e of todo) s.tools[e.id] = { ...s.tools[e.id], approved: approvedRecord(e.def, e.hash) }
  })
  const parts = [
    todo.length ? `Approved ${tools(todo.length)} of ${server}.` : left.length ? `Approved nothing on ${server}.` : `Nothing waits for approval on ${server}.`,
  ]
  if (review.length) {
    const first = review[0].id
    parts.push(
      `${tools(review.length)} changed since you approved them (or lost their approval) and wait for your review of each: ${review.map((e) => e.name).join(', ')}. ` +
        `See what changed with \`toolgate tools diff ${first}\` and approve with \`toolgate tools approve ${first}\` (or \`toolgate tools approve ${server} --all\`, which shows each change and asks).`,
    )
  }
  const fresh = left.filter((e) => !needsOwnReview(e))
  if (fresh.length) parts.push(`${tools(fresh.length)} you did not send still wait: ${fresh.map((e) => e.name).join(', ')}.`)
  return { message: parts.join(' '), waiting: left.map((e) => e.name) }
}

export const CONFIG_LOCK_MESSAGE = (id: string): string =>
  `${id} is blocked by operator policy in mcp_config.json (enabled_tools/disabled_tools). This is the operator's decision and cannot be overridden from Toolgate; ask the operator to change enabled_tools/disabled_tools in the config file.`

/** The refusal of anything the organisation's machine-wide policy decides. */
export function organisationRefusal(what: string): ApiError {
  return new ApiError(
    'organisation_policy',
    `${what}: ${SET_BY_ORGANISATION} (its machine-wide policy.json). Neither Toolgate, nor mcp_config.json, nor an agent can change that; ask your organisation's administrators.`,
    409,
  )
}

export async function setToolDisabled(catalog: Catalog, server: string, tool: string, disabled: boolean, timed?: TimedAct): Promise<string> {
  const e = requireTool(catalog, server, tool)
  if (!disabled && organisationDenies(e.name, catalog.serverConfig(server)?.organisation)) throw organisationRefusal(`${e.id} is blocked`)
  if (!disabled && e.facts.configDenied) throw new ApiError('config_locked', CONFIG_LOCK_MESSAGE(e.id), 409)
  const key = { type: 'tool_enabled' as const, tool: e.name }
  const held = findUndo(catalog.store.current, server, key)
  // a rejected tool is off too, but only Disable keeps it off whatever the upstream lists next
  const already = disabled ? catalog.store.current.tools[e.id]?.user_disabled === true : !e.facts.userDisabled
  if (already && !held) return `${e.id} is already ${disabled ? 'disabled' : 'enabled'}.`
  if (!disabled && !e.facts.userDisabled && !timed) {
    await catalog.decide([server], (s) => void dropUndo(s, server, key))
    return `Re-enabled ${e.id} for good (it was enabled for a time).`
  }
  await catalog.decide([server], (s) => {
    // Re-enable also takes a rejection back: the tool asks for review again (it is never approved by this)
    const rec = disabled ? { ...s.tools[e.id] } : withoutRejection({ ...s.tools[e.id] })
    if (disabled) rec.user_disabled = true
    else delete rec.user_disabled
    s.tools[e.id] = rec
    if (timed && !disabled) addUndo(s, timed, server, { type: 'tool_enabled', tool: e.name })
    else dropUndo(s, server, key)
  })
  return `${disabled ? 'Disabled' : 'Re-enabled'} ${e.id}${timed && !disabled ? `${until(timed)}; then it is switched off again` : ''}.`
}
