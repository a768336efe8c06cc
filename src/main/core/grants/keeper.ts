// Ends grants on time (docs/requests.md). Time-boxed grants live in state.json with what to undo; the
// keeper sets one timer for the nearest end, and at the end writes `enabled: false` back to the
// config (a timed server enable) and puts the state back through catalog.decide(), then tells
// (event, activity). At start it ends every grant whose time passed while Toolgate was stopped,
// before any upstream starts. It also holds the "Allow once" passes: one call by one agent.
import { randomBytes } from 'node:crypto'
import type { Catalog } from '../catalog/catalog'
import { setServerField } from '../config/write'
import type { Logger } from '../log'
import type { Grant, GrantUndo } from '../state/schema'
import { applyStateUndo } from '../state/grant-undo'

/** An unused "Allow once" pass lapses after this long. */
export const ONCE_PASS_TTL_MS = 3_600_000
/** setTimeout's longest delay; a later end is scheduled in steps. */
const MAX_DELAY = 2 ** 31 - 1
const CONFIG_RETRY_MS = 10_000

export interface GrantEnd {
  grant: Grant
  /** what came back, in words */
  message: string
}

export interface KeeperDeps {
  catalog: Catalog
  config: { path: string; reload(): void }
  /** bring the running upstreams in line (a server went back into quarantine) */
  syncUpstreams(): void
  logger: Logger
  /** a grant ended (expired, or a once pass was used or lapsed) */
  onEnd?(end: GrantEnd, why: 'expired' | 'used'): void
  now?(): number
}

function describeUndo(g: Grant, u: GrantUndo): string {
  switch (u.type) {
    case 'server_enabled':
      return `server ${g.server} is switched off again`
    case 'server_review':
      return `server ${g.server} is back in quarantine`
    case 'tool_enabled':
      return `${g.server}:${u.tool} is switched off again`
    case 'tool_approval':
      return u.previous ? `${g.server}:${u.tool} waits for review of its change again` : `${g.server}:${u.tool} waits for review again`
  }
}

export class GrantKeeper {
  private timer: NodeJS.Timeout | null = null
  private timerAt = Infinity
  private readonly ending = new Set<string>()
  private readonly retryAt = new Map<string, number>()
  private stopped = false

  constructor(private readonly d: KeeperDeps) {
    d.catalog.on('changed', () => this.schedule())
  }

  private now(): number {
    return this.d.now?.() ?? Date.now()
  }

  get grants(): readonly Grant[] {
    return this.d.catalog.store.current.grants ?? []
  }

  /** At start: ends what ended while Toolgate was stopped (before upstreams start), then keeps time. */
  async start(): Promise<void> {
    await this.endDue()
    this.schedule()
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }

  /** The running time-boxed grant that would undo `type` of this server (or tool), for the UI's "time left". */
  timedFor(server: string, tool?: string): Grant | undefined {
    return this.grants.find(
      (g) => g.kind === 'timed' && g.server === server && g.undo.some((u) => (tool === undefined ? !('tool' in u) : 'tool' in u && u.tool === tool)),
    )
  }

  /** Sets the timer for the nearest end. */
  schedule(): void {
    if (this.stopped) return
    let next = Infinity
    for (const g of this.grants) next = Math.min(next, this.retryAt.get(g.id) ?? Date.parse(g.until))
    if (next === this.timerAt && this.timer) return
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    this.timerAt = next
    if (next === Infinity) return
    const delay = Math.min(MAX_DELAY, Math.max(0, next - this.now()))
    this.timer = setTimeout(() => {
      this.timer = null
      this.timerAt = Infinity
      void this.endDue().finally(() => this.schedule())
    }, delay)
    this.timer.unref?.()
  }

  /** Ends every grant whose time has come. */
  async endDue(): Promise<void> {
    const now = this.now()
    const due = this.grants.filter((g) => (this.retryAt.get(g.id) ?? Date.parse(g.until)) <= now && !this.ending.has(g.id))
    for (const g of due) await this.end(g)
  }

