// The control API's event stream (`GET /api/v1/events`, IPC, the UI): catalog and connection
// changes coalesce into one servers.changed + tools.changed per tick; config events pass through.
import { EventEmitter } from 'node:events'
import type { ApiEvent } from '../../../shared/api'
import type { Catalog, CatalogChange } from '../catalog/catalog'
import type { ConnectionStates } from '../upstream/states'

export class ControlEvents extends EventEmitter<{ event: [ApiEvent] }> {
  private pending: Set<string> | null = null

  constructor(catalog: Catalog, connections: ConnectionStates) {
    super()
    this.setMaxListeners(0)
    catalog.on('changed', (c: CatalogChange) => this.changed(c.servers))
    connections.on('changed', (servers) => this.changed(servers))
  }

  emitEvent(ev: ApiEvent): void {
    this.emit('event', ev)
  }

  private changed(servers: readonly string[]): void {
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
