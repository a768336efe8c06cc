// Whose request a server's log message belongs to (docs/passthrough.md, log messages). A server's
// notifications/message names no request (a 2025 server over stdio cannot), so it is taken to belong
// to the one request in flight on the connection when it came; with several in flight (two agents'
// calls to one shared server) nobody can tell whose it is, and no 2026-07-28 request hears it: it
// might hold another agent's arguments or results.

export class LogReaders {
  private readonly inFlight = new Map<object, number>()

  /** A request starts on the connection (`key`: its RequestLogs, or a fresh object when it asked for none); the returned function ends it. */
  enter(key: object): () => void {
    this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1)
    let left = false
    return () => {
      if (left) return
      left = true
      const n = (this.inFlight.get(key) ?? 1) - 1
      if (n > 0) this.inFlight.set(key, n)
      else this.inFlight.delete(key)
    }
  }

  /** The request a message that comes now belongs to: the only one in flight, else null (none, or several). */
  sole(): object | null {
    if (this.inFlight.size !== 1) return null
    const [only] = this.inFlight.keys()
    return only
  }
}
