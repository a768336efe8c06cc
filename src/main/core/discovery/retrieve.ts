// retrieve_tools (docs/contract.md §3): callable results ranked by the index, then, on request,
// locked matches with their status and remediation; a notice when only locked tools matched.
// The JSON is built key by key in contract order; the same text serves MCP, the control API,
// `toolgate search` and the UI's search panel.
import type { CallableEntry, LockedEntry, RetrieveResponse } from '../../../shared/retrieve'
import { LOCK_STATUSES, OPERATOR_HOLD_REMEDIATION, REMEDIATION, remediationFor, type LockStatus } from '../../../shared/statuses'
import { ORGANISATION } from '../../../shared/policy'
import { callWith } from '../../../shared/call-variant'
import { isNameOnly, type Catalog, type CatalogEntry } from '../catalog/catalog'
import { nameMatcher } from '../search/name-match'
import { FIRST_PAGE } from '../search/ranked-hits'
import type { Scope } from '../access/scope'
import { entryAccess, isKnown } from '../access/decide'
import { exactLockedMatches, exactNameHint } from './exact-name'
import { lockedAhead, lockedAheadEntry, type NameMatched, type RankedLocked } from './locked-ahead'
import { responseText } from './response-text'

/** Told about every search (DiscoveryStats counts them; the activity recorder notes them). */
export interface SearchObserver {
  recordSearch(query: string, includeDisabled: boolean, lockedOnly: boolean, locked: readonly string[]): void
}

// what retrieve_tools takes: one schema in shared/, used by the agent server, the control service and the operations table
import type { RetrieveArgs } from '../../../shared/retrieve'
export { RetrieveArgsSchema, type RetrieveArgs } from '../../../shared/retrieve'

export const LOCKED_CAP = 10

/** The name-only locked tools (quarantined, pending; in scope, surfaceable) whose name matches the query, best first. */
function nameMatches(catalog: Catalog, match: (toolName: string) => number, scope: Scope): NameMatched[] {
  const byName: NameMatched[] = []
  for (const e of catalog.snapshot().nameOnly) {
    if (entryAccess(catalog, scope, e).kind !== 'blocked') continue
    const score = match(e.name)
    if (score > 0) byName.push({ e, score })
  }
  return byName.sort((a, b) => b.score - a.score || (a.e.id < b.e.id ? -1 : a.e.id > b.e.id ? 1 : 0))
}

/** The locked tools (not callable, in scope, surfaceable) that match the query, in contract order. */
function lockedMatches(byName: readonly NameMatched[], hits: CatalogEntry[]): CatalogEntry[] {
  const out = byName.map((x) => x.e)
  const seen = new Set(out.map((e) => e.id))
  for (const e of hits) {
    if (e.status === 'callable' || isNameOnly(e) || e.hidden || seen.has(e.id)) continue
    seen.add(e.id)
    out.push(e)
  }
  return out
}

/** Servers (in scope) that had not finished starting when the search ran: their tools are missing. */
export function startingNotice(n: number): string {
  return `${n} server(s) are still starting; their tools are not in these results yet. Retry in a few seconds.`
}

/**
 * Servers (in scope) that may run but never listed their tools: nothing is known of
 * them, so a search cannot find their tools; the agent is told rather than left to guess.
 */
export function notRunNotice(names: readonly string[]): string {
  return `${names.length} server(s) have not run yet (${names.join(', ')}); their tools are not known, so they are not in these results.`
}

/** What a search says about servers whose tools it cannot show: how many are still starting, which have not run yet. */
export interface NotListed {
  starting: number
  notRun: readonly string[]
}

/**
 * What a mistake in Toolgate's config costs this agent, one sentence (docs/config.md): the server
 * entries in its scope that were left out, and a file that could not be applied (`problem`: the
 * last good config runs). An agent with a narrowed scope learns that something is wrong,
 * not what, for entries outside its scope.
 */
