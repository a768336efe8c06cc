// The connection state of each running upstream (connecting, connected, stopped, error), as the
// UpstreamManager last saw it. It never changes a tool's status: the server view and
// `upstream_servers` read it, the catalog does not.
import { EventEmitter } from 'node:events'
import type { UpstreamState } from './types'

export interface ConnectionInfo {
  readonly state: UpstreamState
  readonly lastError: string | null
  /** reconnect attempt while reconnecting; 0 otherwise */
  readonly attempt: number
  /** the MCP protocol version the server last agreed to (its era); null before it ever connected */
  readonly protocolVersion?: string | null
  /** an on-demand server running unused: when its idle clock stops it (Date.now() ms); null or absent otherwise */
  readonly idleStopAt?: number | null
}

const STOPPED: ConnectionInfo = Object.freeze({ state: 'stopped', lastError: null, attempt: 0, protocolVersion: null })

function sameInfo(a: ConnectionInfo, b: ConnectionInfo): boolean {
  return (
    a.state === b.state &&
    a.lastError === b.lastError &&
    a.attempt === b.attempt &&
    (a.protocolVersion ?? null) === (b.protocolVersion ?? null) &&
    (a.idleStopAt ?? null) === (b.idleStopAt ?? null)
  )
}

/** Only the idle clock moved (an on-demand server's use began or ended): the state itself is the same. */
function onlyIdleClock(a: ConnectionInfo, b: ConnectionInfo): boolean {
  return sameInfo(a, { ...b, idleStopAt: a.idleStopAt })
}

/**
 * How often listeners hear of one server's idle clock at most. Every call of an on-demand server
 * moves it twice (stopped for the call, set again after it): told each time, that was a
 * servers.changed + tools.changed pair to the window and every event stream per call.
 */
export const IDLE_CLOCK_TELL_MS = 1000

export class ConnectionStates extends EventEmitter<{ changed: [servers: string[]] }> {
  private readonly byServer = new Map<string, ConnectionInfo>()
  /** per server: when listeners last heard of its idle clock, and the telling held back until IDLE_CLOCK_TELL_MS passed */
  private readonly clock = new Map<string, { toldAt: number; timer: NodeJS.Timeout | null }>()

  /**
   * Records what the manager sees now; tells listeners only when it differs from what it saw last
   * (a call's lease announces the same state). A change of the idle clock alone is recorded at
   * once (`of()` reads it) and told at most once per IDLE_CLOCK_TELL_MS per server.
   */
  set(server: string, info: ConnectionInfo): void {
    const before = this.byServer.get(server)
    if (before && sameInfo(before, info)) return
    this.byServer.set(server, Object.freeze({ ...info }))
    if (before && onlyIdleClock(before, info)) return this.tellClock(server)
    this.holdNoClock(server)
    this.emit('changed', [server])
  }

  private tellClock(server: string): void {
    let c = this.clock.get(server)
    if (!c) {
      c = { toldAt: Number.NEGATIVE_INFINITY, timer: null }
      this.clock.set(server, c)
    }
    if (c.timer) return
    const wait = c.toldAt + IDLE_CLOCK_TELL_MS - Date.now()
    if (wait <= 0) {
      c.toldAt = Date.now()
      this.emit('changed', [server])
      return
    }
    const held = c
    held.timer = setTimeout(() => {
      held.timer = null
      held.toldAt = Date.now()
      if (this.byServer.has(server)) this.emit('changed', [server])
    }, wait).unref()
  }

  /** A telling of the whole state covers the idle clock too: one held back is dropped. */
  private holdNoClock(server: string): void {
    const c = this.clock.get(server)
    if (c?.timer) {
      clearTimeout(c.timer)
      c.timer = null
    }
  }

  /** A server that was never started (or was removed) is `stopped`. */
  of(server: string): ConnectionInfo {
    return this.byServer.get(server) ?? STOPPED
  }

  forget(server: string): void {
    this.holdNoClock(server)
    this.clock.delete(server)
    if (this.byServer.delete(server)) this.emit('changed', [server])
  }
}
