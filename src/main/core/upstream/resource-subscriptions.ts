// Who wants to hear that a server's resource changed (docs/passthrough.md): agents subscribe to a
// server's URI (through Toolgate's rewritten one); the server is subscribed once per URI however
// many agents want it, and unsubscribed when the last one leaves. Kept per server name, so a
// server that restarts (a new connection, a new Upstream) is subscribed again to what is wanted.
export type Delivery = (uri: string) => void

export class ResourceSubscriptions {
  private readonly byServer = new Map<string, Map<string, Set<Delivery>>>()
  /** servers whose wanted URIs changed in this turn: told once, after it (see changed) */
  private readonly dirty = new Set<string>()

  /** `apply`: tells the running server which of its URIs are wanted now. */
  constructor(private readonly apply: (server: string, uris: ReadonlySet<string>) => void) {}

  /**
   * The server is told its wanted URIs once per turn (a microtask), not once per URI added or
   * released: each telling holds all of them, so a 2026-07-28 subscriptions/listen naming 20,000
   * URIs cost the main thread ~29 s (quadratic), one agent's request.
   */
  private changed(server: string): void {
    if (this.dirty.has(server)) return
    this.dirty.add(server)
    queueMicrotask(() => {
      this.dirty.delete(server)
      this.apply(server, this.uris(server))
    })
  }

  /** `deliver` hears of changes to the server's `uri` until the returned release is called (idempotent). */
  add(server: string, uri: string, deliver: Delivery): () => void {
    let uris = this.byServer.get(server)
    if (!uris) this.byServer.set(server, (uris = new Map()))
    let set = uris.get(uri)
    const first = !set
    if (!set) uris.set(uri, (set = new Set()))
    set.add(deliver)
    if (first) this.changed(server)
    let released = false
    return () => {
      if (released) return
      released = true
      const now = this.byServer.get(server)?.get(uri)
      if (!now) return
      now.delete(deliver)
      if (now.size > 0) return
      this.byServer.get(server)?.delete(uri)
      this.changed(server)
    }
  }

  /** The server's URIs someone wants. */
  uris(server: string): Set<string> {
    return new Set(this.byServer.get(server)?.keys() ?? [])
  }

  /** The server said its `uri` changed: everyone who wants it hears it (a throwing listener does not stop the others). */
  deliver(server: string, uri: string): void {
    for (const d of [...(this.byServer.get(server)?.get(uri) ?? [])]) {
      try {
        d(uri)
      } catch {
        // a subscriber that went away mid-delivery
      }
    }
  }
}
