// The facts classify() decides on, each derived in one place from the config and state.json:
// why a server is quarantined, whether the state fails closed, config denial, approval, and
// the call variant a tool needs. Pure functions; the catalog applies them per tool.
import type { Config, ServerConfig } from '../../../shared/config-schema'
import type { QuarantineSource } from '../../../shared/api'
import {
  decideVariant,
  isVariant,
  variantRank,
  type Classification,
  type ToolAnnotations,
  type Variant,
  type VariantDecision,
} from '../../../shared/call-variant'
import type { ApprovedTool, RejectedDefinition, State, ToolRecord } from '../state/schema'
import type { Approval } from './classify'
import type { ToolDefinition } from '../../../shared/tool-definition'
import { serverIdentity, toolHash } from '../state/hash'

/** Why a server is quarantined, or null when it is not (docs/contract.md §4: config hold first, then the user, then review). */
export function quarantineOf(config: Config, state: Readonly<State>, s: ServerConfig): QuarantineSource | null {
  const rec = state.servers[s.name]
  if (s.quarantined === true) return s.organisation?.fields.includes('quarantined') ? 'organisation' : 'config'
  if (rec?.user_quarantined) return 'user'
  if (s.quarantined === false) return null
  if (rec?.needs_review) return 'review'
  // the state was lost with no readable copy: held until the user approves it again
  if (state.fail_closed?.hold?.includes(s.name)) return 'review'
  if (!config.quarantine_enabled || s.trust === 'auto') return null
  return rec?.approved_identity === serverIdentity(s) ? null : 'review'
}

/** A lock on the whole server, whatever the tool: switched off first, then quarantine (classify's order). */
export function serverLockOf(
  config: Config,
  state: Readonly<State>,
  s: ServerConfig,
): { status: 'server_disabled' | 'server_quarantined'; operatorHold: boolean; organisation: boolean } | null {
  if (!s.enabled) return { status: 'server_disabled', operatorHold: false, organisation: s.organisation?.blocked !== undefined }
  const q = quarantineOf(config, state, s)
  return q ? { status: 'server_quarantined', operatorHold: q === 'config' || q === 'organisation', organisation: q === 'organisation' } : null
}

/** Fail closed (docs/contract.md §4): after an unreadable state file, servers that existed then take no baseline until reviewed. */
export function isFailClosed(state: Readonly<State>, server: string): boolean {
  const fc = state.fail_closed
  if (!fc || state.servers[server]?.baseline_taken) return false
  return !fc.servers || fc.servers.includes(server)
}

/** Config allow/deny lists (exact names): operator policy, never written to state.json. The organisation's lists: organisationDenies (shared/policy.ts). */
export function configDenies(tool: string, lists: { enabled_tools?: string[]; disabled_tools?: string[] }): boolean {
  if (lists.enabled_tools && !lists.enabled_tools.includes(tool)) return true
  if (lists.disabled_tools && lists.disabled_tools.includes(tool)) return true
  return false
}

/** The user's locks a tool or a prompt record carries (state.json). */
export type UserLocks = Pick<ToolRecord, 'user_disabled' | 'rejected'>

/**
 * The user's rejection that holds for this definition: the user rejected exactly this hash. A
 * further change (another hash) is no longer covered and asks again; reverting to the approved
 * definition is not covered either (the rejection was of the change, not of the tool).
 */
export function rejectionOf(rec: UserLocks | undefined, liveHash: string): RejectedDefinition | undefined {
  return rec?.rejected?.find((r) => r.hash === liveHash)
}

/** The user switched the tool off (Disable), or rejected exactly this definition (Reject). */
export function userLocked(rec: UserLocks | undefined, liveHash: string): boolean {
  return rec?.user_disabled === true || rejectionOf(rec, liveHash) !== undefined
}

/** A live definition against its approval record: same hash approved, another hash changed, no record pending (unknown when failing closed). */
export function approvalOf(liveHash: string, approved: { hash: string } | undefined, failClosed: boolean): Approval {
  if (approved) return approved.hash === liveHash ? 'approved' : 'changed'
  return failClosed ? 'unknown' : 'pending'
}

const VARIANT_HINTS = ['readOnlyHint', 'destructiveHint'] as const

/** A tool's classification by definition hash (the operator's holds for every hash, the user's for the one classified). */
export type ClassificationFor = (hash: string) => Classification | undefined

const UNCLASSIFIED: ClassificationFor = () => undefined

/** The operator's class for a tool name (`tool_classes` in mcp_config.json), own keys only (a tool named "constructor" is no lookup of Object's). */
export function operatorClassOf(s: Pick<ServerConfig, 'tool_classes'>, tool: string): Variant | undefined {
  const classes = s.tool_classes
  if (!classes || !Object.hasOwn(classes, tool)) return undefined
  const c: unknown = classes[tool]
  return isVariant(c) ? c : undefined
}

/**
 * A tool's classification by definition hash: the operator's (config, any definition) wins over
 * the user's, which holds only for the definition the user classified (a changed tool asks again).
 */
export function classificationFor(s: Pick<ServerConfig, 'tool_classes' | 'organisation'>, tool: string, rec: ToolRecord | undefined): ClassificationFor {
  const operator = operatorClassOf(s, tool)
  // the organisation's class is merged into tool_classes (it wins there); it says whose it is
  const org = s.organisation?.tool_classes && Object.hasOwn(s.organisation.tool_classes, tool)
  if (operator) return () => ({ class: operator, by: org ? 'organisation' : 'operator' })
  const user = rec?.classified
  if (!user) return UNCLASSIFIED
  return (hash) => (hash === user.hash ? { class: user.class, by: 'user' } : undefined)
}

/**
 * Whether a live definition differs from its approval only by hints that make the call variant
 * stricter (read → write → destructive) than it was as approved (classification included). Such a
 * change applies at once; a weaker one, or any other difference, waits for the user.
 */
export function onlyStricterVariant(approved: ApprovedTool, live: ToolDefinition, classificationFor: ClassificationFor = UNCLASSIFIED): boolean {
  const before = (approved.annotations ?? {}) as ToolAnnotations
  const after = live.annotations ?? {}
  const was = decideVariant(before, classificationFor(approved.hash)).variant
  if (variantRank(decideVariant(after, classificationFor(toolHash(live))).variant) <= variantRank(was)) return false
  const restored: Record<string, unknown> = { ...after }
  for (const k of VARIANT_HINTS) {
    if (k in before) restored[k] = before[k]
    else delete restored[k]
  }
  return toolHash({ ...live, annotations: restored }) === approved.hash
}

/**
 * The variant a call needs, and why: the live definition's (its hints, else the spec's defaults,
 * or its classification), never weaker than the approved definition's (a live annotation change
 * never weakens it below what was approved).
 */
export function effectiveVariant(
  live: { annotations?: ToolAnnotations; hash: string },
  approved: ApprovedTool | undefined,
  classificationFor: ClassificationFor = UNCLASSIFIED,
): VariantDecision {
  const a = decideVariant(live.annotations, classificationFor(live.hash))
  if (!approved || approved.hash === live.hash) return a
  const b = decideVariant(approved.annotations as ToolAnnotations | undefined, classificationFor(approved.hash))
  return variantRank(a.variant) >= variantRank(b.variant) ? a : b
}
