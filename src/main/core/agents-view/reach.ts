// Which servers and tools one agent can reach, and why the others are out of reach: the access
// decision (access/decide.ts) for each of the catalog's tools, counted per server.
import type { ServerReach } from '../../../shared/agents'
import type { Variant } from '../../../shared/call-variant'
import type { LockStatus } from '../../../shared/statuses'
import type { Catalog, CatalogEntry } from '../catalog/catalog'
import type { Scope } from '../access/scope'
import { entryAccess } from '../access/decide'

export function serverReach(catalog: Catalog, scope: Scope): { reach: ServerReach[]; callable: CatalogEntry[] } {
  const reach: ServerReach[] = []
  const callable: CatalogEntry[] = []
  for (const s of catalog.currentConfig.servers) {
    const entries = catalog.entries(s.name).filter((e) => !e.hidden)
    if (!scope.allowsServer(s.name)) {
      reach.push({ server: s.name, reachable: false, why: 'not assigned to this agent (its "servers" in mcp_config.json)', callable: 0 })
      continue
    }
    let n = 0
    const needs: Partial<Record<Variant, number>> = {}
    const locked: Partial<Record<LockStatus, number>> = {}
    for (const e of entries) {
      const a = entryAccess(catalog, scope, e)
      if (a.kind === 'callable') {
        n++
        callable.push(e)
      } else if (a.kind === 'out_of_scope' && a.needs) needs[a.needs] = (needs[a.needs] ?? 0) + 1
      else if (a.kind === 'blocked') locked[a.status] = (locked[a.status] ?? 0) + 1
    }
    const q = catalog.quarantineOf(s)
    const why = !s.enabled
      ? 'the server is switched off'
      : q !== null
        ? q === 'config'
          ? 'held in quarantine by the operator (quarantined: true)'
          : 'waiting for review in quarantine'
        : n === 0 && entries.length === 0
          ? 'no tools known yet (not connected)'
          : n === 0
            ? 'none of its tools is callable for this agent'
            : undefined
    reach.push({
      server: s.name,
      reachable: n > 0,
      ...(why ? { why } : {}),
      callable: n,
      ...(Object.keys(needs).length ? { needs_permission: needs } : {}),
      ...(Object.keys(locked).length ? { locked } : {}),
    })
  }
  return { reach, callable }
}
