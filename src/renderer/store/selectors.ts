// Derived views of the server list. Pure functions, shared by the header, the cards and tests.
import type { ServerInfo } from '../../shared/api'
import { LOCK_STATUSES, type ToolStatus } from '../../shared/statuses'

/** Non-zero counts in a stable order: callable first, then the lock statuses by precedence. */
export function nonZeroCounts(server: ServerInfo): Array<{ status: ToolStatus; n: number }> {
  const out: Array<{ status: ToolStatus; n: number }> = []
  if (server.counts.callable > 0) out.push({ status: 'callable', n: server.counts.callable })
  for (const status of LOCK_STATUSES) {
    const n = server.counts[status] ?? 0
    if (n > 0) out.push({ status, n })
  }
  return out
}

/** Whether a server's card opens by itself: something in it waits for the user. */
export function opensByDefault(server: ServerInfo, all: readonly ServerInfo[]): boolean {
  return all.length === 1 || (server.counts.pending_approval ?? 0) > 0 || (server.prompt_counts?.pending_approval ?? 0) > 0
}
