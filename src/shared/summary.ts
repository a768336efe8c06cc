// The one summary of the server list: what the tray, the UI header and GET /api/v1/status say
// about the whole. "Waiting for approval" counts what waits for the user's review: servers never
// approved (quarantine_source "review") and new or changed tools, prompts and resource templates (pending_approval). An operator
// hold (quarantined:true in the config) is not the user's to approve, and a server the user put
// back into quarantine is the user's own decision: neither waits.
import type { ServerInfo } from './api'

export interface ServersSummary {
  total: number
  /** by server state (a disabled server counts as disabled even when it is also quarantined) */
  connected: number
  /** stopped servers that start at their next use: not a problem, just not running now */
  onDemand: number
  quarantined: number
  disabled: number
  error: number
  /** callable tools over every server */
  callable: number
  /** servers waiting for the user's review, by name */
  reviewServers: string[]
  /** servers that need the user to sign in (state needs_auth, or a quarantined one whose Inspect needs it), by name */
  needsSignIn: string[]
  /** pending/changed tools per server (servers with none omitted) */
  pendingTools: Record<string, number>
  /** new or changed prompts per server (servers with none omitted) */
  pendingPrompts: Record<string, number>
  /** new or changed resource templates per server (servers with none omitted) */
  pendingTemplates: Record<string, number>
  /** reviewServers + every pending tool, prompt and resource template: the "N waiting for approval" number */
  waiting: number
  /** servers that fail, by name: in state error, or reconnecting after a failure (last_error set) */
  failing: string[]
}

/** Whether a server fails: it gave up (error), or it is retrying after a failure. */
export function isFailing(s: ServerInfo): boolean {
  return s.state === 'error' || (s.state === 'connecting' && s.last_error !== null)
}

/** Whether a server waits for the user's review (never approved, or added by an agent). */
export function awaitsReview(s: ServerInfo): boolean {
  return s.quarantined && (s.quarantine_source === undefined || s.quarantine_source === 'review')
}

export function summarizeServers(servers: readonly ServerInfo[]): ServersSummary {
  const reviewServers = servers.filter(awaitsReview).map((s) => s.name)
  const needsSignIn = servers.filter((s) => s.enabled && (s.state === 'needs_auth' || s.auth?.status === 'needs_sign_in')).map((s) => s.name)
  const pendingTools: Record<string, number> = {}
  let pendingTotal = 0
  for (const s of servers) {
    const n = s.counts.pending_approval ?? 0
    if (n > 0) pendingTools[s.name] = n
    pendingTotal += n
  }
  const pendingPrompts: Record<string, number> = {}
  for (const s of servers) {
    const n = s.prompt_counts?.pending_approval ?? 0
    if (n > 0) pendingPrompts[s.name] = n
    pendingTotal += n
  }
  const pendingTemplates: Record<string, number> = {}
  for (const s of servers) {
    const n = s.template_counts?.pending_approval ?? 0
    if (n > 0) pendingTemplates[s.name] = n
    pendingTotal += n
  }
  const inState = (state: ServerInfo['state']): number => servers.filter((s) => s.state === state).length
  return {
    total: servers.length,
    connected: inState('connected'),
    onDemand: servers.filter((s) => s.starts_on_demand === true).length,
    quarantined: inState('quarantined'),
    disabled: inState('disabled'),
    error: inState('error'),
    callable: servers.reduce((n, s) => n + (s.counts.callable ?? 0), 0),
    reviewServers,
    needsSignIn,
    pendingTools,
    pendingPrompts,
    pendingTemplates,
    waiting: reviewServers.length + pendingTotal,
    failing: servers.filter(isFailing).map((s) => s.name),
  }
}

/** "2 of 5 servers connected" and, when some start at their first use, ", 3 start on first use". */
export function connectedText(summary: Pick<ServersSummary, 'connected' | 'total' | 'onDemand'>): string {
  const base = `${summary.connected} of ${summary.total} servers connected`
  return summary.onDemand > 0 ? `${base}, ${summary.onDemand} start on first use` : base
}
