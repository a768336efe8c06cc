// Agent scope (docs/contract.md §2 `agents`, §3 rule 7): which servers and call variants an agent may
// use. Applied before anything else on every surface; out-of-scope tools simply do not exist
// for that agent. A scope is live: it reads the agent from the current
// config on every question, so narrowing or removing an agent applies to open sessions at once.
import { ApiError } from '../../../shared/api'
import type { AgentConfig } from '../../../shared/config-schema'
import type { Variant } from '../../../shared/call-variant'

export interface Scope {
  readonly agent: string | null
  /** false once the agent is no longer in the config: nothing is allowed any more */
  active(): boolean
  allowsServer(server: string): boolean
  allowsVariant(v: Variant): boolean
  allows(e: { server: string; variant: Variant }): boolean
  /** the agent's ask_in_client: its questions may go to its own client too */
  askInClient(): boolean
}

export const FULL_SCOPE: Scope = {
  agent: null,
  active: () => true,
  allowsServer: () => true,
  allowsVariant: () => true,
  allows: () => true,
  askInClient: () => false,
}

/** Whether an agent is asked in its own client now (the organisation, the config and the user's switch: shared/ask-in-client.ts). */
export type AskInClientFor = (agent: AgentConfig) => boolean

/** The live scope of a configured agent (unknown now: an error naming the config file). */
export function liveAgentScope(agents: () => readonly AgentConfig[], name: string, configPath: string, askOf?: AskInClientFor): Scope {
  if (!agents().some((a) => a.name === name)) {
    throw new ApiError('unknown_agent', `no agent named "${name}" in ${configPath} ("agents": [{"name": "${name}", ...}])`, 404)
  }
  let seen: readonly AgentConfig[] | null = null
  let current: Scope | null = null
  const now = (): Scope | null => {
    const list = agents()
    if (list !== seen) {
      seen = list
      const agent = list.find((a) => a.name === name)
      current = agent ? agentScope(agent, askOf) : null
    }
    return current
  }
  return {
    agent: name,
    active: () => now() !== null,
    allowsServer: (s) => now()?.allowsServer(s) ?? false,
    allowsVariant: (v) => now()?.allowsVariant(v) ?? false,
    allows: (e) => now()?.allows(e) ?? false,
    askInClient: () => now()?.askInClient() ?? false,
  }
}

/** `askOf`: asked live on each question (the user's switch may change); without it, the config's value alone. */
export function agentScope(agent: AgentConfig, askOf?: AskInClientFor): Scope {
  const servers = agent.servers === '*' ? null : new Set(agent.servers)
  const variants = new Set<Variant>(agent.permissions)
  return {
    agent: agent.name,
    active: () => true,
    allowsServer: (s) => servers === null || servers.has(s),
    allowsVariant: (v) => variants.has(v),
    allows(e) {
      return this.allowsServer(e.server) && this.allowsVariant(e.variant)
    },
    askInClient: () => (askOf ? askOf(agent) : agent.ask_in_client === true),
  }
}

/** The scope of an agent that is no longer configured: nothing is allowed. */
export function noScope(agent: string | null): Scope {
  return { agent, active: () => false, allowsServer: () => false, allowsVariant: () => false, allows: () => false, askInClient: () => false }
}
