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

export class ConnectionStates extends EventEmitter<{ changed: [servers: string[]] }> {
  private readonly byServer = new Map<string, ConnectionInfo>()

  /** Records what the manager sees now; tells listeners only when it differs from what it saw last (a call's lease announces the same state). */
  set(server: string, info: ConnectionInfo): void {
    const before = this.byServer.get(server)
    if (before && sameInfo(before, info)) return
    this.byServer.set(server, Object.freeze({ ...info }))
    this.emit('changed', [server])
  }

  /** A server that was never started (or was removed) is `stopped`. */
  of(server: string): ConnectionInfo {
    return this.byServer.get(server) ?? STOPPED
  }

  forget(server: string): void {
    if (this.byServer.delete(server)) this.emit('changed', [server])
  }
}
