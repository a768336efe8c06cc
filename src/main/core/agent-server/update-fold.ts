// How often an agent hears of a resource's changes (docs/passthrough.md), in both eras: at most
// once per UPDATE_EVERY_MS per URI, the first at once, those that follow within it folded into one
// after it, each gated when it comes and the folded one again when it is told.

/**
 * A subscribed agent hears of a URI's changes at most this often: the first at once, those that
 * follow within it as one after it (no change is missed). An update says "read it again", so more
 * are worth nothing: a server's burst of 5,000 reached every subscribed agent 5,000 times.
 */
export const UPDATE_EVERY_MS = 1000

/**
 * Past this many URIs, the ones with nothing waiting and told longer than UPDATE_EVERY_MS ago are
 * forgotten; the next look is at twice what is left (at least this), so the walks cost, over a
 * burst of new URIs, in step with their number: a look at every new URI past this many walked all
 * of that second's (none old yet), 20,000 URIs ≈ 2 s of the main thread per listening stream.
 */
const PRUNE_AT = 256

interface Entry {
  last: number
  pending: NodeJS.Timeout | null
  latest: string
}

/**
 * The updates one agent hears (one 2025 subscription, or one 2026-07-28 listen stream).
 * `may` is the agent's gate (checked when an update comes, and again when a folded one is told:
 * a change made while the agent may not hear it is never told); `tell` sends it.
 */
export class UpdateFolder {
  private readonly entries = new Map<string, Entry>()
  private pruneAt = PRUNE_AT
  private stopped = false

  constructor(
    private readonly may: (uri: string) => boolean,
    private readonly tell: (uri: string) => void,
  ) {}

  /** A change of `uri`, throttled under `key` (the URI subscribed, when it names the change otherwise). */
  push(uri: string, key: string = uri): void {
    if (this.stopped || !this.may(uri)) return
    let e = this.entries.get(key)
    if (!e) {
      if (this.entries.size >= this.pruneAt) {
        this.prune()
        this.pruneAt = Math.max(PRUNE_AT, 2 * this.entries.size)
      }
      e = { last: 0, pending: null, latest: uri }
      this.entries.set(key, e)
    }
    e.latest = uri
    if (e.pending !== null) return
    const wait = e.last + UPDATE_EVERY_MS - Date.now()
    if (wait <= 0) {
      e.last = Date.now()
      this.tell(uri)
      return
    }
    const entry = e
    entry.pending = setTimeout(() => {
      entry.pending = null
      entry.last = Date.now()
      if (!this.stopped && this.may(entry.latest)) this.tell(entry.latest)
    }, wait)
    entry.pending.unref()
  }

  /** Nothing more is told (the subscription or stream ended). */
  stop(): void {
    this.stopped = true
    for (const e of this.entries.values()) if (e.pending !== null) clearTimeout(e.pending)
    this.entries.clear()
  }

  private prune(): void {
    const old = Date.now() - UPDATE_EVERY_MS
    for (const [key, e] of this.entries) if (e.pending === null && e.last <= old) this.entries.delete(key)
  }
}
