// The ask_in_client switch of each configured agent: read live on every
// question (the organisation's policy, the operator's config, the user's switch in state.json:
// shared/ask-in-client.ts), and set by the user from the window, the CLI or the control API,
// never by an agent (no agent-facing tool reaches it; the control API takes the admin key only).
import { ApiError } from '../../../shared/api'
import { askInClientOf, type AskInClientInfo } from '../../../shared/ask-in-client'
import type { AgentConfig } from '../../../shared/config-schema'
import type { Catalog } from '../catalog/catalog'

export class AskInClientSwitch {
  constructor(private readonly catalog: Catalog) {}

  /** The switch of `agent` now; `config`: its entry in the effective config (absent: looked up). */
  info(agent: string, config?: Pick<AgentConfig, 'ask_in_client'>): AskInClientInfo {
    const cfg = config ?? this.catalog.currentConfig.agents.find((a) => a.name === agent)
    const user = this.catalog.store.current.agents?.[agent]?.ask_in_client
    return askInClientOf(agent, cfg?.ask_in_client, user, this.catalog.currentConfig.organisation)
  }

  /** For a scope: whether the agent's questions may go to its client now. */
  readonly of = (agent: AgentConfig): boolean => this.info(agent.name, agent).on

  /** The user's switch. A switch the config or the organisation sets is refused (409 ask_in_client_locked) with who decides. */
  async set(agent: string, on: boolean): Promise<string> {
    const cfg = this.catalog.currentConfig.agents.find((a) => a.name === agent)
    if (!cfg) {
      const names = this.catalog.currentConfig.agents.map((a) => a.name).join(', ') || '(none)'
      throw new ApiError('unknown_agent', `no agent named "${agent}" in the config; the configured agents are: ${names}.`, 404)
    }
    const now = this.info(agent, cfg)
    if (now.locked) throw new ApiError('ask_in_client_locked', `ask_in_client of agent "${agent}" is ${now.on ? 'on' : 'off'}: ${now.note ?? ''}`.trim(), 409)
    await this.catalog.store.update((s) => {
      s.agents = { ...s.agents, [agent]: { ...s.agents?.[agent], ask_in_client: on } }
    })
    return on
      ? `Questions for agent "${agent}" (confirmations, access requests) now also go to its own client when the client can show them; turn this on only where a person reads them there, not a model. The Toolgate window still shows them too.`
      : `Questions for agent "${agent}" are answered in the Toolgate window and tray only.`
  }
}
