// Which connection of a server has had its prompts listed into the catalog. A request that started a
// stopped on-demand server waits for that listing before the prompt is gated again: a prompt that
// changed while its server was stopped shows only in the listing after the start (docs/lifecycle.md).

export class ListedOn<C> {
  private listed: C | null = null
  private failed: C | null = null
  private readonly waiters = new Set<() => void>()

  /** The listing on `conn` is done (`ok`) or failed. */
  mark(conn: C, ok: boolean): void {
    if (ok) this.listed = conn
    else this.failed = conn
    this.wake()
  }

  /** Something changed (a listing ended, the connection went): waiters look again. */
  wake(): void {
    for (const w of [...this.waiters]) w()
  }

  /**
   * True once the connection `current()` names has been listed; false when there is none, its
   * listing failed, `timeoutMs` passed or `signal` aborted first.
   */
  wait(current: () => C | null, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const done = (): boolean => current() !== null && this.listed === current()
    const over = (): boolean => done() || current() === null || this.failed === current() || signal?.aborted === true
    if (over()) return Promise.resolve(done())
    return new Promise<boolean>((resolve) => {
      const finish = (): void => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', finish)
        this.waiters.delete(look)
        resolve(done())
      }
      const look = (): void => {
        if (over()) finish()
      }
      const timer = setTimeout(finish, timeoutMs)
      timer.unref()
      signal?.addEventListener('abort', finish, { once: true })
      this.waiters.add(look)
    })
  }
}
