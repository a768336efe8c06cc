// The lifecycle of one supervised server (docs/lifecycle.md): why it starts and stops, the lease a user of
// it holds while it works, and the idle clock that stops an on-demand server nobody used for
// idle_stop_s. The UpstreamManager owns one ServerSlot per server that may run.
import type { ServerConfig } from '../../../shared/config-schema'
import { lifecycleOf } from '../../../shared/lifecycle'
import type { Upstream } from './upstream'

/**
 * Why a server was started: an agent's call, prompt or resource read; the user's Inspect or
 * restart; its tools were never listed; lifecycle "always"; it ran when its launch changed or it went back to review.
 */
export type StartReason = 'call' | 'prompt' | 'resource' | 'inspect' | 'restart' | 'list' | 'always' | 'config'
/** Why a server was stopped: unused for idle_stop_s; switched off, quarantined, removed or changed; Toolgate stopped. */
export type StopReason = 'idle' | 'config' | 'shutdown'

/** Who caused a start: the agent of the session (a call), or nobody (Toolgate, the user). */
export interface StartedBy {
  agent: string | null
  client: string | null
}

export type LifecycleChange =
  { kind: 'start'; server: string; reason: StartReason; by?: StartedBy } | { kind: 'stop'; server: string; reason: StopReason; idleS?: number }

/** What an agent's request holds while it uses a server: the server is not stopped for idleness until it is released. */
export interface Lease {
  readonly up: Upstream
  /** the server was still starting when the wait ended (the caller says so instead of calling) */
  readonly stillStarting: boolean
  release(): void
}

/** One server that may run: its Upstream (started or not), whether its tools were listed since the start, and its idle clock. */
export class ServerSlot {
  /** tools listed since the last start (a call waits for this before the gate decides) */
  ready = false
  /** leases held now */
  holds = 0
  /** requests waiting for this server to finish starting */
  waiters = 0
  /** the current start was asked for by a user of the server (they wait for it as long as a start takes) */
  onDemandStart = false
  /** when the idle clock stops the server (Date.now() ms), null while it is used, starting or always on */
  idleStopAt: number | null = null
  idleTimer: NodeJS.Timeout | undefined
  /** when idleTimer fires (Date.now() ms); it may fire before idleStopAt, and is then armed again for the rest */
  idleTimerAt = 0
  /** tells the manager's ConnectionStates what the server looks like now */
  announce: (() => void) | undefined

  constructor(
    public cfg: ServerConfig,
    /** the launch: a change of it restarts the server (lifecycle and idle_stop_s are not part of it) */
    readonly key: string,
    readonly up: Upstream,
  ) {}

  get lifecycle(): 'on_demand' | 'always' {
    return lifecycleOf(this.cfg)
  }

  /** The process (or HTTP connection) runs or is being started: anything but stopped. */
  get active(): boolean {
    return this.up.state !== 'stopped'
  }

  /** A process runs (or an HTTP connection is up), or is being started: there is something to stop. */
  get running(): boolean {
    return this.up.state === 'connecting' || this.up.state === 'connected'
  }

  clearIdle(): void {
    clearTimeout(this.idleTimer)
    this.idleTimer = undefined
    this.idleStopAt = null
  }

  /**
   * The idle clock of an on-demand server: when nobody uses it, it stops at lastUsedAt + idleS
   * (idleStopAt). A use only moves that time: the timer is armed once per idle period, not reset
   * on every call; a timer that fires before the stop time (the server was used meanwhile) is
   * armed again for the rest, one that would fire after it (a shorter idle_stop_s) is replaced.
   * `mayIdle`: the server is one that stops when idle now; `onTimer`: the timer fired.
   */
  armIdle(idleS: number, mayIdle: boolean, onTimer: () => void): void {
    const before = this.idleStopAt
    const inUse = this.holds > 0 || this.waiters > 0 || this.up.busy > 0
    if (!mayIdle) this.clearIdle()
    else if (inUse) this.idleStopAt = null
    else {
      const at = this.up.lastUsedAt + idleS * 1000
      this.idleStopAt = at
      if (this.idleTimer === undefined || this.idleTimerAt > at) {
        clearTimeout(this.idleTimer)
        this.idleTimerAt = at
        this.idleTimer = setTimeout(onTimer, Math.max(0, at - Date.now())).unref()
      }
    }
    if (before !== this.idleStopAt) this.announce?.()
  }
}

/** The config fields that do not touch a running server: changing them neither restarts nor re-lists it. */
export function launchKeyOf(cfg: ServerConfig, canonical: (v: unknown) => string): string {
  const { lifecycle: _l, idle_stop_s: _i, ...rest } = cfg
  return canonical(rest)
}

const START_WORDS: Record<StartReason, string> = {
  call: 'for a call',
  prompt: 'to get a prompt',
  resource: 'for a resource',
  inspect: 'for an Inspect',
  restart: 'on restart',
  list: 'once, to list its tools (it never listed them)',
  always: 'because its lifecycle is "always"',
  config: 'again: it was running when its launch changed or it went back to review',
}

/** The activity record's words for a start or a stop. */
export function lifecycleMessage(c: LifecycleChange): string {
  if (c.kind === 'start') return `Started ${c.server} ${START_WORDS[c.reason]}.`
  switch (c.reason) {
    case 'idle':
      return `Stopped ${c.server}: unused for ${c.idleS ?? '?'} s (idle_stop_s); it starts again on first use.`
    case 'config':
      return `Stopped ${c.server}: switched off, quarantined, removed or changed.`
    case 'shutdown':
      return `Stopped ${c.server}: Toolgate stopped.`
  }
}
