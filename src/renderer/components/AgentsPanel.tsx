// The Agents view: each configured agent and each local client, with its scope, tokens, what it
// can reach and why the rest is out of reach, what its tool definitions cost in context, and its
// recent activity. Markers: data-agent="NAME" on each agent's card.
import { useEffect } from 'react'
import type { AgentView, ServerReach } from '../../shared/agents'
import type { AgentTokenInfo } from '../../shared/api'
import { LOCK_STATUSES } from '../../shared/statuses'
import { escapeControls } from '../../shared/text'
import { useApp } from '../store/context'
import { timeOf, whoOf } from './ActivityTable'
import { AgentAskInClient } from './AgentAskInClient'

function when(ts: string | null): string {
  return ts ? timeOf(ts) : 'never'
}

function ReachRow({ r }: { r: ServerReach }) {
  const out: string[] = []
  for (const [v, n] of Object.entries(r.needs_permission ?? {})) out.push(`${n} need ${v} permission`)
  for (const s of LOCK_STATUSES) if (r.locked?.[s]) out.push(`${r.locked[s]} ${s.replace(/_/g, ' ')}`)
  return (
    <tr data-reach={r.server} data-reachable={String(r.reachable)}>
      <td>
        <code>{r.server}</code>
      </td>
      <td>{r.reachable ? `${r.callable} callable` : <span className="muted">out of reach</span>}</td>
      <td>{[r.why, ...out].filter(Boolean).join('; ') || '—'}</td>
    </tr>
  )
}

/** An agent's tokens (id, created, last used; never the token) with Revoke, and Revoke all. */
function Tokens({ agent, tokens }: { agent: string; tokens: AgentTokenInfo[] }) {
  const api = useApp((s) => s.api)
  const reportError = useApp((s) => s.reportError)
  const loadAgents = useApp((s) => s.loadAgents)
  const revoke = async (id?: string): Promise<void> => {
    try {
      await api.revokeAgentTokens(agent, id)
    } catch (err) {
      reportError(err)
    }
    await loadAgents()
  }
  return (
    <>
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
                <button type="button" className="btn btn--small" onClick={() => void revoke(t.id)}>
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {tokens.length > 1 && (
        <button type="button" className="btn btn--ghost btn--small" onClick={() => void revoke()}>
          Revoke all
        </button>
      )}
    </>
  )
}

function AgentCard({ a }: { a: AgentView }) {
  const saved = a.context.all_callable - a.context.at_connect
  return (
    <article className="agent-card" data-agent={a.name} aria-labelledby={`agent-${a.name}`}>
      <header className="agent-head">
        <h3 id={`agent-${a.name}`}>{escapeControls(a.name)}</h3>
        <span className="muted small">
          {a.kind === 'agent' ? 'configured agent' : 'local client (admin key, no agent name)'} · last seen {when(a.last_seen)}
        </span>
      </header>
      <dl className="kvs">
        <div className="kv">
          <dt>scope</dt>
          <dd>
            servers {a.servers === '*' ? 'all' : a.servers.join(', ') || 'none'}; may call {a.permissions.join(', ') || 'nothing'}
          </dd>
        </div>
        {a.kind === 'agent' && (
          <div className="kv">
            <dt>tokens</dt>
            <dd>
              {a.token_list.length === 0 ? (
                <span className="muted">
                  none (connects over stdio with --agent, or create one: <code>toolgate agents token {a.name}</code>)
                </span>
              ) : (
                <Tokens agent={a.name} tokens={a.token_list} />
              )}
            </dd>
          </div>
        )}
        {a.ask_in_client && (
          <div className="kv">
            <dt>questions</dt>
            <dd>
              <AgentAskInClient agent={a.name} info={a.ask_in_client} />
            </dd>
          </div>
        )}
        <div className="kv">
          <dt>context</dt>
          <dd data-context-tokens={a.context.at_connect}>
            <strong>{a.context.at_connect.toLocaleString()}</strong> tokens at connect (Toolgate’s tools) instead of{' '}
            <strong>{a.context.all_callable.toLocaleString()}</strong> for its {a.context.callable_tools} callable tools in full
            {saved > 0 ? ` (${saved.toLocaleString()} fewer)` : ''} <span className="muted small">· {a.context.encoding}</span>
          </dd>
        </div>
      </dl>
      <table className="queries reach">
        <thead>
          <tr>
            <th scope="col">server</th>
            <th scope="col">reach</th>
            <th scope="col">why not more</th>
          </tr>
        </thead>
        <tbody>
          {a.reach.map((r) => (
            <ReachRow key={r.server} r={r} />
          ))}
        </tbody>
      </table>
      <h4>Recent activity</h4>
      {a.recent.length ? (
        <ul className="plain recent">
          {a.recent.map((e) => (
            <li key={e.id} data-activity={e.id}>
              <span className="muted">{timeOf(e.ts)}</span>{' '}
              {escapeControls(
                e.kind === 'call'
                  ? `${e.tool} → ${e.outcome}`
                  : e.kind === 'search'
                    ? `search “${e.query}”`
                    : e.kind === 'decision'
                      ? // the tool a decision was about, not only its server ("allow notes:save_note", not "allow notes")
                        `${e.action} ${e.tool ? `${e.server}:${e.tool}` : e.server} (${whoOf(e)})`
                      : `${e.kind === 'start' ? 'started' : 'stopped'} ${e.server}`,
              )}
            </li>
          ))}
        </ul>
      ) : (
        <p className="muted small">Nothing recorded yet.</p>
      )}
    </article>
  )
}

export function AgentsPanel() {
  const agents = useApp((s) => s.agents)
  const loadAgents = useApp((s) => s.loadAgents)
  useEffect(() => void loadAgents(), [loadAgents])
  if (!agents) return <p className="muted">Loading…</p>
  return (
    <div className="agents">
      <h2 className="view-title">What each agent sees</h2>
      {agents.length === 0 ? (
        <p className="muted">
          No agents yet. Agents are configured in mcp_config.json (
          <code>
            "agents": [{'{'}"name": "reader", "servers": ["files"], "permissions": ["read"]{'}'}]
          </code>
          ); local clients appear here once they searched or called something.
        </p>
      ) : (
        agents.map((a) => <AgentCard key={`${a.kind}:${a.name}`} a={a} />)
      )}
    </div>
  )
}
