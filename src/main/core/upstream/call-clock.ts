// The timeout of one upstream call (`call_timeout_ms`, docs/passthrough.md): it counts the time the
// server works, not the time a person takes to answer the server's question. While a question of
// the call is open (asked in Toolgate, in the agent's client, or a sampling request waiting for the
// user's Allow) the clock stands still, at most MAX_PAUSE_MS in all per call; the question's own
// timeout bounds each wait. When the clock runs out, or the caller's signal aborts, its signal
// aborts the call (the SDK sends the server notifications/cancelled). Per call it costs one timer,
// one AbortController and one listener on the caller's signal (never AbortSignal.any, which costs
// tens of µs per call).

/** The most a call's clock stands still for its questions, in all. */
export const MAX_PAUSE_MS = 10 * 60_000

export class CallClock {
  private readonly ctrl = new AbortController()
  private left: number
  private pauseLeft: number
  private since: number
  private paused = 0
  private waitedMs = 0
  private timer: NodeJS.Timeout | null = null
  private over = false
  private timedOut = false

  private readonly onCaller: (() => void) | null = null

  /** `caller`: the caller's own signal (the agent cancels): the clock's signal follows it. */
  constructor(
    readonly timeoutMs: number,
    private readonly caller?: AbortSignal,
    maxPauseMs = MAX_PAUSE_MS,
    private readonly now: () => number = Date.now,
  ) {
    this.left = timeoutMs
    this.pauseLeft = maxPauseMs
    this.since = this.now()
    if (caller?.aborted) this.ctrl.abort(caller.reason)
    else if (caller) {
      const c = caller
      this.onCaller = () => this.ctrl.abort(c.reason)
      c.addEventListener('abort', this.onCaller, { once: true })
    }
    this.arm(this.left)
  }

  /** Aborted when the call's time is up. */
  get signal(): AbortSignal {
    return this.ctrl.signal
  }

  /** Whether the call ran out of time (not: the caller cancelled it). */
  get expired(): boolean {
    return this.timedOut
  }

  /** The time the clock stood still for questions (for the timeout's message). */
  get waited(): number {
    return this.waitedMs + (this.paused > 0 ? Math.min(this.pauseLeft, this.now() - this.since) : 0)
  }

  /** A question of the call opens: the clock stands still until the returned function is called. */
  pause(): () => void {
    if (this.over) return () => undefined
    if (this.paused++ === 0) {
      this.settle(false)
      // the pause allowance is spent first, then the call's own time runs again
      this.arm(this.pauseLeft + this.left)
    }
    let done = false
    return () => {
      if (done || this.over) return
      done = true
      if (--this.paused === 0) {
        this.settle(true)
        this.arm(this.left)
      }
    }
  }

  /** The call is over: no timer stays behind. */
  stop(): void {
    this.over = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    if (this.onCaller) this.caller?.removeEventListener('abort', this.onCaller)
  }

  /** Books the time since the last change: as running time, or (`wasPaused`) as waiting time. */
  private settle(wasPaused: boolean): void {
    const t = this.now()
    const spent = t - this.since
    this.since = t
    if (!wasPaused) {
      this.left = Math.max(0, this.left - spent)
      return
    }
    const fromPause = Math.min(spent, this.pauseLeft)
    this.pauseLeft -= fromPause
    this.waitedMs += fromPause
    this.left = Math.max(0, this.left - (spent - fromPause))
  }

  private arm(ms: number): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = setTimeout(() => {
      this.over = true
      this.timedOut = true
      this.timer = null
      this.ctrl.abort(new Error(`the call timed out after ${this.timeoutMs} ms`))
    }, ms)
  }
}
