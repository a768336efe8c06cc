// In-memory discovery counters for GET /api/v1/stats. Never persisted.
import type { Stats } from '../../../shared/api'

const MAX_QUERIES = 200

export class DiscoveryStats {
  private includeDisabled = 0
  private lockedOnly = 0
  private retrieves = 0
  private calls = 0
  private blocked = 0
  private readonly lockedOnlyQueries = new Map<string, number>()
  /** the locked tools each such query matched (last seen) */
  private readonly lockedOnlyTools = new Map<string, readonly string[]>()

  recordSearch(query: string, includeDisabled: boolean, lockedOnly: boolean, locked: readonly string[] = []): void {
    this.retrieves++
    if (includeDisabled) this.includeDisabled++
    if (!lockedOnly) return
    this.lockedOnly++
    const key = query.trim().toLowerCase().slice(0, 200)
    if (!this.lockedOnlyQueries.has(key) && this.lockedOnlyQueries.size >= MAX_QUERIES) return
    this.lockedOnlyQueries.set(key, (this.lockedOnlyQueries.get(key) ?? 0) + 1)
    this.lockedOnlyTools.set(key, locked.slice(0, 10))
  }

  recordCall(blocked: boolean): void {
    this.calls++
    if (blocked) this.blocked++
  }

  snapshot(): Stats {
    return {
      include_disabled_calls: this.includeDisabled,
      locked_only_searches: this.lockedOnly,
      retrieve_calls: this.retrieves,
      tool_calls: this.calls,
      blocked_calls: this.blocked,
      locked_only_queries: [...this.lockedOnlyQueries]
        .map(([query, count]) => ({ query, count, tools: [...(this.lockedOnlyTools.get(query) ?? [])] }))
        .sort((a, b) => b.count - a.count || (a.query < b.query ? -1 : 1))
        .slice(0, 20),
    }
  }
}
