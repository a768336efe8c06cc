// What the tray and the notifications say about the overall state, from the server list.
import type { ServerInfo } from '../../shared/api'

export interface Summary {
  total: number
  connected: number
  callable: number
  /** servers awaiting review (never approved, not an operator hold) */
  reviewServers: string[]
  /** pending/changed tools per approved server */
  pendingTools: Record<string, number>
  waiting: number
}

export function summarize(servers: readonly ServerInfo[]): Summary {
  const reviewServers = servers.filter((s) => s.quarantined && (s.quarantine_source === undefined || s.quarantine_source === 'review')).map((s) => s.name)
  const pendingTools: Record<string, number> = {}
  for (const s of servers) {
    const n = s.counts.pending_approval ?? 0
    if (n > 0) pendingTools[s.name] = n
  }
  const pendingTotal = Object.values(pendingTools).reduce((a, b) => a + b, 0)
  return {
    total: servers.length,
    connected: servers.filter((s) => s.state === 'connected').length,
    callable: servers.reduce((n, s) => n + (s.counts.callable ?? 0), 0),
    reviewServers,
    pendingTools,
    waiting: reviewServers.length + pendingTotal,
  }
}