  private async end(g: Grant): Promise<void> {
    this.ending.add(g.id)
    try {
      if (g.kind === 'once') {
        await this.d.catalog.store.update((s) => {
          s.grants = s.grants.filter((x) => x.id !== g.id)
        })
        this.d.onEnd?.({ grant: g, message: `the unused "Allow once" pass of ${g.server}:${g.tool} lapsed` }, 'expired')
        return
      }
      // the config first: if Toolgate stops right after, the grant is still there and ends again at start
      let configFailed = false
      if (g.undo.some((u) => u.type === 'server_enabled')) {
        const cfg = this.d.catalog.serverConfig(g.server)
        if (cfg?.enabled) {
          try {
            setServerField(this.d.config.path, g.server, 'enabled', false)
            this.d.config.reload()
          } catch (e) {
            configFailed = true
            this.d.logger.error({ server: g.server, err: (e as Error).message }, `cannot switch ${g.server} off again at the end of its grant; retrying`)
          }
        }
      }
      await this.d.catalog.decide([g.server], (s) => {
        const cur = s.grants.find((x) => x.id === g.id)
        if (!cur) return
        applyStateUndo(s, cur)
        if (configFailed) cur.undo = cur.undo.filter((u) => u.type === 'server_enabled')
        else s.grants = s.grants.filter((x) => x.id !== g.id)
      })
      if (configFailed) this.retryAt.set(g.id, this.now() + CONFIG_RETRY_MS)
      else this.retryAt.delete(g.id)
      this.d.syncUpstreams()
      const what = g.undo.map((u) => describeUndo(g, u))
      this.d.onEnd?.({ grant: g, message: `The grant until ${g.until} ended: ${what.join('; ')}.` }, 'expired')
    } catch (e) {
      this.d.logger.error({ grant: g.id, err: (e as Error).message }, 'ending a grant failed')
    } finally {
      this.ending.delete(g.id)
    }
  }

  /** Gives `agent` one call of server:tool (unused, it lapses after ONCE_PASS_TTL_MS). */
  /** `hash`: the definition the user allowed the call of; a tool changed since gets no call from the pass. */
  async addOnce(agent: string | null, server: string, tool: string, requestId?: string, hash?: string): Promise<Grant> {
    const now = this.now()
    const g: Grant = {
      id: `g_${randomBytes(9).toString('base64url')}`,
      kind: 'once',
      server,
      tool,
      agent,
      until: new Date(now + ONCE_PASS_TTL_MS).toISOString(),
      created_at: new Date(now).toISOString(),
      ...(requestId ? { request_id: requestId } : {}),
      ...(hash ? { hash } : {}),
      undo: [],
    }
    await this.d.catalog.store.update((s) => {
      s.grants = [...(s.grants ?? []), g]
    })
    this.schedule()
    return g
  }

  /** The unused pass of `agent` for server:tool, if any. */
  onceFor(agent: string | null, server: string, tool: string, hash: string | undefined): Grant | undefined {
    const now = this.now()
    return this.grants.find(
      (g) =>
        g.kind === 'once' &&
        g.server === server &&
        g.tool === tool &&
        (g.agent ?? null) === agent &&
        Date.parse(g.until) > now &&
        // bound to the definition the user allowed: a pass of v2 does not call v3
        (g.hash === undefined || g.hash === hash),
    )
  }

  /**
   * Uses the pass: it is gone from memory before this returns (the state write follows), so of
   * concurrent calls exactly one gets it.
   */
  consumeOnce(agent: string | null, server: string, tool: string, hash: string): Grant | null {
    const g = this.onceFor(agent, server, tool, hash)
    if (!g) return null
    void this.d.catalog.store
      .update((s) => {
        s.grants = s.grants.filter((x) => x.id !== g.id)
      })
      .catch((e: unknown) => this.d.logger.error({ err: (e as Error).message }, 'cannot write state.json after an "Allow once" pass was used'))
    this.schedule()
    this.d.onEnd?.({ grant: g, message: `${g.agent ?? 'a session without an agent'} used its one call of ${g.server}:${g.tool}` }, 'used')
    return g
  }
}