export function configNotice(catalog: Catalog, scope: Scope, problem: string | null): string | null {
  const out: string[] = []
  for (const s of catalog.currentConfig.skipped) {
    if (!scope.allowsServer(s.name)) continue
    out.push(
      `Server "${s.name}" is left out: its entry in Toolgate's config has a mistake (at ${s.path}: ${s.problem}); its tools are missing until the operator fixes the config.`,
    )
  }
  if (problem !== null) {
    const what = scope.agent === null ? ` (${problem})` : ''
    out.push(`Toolgate's config has a mistake${what}; the last config that worked stays in use until the operator fixes it.`)
  }
  return out.length ? out.join(' ') : null
}

export function retrieve(
  catalog: Catalog,
  args: RetrieveArgs,
  scope: Scope,
  stats?: SearchObserver,
  notListed: NotListed | number = 0,
  configProblem: string | null = null,
): RetrieveResponse {
  return retrieveParts(catalog, args, scope, stats, notListed, configProblem).response
}

/** A search's answer and the catalog entries its callable results were made from, in order (responseText keeps their text). */
export function retrieveParts(
  catalog: Catalog,
  args: RetrieveArgs,
  scope: Scope,
  stats?: SearchObserver,
  notListed: NotListed | number = 0,
  configProblem: string | null = null,
): { response: RetrieveResponse; sources: CatalogEntry[] } {
  const { starting, notRun } = typeof notListed === 'number' ? { starting: notListed, notRun: [] } : notListed
  const limit = args.limit ?? catalog.currentConfig.tools_limit
  const snapshot = catalog.snapshot()
  const callable: CallableEntry[] = []
  const sources: CatalogEntry[] = []
  const lockedHits: CatalogEntry[] = []
  // locked_ahead: how many callable results each ranked locked tool follows (the callable ranking is not touched)
  const ranked: RankedLocked[] = []
  let best: CatalogEntry | null = null
  // the hits are sorted as they are read: a page of them, unless locked hits come between
  for (const hit of catalog.index.ranked(args.query).inOrder(Math.max(FIRST_PAGE, 2 * limit))) {
    const e = snapshot.byId.get(hit.id)
    if (!e) continue
    const access = entryAccess(catalog, scope, e)
    if (access.kind !== 'callable') {
      if (isKnown(access)) {
        lockedHits.push(e)
        if (!isNameOnly(e)) ranked.push({ e, callableBefore: callable.length })
      }
      continue
    }
    if (callable.length >= limit) {
      // Without include_disabled, locked matches only matter when nothing is callable (the notice).
      if (args.include_disabled !== true) break
      continue
    }
    callable.push({
      name: e.id,
      server: e.server,
      description: e.def.description,
      inputSchema: e.def.inputSchema,
      ...(e.def.outputSchema ? { outputSchema: e.def.outputSchema } : {}),
      ...(e.def.annotations && Object.keys(e.def.annotations).length ? { annotations: e.def.annotations } : {}),
      ...(e.annotationsMissing ? { annotations_missing: true as const } : {}),
      call_with: callWith(e.variant),
      score: Math.round(hit.score * 1000) / 1000,
    })
    sources.push(e)
    best ??= e
  }
  const response: RetrieveResponse = { query: args.query, tools: callable, total: callable.length }
  const match = nameMatcher(args.query)
  const byName = nameMatches(catalog, match, scope)
  const locked = args.include_disabled === true || callable.length === 0 ? lockedMatches(byName, lockedHits) : []
  stats?.recordSearch(
    args.query,
    args.include_disabled === true,
    callable.length === 0 && locked.length > 0,
    locked.slice(0, LOCKED_CAP).map((e) => e.id),
  )
  if (args.include_disabled === true) {
    if (locked.length > 0) {
      const shown = locked.slice(0, Math.min(limit, LOCKED_CAP))
      response.disabled = shown.map(lockedEntry)
      // one sentence per status, from the shown entries: a quarantine held by the operator never says
      // "ask the user to approve", a lock of the organisation says "set by your organisation"; the
      // plain sentence first, then the operator's, then the organisation's when kinds are mixed
      const remediation: Partial<Record<LockStatus, string>> = {}
      for (const s of LOCK_STATUSES) {
        const of = shown.filter((e) => e.status === s)
        if (of.length === 0) continue
        const sentences = new Set(of.map((e) => remediationFor(s, e.operatorHold, e.organisation)))
        const rank = (t: string): number => (t === REMEDIATION[s] ? 0 : t === OPERATOR_HOLD_REMEDIATION ? 1 : 2)
        remediation[s] = [...sentences].sort((a, b) => rank(a) - rank(b)).join(' ')
      }
      response.remediation = remediation
    }
  } else {
    // the one deliberate addition to the default path (docs/search.md): a locked tool named exactly
    const exact = exactNameHint(exactLockedMatches(catalog, args.query, scope))
    const count = callable.length === 0 && locked.length > 0 ? lockedNotice(locked.length) : null
    const notice = [exact, count].filter((t): t is string => t !== null).join('. ')
    if (notice) response.notice = notice
  }
  // last, as its own sentence (the exact-name hint before it ends without a full stop)
  if (starting > 0) {
    const before = response.notice ? `${response.notice}${response.notice.endsWith('.') ? ' ' : '. '}` : ''
    response.notice = before + startingNotice(starting)
  }
  if (notRun.length > 0) {
    const before = response.notice ? `${response.notice}${response.notice.endsWith('.') ? ' ' : '. '}` : ''
    response.notice = before + notRunNotice(notRun)
  }
  // a mistake in the config (a server left out, a file not applied): the agent can tell the user what to fix
  const trouble = configNotice(catalog, scope, configProblem)
  if (trouble) {
    const before = response.notice ? `${response.notice}${response.notice.endsWith('.') ? ' ' : '. '}` : ''
    response.notice = before + trouble
  }
  // the round-three addition, always the last key: without it the bytes are those of the build before it
  const bestCallableNameScore = best ? match(best.name) : 0
  const ahead = lockedAhead(ranked, byName, { limit, bestCallableNameScore, cap: Math.min(limit, LOCKED_CAP) })
  if (ahead.length > 0) response.locked_ahead = ahead.map(lockedAheadEntry)
  return { response, sources }
}

