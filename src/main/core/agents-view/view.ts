// The Agents view's data: every configured agent, then every local client seen in the activity
// record (a session with the admin key, grouped by the client name from initialize), each with
// its scope, tokens, reach, recent activity and context cost.
import type { AgentView } from '../../../shared/agents'
import type { AgentTokenInfo } from '../../../shared/api'
import type { AskInClientInfo } from '../../../shared/ask-in-client'
import { VARIANTS, type Variant } from '../../../shared/call-variant'
import type { ActivityRecorder } from '../activity/recorder'
import type { Catalog } from '../catalog/catalog'
import { agentScope, FULL_SCOPE, type Scope } from '../access/scope'
import { agentTools } from '../agent-server/tool-defs'
import { contextCost, loadTokenizer } from './context-cost'
import { serverReach } from './reach'

export const MAX_LOCAL_CLIENTS = 20
const RECENT = 5

export interface AgentViewDeps {
  catalog: Catalog
  activity: ActivityRecorder
  tokensOf(agent: string): AgentTokenInfo[]
  /** a configured agent's ask_in_client switch (agents/ask-in-client.ts) */
  askInClient?(agent: string): AskInClientInfo
}

function viewOf(d: AgentViewDeps, name: string, kind: AgentView['kind'], scope: Scope, servers: AgentView['servers'], permissions: Variant[]): AgentView {
  const { reach, callable } = serverReach(d.catalog, scope)
  const recent = d.activity.page({ agent: name, limit: RECENT }).events.filter((e) => (kind === 'agent' ? e.agent === name : e.agent === null))
  return {
    name,
    kind,
    servers,
    permissions,
    tokens: kind === 'agent' ? d.tokensOf(name).length : 0,
    token_list: kind === 'agent' ? d.tokensOf(name) : [],
    reach,
    context: contextCost(agentTools(scope), callable),
    last_seen: recent[0]?.ts ?? null,
    recent,
    ...(kind === 'agent' && d.askInClient ? { ask_in_client: d.askInClient(name) } : {}),
  }
}

export async function agentViews(d: AgentViewDeps): Promise<AgentView[]> {
  await loadTokenizer()
  const out: AgentView[] = []
  for (const a of d.catalog.currentConfig.agents) out.push(viewOf(d, a.name, 'agent', agentScope(a), a.servers, [...a.permissions]))
  const locals = [...d.activity.store.localClients()].sort((a, b) => b[1] - a[1]).slice(0, MAX_LOCAL_CLIENTS)
  for (const [client] of locals) out.push(viewOf(d, client, 'local', FULL_SCOPE, '*', [...VARIANTS]))
  return out
}
