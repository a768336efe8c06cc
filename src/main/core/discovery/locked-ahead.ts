// `locked_ahead` of retrieve_tools (docs/search.md "Locked tools that outrank"): the locked tools
// in scope that would rank above the best callable result or within the page, named with their
// status and remediation (never a description), so an agent that never asks for locked tools still
// learns that "write a file" has a locked `write_file`. The callable ranking is not touched.
import type { LockedAheadEntry } from '../../../shared/retrieve'
import { remediationFor, type LockStatus } from '../../../shared/statuses'
import type { CatalogEntry } from '../catalog/catalog'

/** A locked tool the index ranked (its approved text is trusted), and how many callable results it follows. */
export interface RankedLocked {
  e: CatalogEntry
  /** the callable results the index ranked above it */
  callableBefore: number
}

/** A locked tool whose text is untrusted (quarantined, pending), matched by its name only. */
export interface NameMatched {
  e: CatalogEntry
  /** how many query words its name matches (search/name-match.ts) */
  score: number
}

/**
 * The locked tools ahead, name matches first (as in `disabled`), at most `cap`:
 * - a ranked tool is ahead when it would be on the page if it alone were callable: fewer than
 *   `limit` callable results rank above it (it outranks the best one, or sits within the page);
 * - a tool matched by name only cannot be ranked by its text; it is ahead when its name matches
 *   more query words than the name of the best callable result does (any name match when nothing
 *   callable matched): "write a file" puts a pending `write_file` (2 words) ahead of `read_file`
 *   (1), while "list repositories" does not put a quarantined `list_notes` ahead of `list_repos`.
 */
export function lockedAhead(
  ranked: readonly RankedLocked[],
  byName: readonly NameMatched[],
  o: { limit: number; bestCallableNameScore: number; cap: number },
): CatalogEntry[] {
  const out: CatalogEntry[] = []
  const seen = new Set<string>()
  const add = (e: CatalogEntry): void => {
    if (out.length >= o.cap || seen.has(e.id)) return
    seen.add(e.id)
    out.push(e)
  }
  for (const m of byName) if (m.score > o.bestCallableNameScore) add(m.e)
  for (const r of ranked) if (r.callableBefore < o.limit) add(r.e)
  return out
}

/** One entry: key order name, server, status, remediation (docs/contract.md §3). */
export function lockedAheadEntry(e: CatalogEntry): LockedAheadEntry {
  const status = e.status as LockStatus
  return { name: e.id, server: e.server, status, remediation: remediationFor(status, e.operatorHold, e.organisation) }
}
