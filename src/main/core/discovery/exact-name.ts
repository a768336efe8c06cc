// The exact-name hint of retrieve_tools (docs/search.md): a query that names a locked tool exactly
// ("files:move_file" or "move_file") gets a notice saying the tool exists and is locked, even when
// callable tools matched too. Scope first (an out-of-scope tool never produces a hint), rule 6
// (a hidden tool never does either), and name-only: the hint carries the id and status, never text
// the upstream wrote.
import type { Catalog, CatalogEntry, CatalogSnapshot } from '../catalog/catalog'
import type { Scope } from '../access/scope'
import { entryAccess, isKnown } from '../access/decide'

/** At most this many tools are named in one hint (a tool name shared by many servers). */
export const EXACT_HINT_CAP = 3

/**
 * Per server part (an immutable array the catalog rebuilds only when that server changes), its
 * locked surfaceable tools by id and by name: a search costs one lookup per server.
 */
const lockedByName = new WeakMap<readonly CatalogEntry[], Map<string, CatalogEntry[]>>()

function lockedNames(entries: readonly CatalogEntry[]): Map<string, CatalogEntry[]> {
  let map = lockedByName.get(entries)
  if (map) return map
  const built = new Map<string, CatalogEntry[]>()
  for (const e of entries) {
    if (e.status === 'callable' || e.hidden) continue
    for (const key of new Set([e.id, e.name])) built.set(key, [...(built.get(key) ?? []), e])
  }
  lockedByName.set(entries, built)
  map = built
  return map
}

/** The same for a whole snapshot (immutable too; rebuilt from the parts' maps when any server changed): one lookup per search. */
const lockedInSnapshot = new WeakMap<CatalogSnapshot, Map<string, CatalogEntry[]>>()

function snapshotLockedNames(snapshot: CatalogSnapshot): Map<string, CatalogEntry[]> {
  let map = lockedInSnapshot.get(snapshot)
  if (map) return map
  map = new Map()
  for (const entries of snapshot.byServer.values()) for (const [key, found] of lockedNames(entries)) map.set(key, [...(map.get(key) ?? []), ...found])
  lockedInSnapshot.set(snapshot, map)
  return map
}

/** The locked, in-scope, surfaceable tools whose id or name is exactly the query, by id. */
export function exactLockedMatches(catalog: Catalog, query: string, scope: Scope): CatalogEntry[] {
  const q = query.trim()
  if (q.length === 0) return []
  const found = snapshotLockedNames(catalog.snapshot()).get(q)
  if (!found) return []
  const out = found.filter((e) => scope.allowsServer(e.server) && isKnown(entryAccess(catalog, scope, e)))
  return out.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}

/** "`files:move_file` exists but is locked (disabled_by_config); retry with include_disabled:true", or null. */
export function exactNameHint(matches: readonly CatalogEntry[]): string | null {
  if (matches.length === 0) return null
  const shown = matches.slice(0, EXACT_HINT_CAP)
  const more = matches.length - shown.length
  if (shown.length === 1 && more === 0) {
    const e = shown[0]
    return `\`${e.id}\` exists but is locked (${e.status}); retry with include_disabled:true`
  }
  const list = shown.map((e) => `\`${e.id}\` (${e.status})`).join(', ')
  return `${list}${more > 0 ? ` and ${more} more` : ''} exist but are locked; retry with include_disabled:true`
}
