// Agent scope (CONTRACT.md §2 `agents`, §3 rule 7): which servers and call variants an agent may
// use. Applied before anything else on every surface; out-of-scope tools simply do not exist
// for that agent.
import type { AgentConfig } from '../../../shared/config-schema'
import type { Variant } from '../../../shared/call-variant'

export interface Scope {
  readonly agent: string | null
  allowsServer(server: string): boolean
  allowsVariant(v: Variant): boolean
  allows(e: { server: string; variant: Variant }): boolean
}

export const FULL_SCOPE: Scope = {
  agent: null,
  allowsServer: () => true,
  allowsVariant: () => true,
  allows: () => true,
}

export function agentScope(agent: AgentConfig): Scope {
  const servers = agent.servers === '*' ? null : new Set(agent.servers)
  const variants = new Set<Variant>(agent.permissions)
  return {
    agent: agent.name,
    allowsServer: (s) => servers === null || servers.has(s),
    allowsVariant: (v) => variants.has(v),
    allows(e) {
      return this.allowsServer(e.server) && this.allowsVariant(e.variant)
    },
  }
}
