// The control API's event stream (`GET /api/v1/events`, IPC, the UI): catalog, connection and
// sign-in changes coalesce into one servers.changed + tools.changed per tick naming the servers;
// config events pass through.
import { EventEmitter } from 'node:events'
import type { ApiEvent } from '../../../shared/api'
import type { Catalog, CatalogChange } from '../catalog/catalog'
import type { ConnectionStates } from '../upstream/states'

export class ControlEvents extends EventEmitter<{ event: [ApiEvent] }> {
  private pending: Set<string> | null = null

  constructor(catalog: Catalog, connections: ConnectionStates) {
    super()
    this.setMaxListeners(0)
    catalog.on('changed', (c: CatalogChange) => this.serversChanged(c.servers))
    connections.on('changed', (servers) => this.serversChanged(servers))
  }

  emitEvent(ev: ApiEvent): void {
    this.emit('event', ev)
  }

  /** These servers changed (state, tools, sign-in): one servers.changed + tools.changed per tick names them all. */
  serversChanged(servers: readonly string[]): void {
    if (!this.pending) {
      const batch = new Set<string>()
      this.pending = batch
      setImmediate(() => {
        this.pending = null
        const list = [...batch]
        this.emitEvent({ type: 'servers.changed', data: { servers: list } })
        this.emitEvent({ type: 'tools.changed', data: { servers: list } })
      })
    }
    for (const s of servers) this.pending.add(s)
  }
}
