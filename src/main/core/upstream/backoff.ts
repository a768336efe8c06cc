// Exponential backoff with a crash-loop breaker, as a small pure state machine.
import type { BackoffOptions } from './types'

export class Backoff {
  private failures = 0

  constructor(private readonly opts: BackoffOptions) {}

  /** Consecutive failures so far. */
  get count(): number {
    return this.failures
  }

  /**
   * Record a failure. Returns the delay before the next attempt, or null when the breaker
   * trips (maxAttempts consecutive failures): stop retrying.
   */
  fail(): number | null {
    this.failures++
    if (this.failures >= this.opts.maxAttempts) return null
    return delayFor(this.failures, this.opts)
  }

  reset(): void {
    this.failures = 0
  }
}

/** Delay before attempt n (n = 1 after the first failure): initialMs · 2^(n-1), capped at maxMs. */
export function delayFor(n: number, opts: BackoffOptions): number {
  const exp = Math.min(n - 1, 30)
  return Math.min(opts.maxMs, opts.initialMs * 2 ** exp)
}
