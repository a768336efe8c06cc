// A small list of the agents in the config and their tokens (id, created, last used; never the
// token), each with Revoke (issue 11, point 5). The full Agents view comes later.
import { useCallback, useEffect, useState } from 'react'
import type { AgentInfo, AgentTokenInfo } from '../../shared/api'
import { useApp } from '../store/context'

type Loaded = Array<{ agent: AgentInfo; tokens: AgentTokenInfo[] }>

const when = (iso: string | null): string => (iso ? new Date(iso).toLocaleString() : 'never')

export function AgentTokens() {
  const api = useApp((s) => s.api)
  const reportError = useApp((s) => s.reportError)
  const [list, setList] = useState<Loaded | null>(null)

  const load = useCallback(async () => {
    try {
      const { agents } = await api.agents()
      setList(await Promise.all(agents.map(async (agent) => ({ agent, tokens: (await api.agentTokens(agent.name)).tokens }))))
    } catch (err) {
      reportError(err)
    }
  }, [api, reportError])

  useEffect(() => {
    void load()
  }, [load])

  const revoke = async (agent: string, id?: string): Promise<void> => {
    try {
      await api.revokeAgentTokens(agent, id)
    } catch (err) {
      reportError(err)
    }
    await load()
  }

  if (!list) return null
  return (
    <section className="agent-tokens" aria-label="Agent tokens">
      <h3>Agent tokens</h3>
      {list.length === 0 ? (
        <p className="muted">
          No agents in the config. Add them under <code>agents</code> in mcp_config.json; each gets tokens with <code>toolgate agents token NAME</code>.
        </p>
      ) : (
        list.map(({ agent, tokens }) => (
          <div key={agent.name} className="agent" data-agent={agent.name}>
            <p>
              <strong>{agent.name}</strong>{' '}
              <span className="muted small">
                servers {agent.servers === '*' ? 'all' : agent.servers.join(', ') || 'none'} · {agent.permissions.join(', ')}
              </span>
              {tokens.length > 1 && (
                <button type="button" className="btn btn--ghost btn--small" onClick={() => void revoke(agent.name)}>
                  Revoke all
                </button>
              )}
            </p>
            {tokens.length === 0 ? (
              <p className="muted small">No tokens.</p>
            ) : (
              <table className="queries">
                <thead>
                  <tr>
                    <th scope="col">token</th>
                    <th scope="col">created</th>
                    <th scope="col">last used</th>
                    <th scope="col">
                      <span className="sr-only">actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {tokens.map((t) => (
                    <tr key={t.id} data-token={t.id}>
                      <td>
                        <code>{t.id}</code>
                      </td>
                      <td>{when(t.created_at)}</td>
                      <td>{when(t.last_used_at)}</td>
                      <td>
                        <button type="button" className="btn btn--small" onClick={() => void revoke(agent.name, t.id)}>
                          Revoke
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </div>
        ))
      )}
    </section>
  )
}