/** The notice of a search that found only locked tools (docs/contract.md §3). */
export function lockedNotice(n: number): string {
  return `${n} relevant tool(s) exist but are locked; retry with include_disabled:true for details and remediation.`
}

function lockedEntry(e: CatalogEntry): LockedEntry {
  const status = e.status as LockStatus
  const policy = e.organisation ? { policy: ORGANISATION } : {}
  if (isNameOnly(e)) return { name: e.id, server: e.server, status, ...policy }
  return { name: e.id, server: e.server, description: e.def.description, status, ...policy }
}

/** The exact text every surface returns: JSON.stringify of retrieve()'s answer (responseText writes each tool's text once). */
export function retrieveText(
  catalog: Catalog,
  args: RetrieveArgs,
  scope: Scope,
  stats?: SearchObserver,
  notListed: NotListed | number = 0,
  configProblem: string | null = null,
): string {
  const { response, sources } = retrieveParts(catalog, args, scope, stats, notListed, configProblem)
  return responseText(response, sources)
}

/** What retrieve_tools needs of the servers' supervisor. */
export interface StartingSource {
  waitStarted(names: Iterable<string>): Promise<string[]>
  /** the server may run (enabled, not quarantined): started or not */
  get(name: string): unknown
}

/**
 * Waits (up to STARTING_WAIT_MS) for the servers in scope that are still starting; how many still
 * are, and which servers that may run never listed their tools (not starting either: they failed,
 * or were never started).
 */
export async function stillStarting(catalog: Catalog, manager: StartingSource, scope: Scope): Promise<NotListed> {
  const names = catalog.currentConfig.servers.map((s) => s.name).filter((n) => scope.allowsServer(n))
  const left = await manager.waitStarted(names)
  const notRun = names.filter((n) => !left.includes(n) && manager.get(n) !== undefined && catalog.liveSource(n) !== 'upstream')
  return { starting: left.length, notRun }
}

/**
 * retrieve_tools as the user's search gets it: while servers in scope are still starting, waits
 * for them, then answers with what is there and, if some are still starting, a notice.
 */
export async function retrieveWhenStarted(
  catalog: Catalog,
  manager: StartingSource,
  args: RetrieveArgs,
  scope: Scope,
  stats?: SearchObserver,
): Promise<string> {
  return retrieveText(catalog, args, scope, stats, await stillStarting(catalog, manager, scope))
}
