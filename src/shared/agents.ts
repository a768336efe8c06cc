// What each agent sees (GET /api/v1/agents, `toolgate agents list`, the Agents view): its scope,
// tokens, which servers and tools it can reach and why the others are out of reach, its recent
// activity, and what its tool definitions cost in context. Pure types.
import type { ActivityEvent } from './activity'
import type { AgentInfo, AgentTokenInfo } from './api'
import type { AskInClientInfo } from './ask-in-client'
import type { Variant } from './call-variant'
import type { LockStatus } from './statuses'

/** One server as one agent sees it. */
export interface ServerReach {
  server: string
  /** the agent can call at least one tool there */
  reachable: boolean
  /** why nothing there is reachable: not in the agent's scope, switched off, in quarantine, not connected */
  why?: string
  /** tools it can call there */
  callable: number
  /** callable tools it may not call because it lacks the permission (write, destructive) */
  needs_permission?: Partial<Record<Variant, number>>
  /** tools locked for everyone, by status */
  locked?: Partial<Record<LockStatus, number>>
}

export interface ContextCost {
  /** the tokenizer's encoding (o200k_base) */
  encoding: string
  /** tokens of the tool definitions it receives when it connects (Toolgate's meta-tools for its scope) */
  at_connect: number
  /** tokens of every tool it can call, each definition in full (as if connected to every upstream directly) */
  all_callable: number
  callable_tools: number
}

/** An agent's AgentInfo (name, servers, permissions, token count), and what it sees. */
export interface AgentView extends AgentInfo {
  /** `agent`: configured in mcp_config.json; `local`: a client that connected with the admin key (stdio, the bridge), grouped by the client name it sent in initialize */
  kind: 'agent' | 'local'
  /** its tokens (never the token itself): id, created, last used */
  token_list: AgentTokenInfo[]
  reach: ServerReach[]
  context: ContextCost
  /** its newest activity record's time */
  last_seen: string | null
  /** its newest records (at most 5) */
  recent: ActivityEvent[]
  /** a configured agent's switch: its questions may go to its own client too (absent for a local client: never asked there) */
  ask_in_client?: AskInClientInfo
}
