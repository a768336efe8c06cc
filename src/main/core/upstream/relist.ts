// Coalesces a server's list_changed notifications into re-lists (docs/passthrough.md): the first
// one is acted on at once, every later one within `gapMs` of the last re-list's start waits for
// the end of that gap, and all that arrive meanwhile cost one re-list. So a burst of any size
// costs at most one re-list per gap, and the last notification is never lost (a re-list always
// starts after it). One re-list runs at a time.
export const RELIST_GAP_MS = 1000

export class Relister {
  private running = false
  private again = false
  private lastStart = Number.NEGATIVE_INFINITY
  private timer: NodeJS.Timeout | undefined
  private stopped = false

  constructor(
    /** lists again; rejections go to `onError` */
    private readonly run: () => Promise<void>,
    private readonly onError: (err: unknown) => void,
    private readonly gapMs = RELIST_GAP_MS,
  ) {}

  /** The list changed: re-list now, or once the gap since the last re-list has passed. */
  request(): void {
    if (this.stopped) return
    if (this.running || this.timer) {
      this.again = true
      return
    }
    const wait = this.lastStart + this.gapMs - Date.now()
    if (wait <= 0) return this.start()
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.start()
    }, wait)
    this.timer.unref()
  }

  /** No more re-lists (the connection it serves is gone). */
  stop(): void {
    this.stopped = true
    clearTimeout(this.timer)
    this.timer = undefined
  }

  private start(): void {
    if (this.stopped) return
    this.running = true
    this.again = false
    this.lastStart = Date.now()
    this.run()
      .catch((err: unknown) => {
        if (!this.stopped) this.onError(err)
      })
      .finally(() => {
        this.running = false
        if (this.again) {
          this.again = false
          this.request()
        }
      })
  }
}
