// Whose request a server's log message belongs to (docs/passthrough.md, log messages). A server's
// notifications/message names no request (a 2025 server over stdio cannot), so it is taken to belong
// to the one request in flight on the connection when it came; with several in flight (two agents'
// calls to one shared server) nobody can tell whose it is, and no 2026-07-28 request hears it: it
// might hold another agent's arguments or results. A request that asked for no log messages (every
// 2025 one) is relayed as its agent's (its `owner` is readerOf(agent)): a message during that
// agent's call alone is that agent's, and its 2025 sessions hear it (agent-server/log-relay.ts).

/** What a message belongs to when several requests were in flight: no reader's key, so nobody's. */
export const SEVERAL: object = Object.freeze({})

const agentReaders = new Map<string, object>()

/** The one key of an agent's requests (null: the admin, unscoped). */
export function readerOf(agent: string | null): object {
  const name = agent ?? ''
  let key = agentReaders.get(name)
  if (!key) {
    key = Object.freeze({ agent: name })
    agentReaders.set(name, key)
  }
  return key
}

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

  /** Whose a message that comes now is: the only request in flight; null when none is (the server's own); SEVERAL when several are. */
  owner(): object | null {
    if (this.inFlight.size === 0) return null
    if (this.inFlight.size > 1) return SEVERAL
    const [only] = this.inFlight.keys()
    return only
  }
}
