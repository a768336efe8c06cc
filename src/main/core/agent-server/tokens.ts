// Agent tokens: issued per configured agent, stored only as SHA-256 hashes
// in state.json, listed by id (created, last used; never the token), revoked one by one or all
// at once. An agent that leaves the config loses its tokens for good, so a later agent of the
// same name never inherits them.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { ApiError, type AgentTokenInfo } from '../../../shared/api'
import type { AgentConfig } from '../../../shared/config-schema'
import type { AgentTokenRecord } from '../state/schema'
import type { StateStore } from '../state/store'

/** How often the last use of a token is written to state.json at most. */
const LAST_USED_WRITE_MS = 60_000

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

const idOf = (r: AgentTokenRecord): string => r.id ?? r.hash.slice(0, 12)

export class AgentTokens {
  /** last use seen in memory, by hash (written to the state at most once a minute per token) */
  private readonly lastUsed = new Map<string, number>()

  constructor(
    private readonly store: StateStore,
    private readonly agents: () => readonly AgentConfig[],
    private readonly configPath: string,
  ) {}

  private requireAgent(agent: string): void {
    if (!this.agents().some((a) => a.name === agent))
      throw new ApiError('unknown_agent', `no agent named "${agent}" in ${this.configPath} ("agents": [{"name": "${agent}", ...}])`, 404)
  }

  /** A new token for `agent`: returned once, only its hash is kept. */
  async create(agent: string): Promise<{ id: string; token: string }> {
    this.requireAgent(agent)
    const token = `tg_${agent}_${randomBytes(24).toString('base64url')}`
    const id = `tok_${randomBytes(6).toString('hex')}`
    await this.store.update((s) => {
      s.agent_tokens[agent] = [...(s.agent_tokens[agent] ?? []), { id, hash: hashToken(token), created_at: new Date().toISOString() }]
    })
    return { id, token }
  }

  list(agent: string): AgentTokenInfo[] {
    this.requireAgent(agent)
    return (this.store.current.agent_tokens[agent] ?? []).map((r) => {
      const seen = this.lastUsed.get(r.hash)
      const stored = r.last_used_at ? Date.parse(r.last_used_at) : 0
      const last = Math.max(seen ?? 0, stored)
      return { id: idOf(r), created_at: r.created_at, last_used_at: last ? new Date(last).toISOString() : null }
    })
  }

  count(agent: string): number {
    return this.store.current.agent_tokens[agent]?.length ?? 0
  }

  async revoke(agent: string, id: string): Promise<string> {
    this.requireAgent(agent)
    const recs = this.store.current.agent_tokens[agent] ?? []
    if (!recs.some((r) => idOf(r) === id)) {
      throw new ApiError('unknown_token', `agent "${agent}" has no token "${id}"; run \`toolgate agents tokens ${agent}\` to see its token ids.`, 404)
    }
    await this.store.update((s) => {
      s.agent_tokens[agent] = (s.agent_tokens[agent] ?? []).filter((r) => idOf(r) !== id)
    })
    return `Revoked token ${id} of agent ${agent}; sessions opened with it are refused from their next request.`
  }

  async revokeAll(agent: string): Promise<string> {
    this.requireAgent(agent)
    const n = this.count(agent)
    await this.store.update((s) => {
      delete s.agent_tokens[agent]
    })
    return `Revoked ${n} token(s) of agent ${agent}; sessions opened with them are refused from their next request.`
  }

  /** Drops the tokens of agents that are no longer configured (at start and on every config load). */
  async forgetRemovedAgents(): Promise<string[]> {
    const configured = new Set(this.agents().map((a) => a.name))
    const gone = Object.keys(this.store.current.agent_tokens).filter((a) => !configured.has(a))
    if (gone.length === 0) return []
    await this.store.update((s) => {
      for (const a of gone) delete s.agent_tokens[a]
    })
    return gone
  }

  /** The agent (and token id) a presented token belongs to, or null. Compared in constant time. */
  authenticate(presented: string): { agent: string; tokenId: string } | null {
    const h = Buffer.from(hashToken(presented), 'hex')
    for (const [agent, recs] of Object.entries(this.store.current.agent_tokens)) {
      for (const rec of recs) {
        const stored = Buffer.from(rec.hash, 'hex')
        if (stored.length === h.length && timingSafeEqual(h, stored)) {
          this.touch(agent, rec)
          return { agent, tokenId: idOf(rec) }
        }
      }
    }
    return null
  }

  private touch(agent: string, rec: AgentTokenRecord): void {
    const now = Date.now()
    this.lastUsed.set(rec.hash, now)
    const stored = rec.last_used_at ? Date.parse(rec.last_used_at) : 0
    if (now - stored < LAST_USED_WRITE_MS) return
    void this.store
      .update((s) => {
        const r = s.agent_tokens[agent]?.find((x) => x.hash === rec.hash)
        if (r) r.last_used_at = new Date(now).toISOString()
      })
      .catch(() => {})
  }
}
