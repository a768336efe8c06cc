// The coalescing of list_changed into re-lists (src/main/core/upstream/relist.ts):
// a burst costs at most one re-list per gap, the first is immediate, and the last notification
// is always followed by a re-list that starts after it.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { Relister } from '../../src/main/core/upstream/relist'

describe('Relister', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  /** A re-list that takes `ms` and records when it started (fake clock). */
  function counter(ms = 50) {
    const starts: number[] = []
    const run = async () => {
      starts.push(Date.now())
      await new Promise((r) => setTimeout(r, ms))
    }
    return { starts, run }
  }

  it('re-lists at once on the first notification', async () => {
    const c = counter()
    const r = new Relister(c.run, () => {}, 1000)
    r.request()
    expect(c.starts).toHaveLength(1)
    await vi.advanceTimersByTimeAsync(5000)
    expect(c.starts).toHaveLength(1)
  })

  it('200 notifications over 8 s cost at most one re-list per second, and one after the last', async () => {
    const c = counter(30)
    const r = new Relister(c.run, () => {}, 1000)
    const t0 = Date.now()
    let lastAt = 0
    for (let i = 0; i < 200; i++) {
      r.request()
      lastAt = Date.now()
      await vi.advanceTimersByTimeAsync(40) // 200 × 40 ms = 8 s
    }
    await vi.advanceTimersByTimeAsync(5000)
    expect(c.starts.length).toBeGreaterThanOrEqual(8)
    expect(c.starts.length).toBeLessThanOrEqual(10)
    for (let i = 1; i < c.starts.length; i++) expect(c.starts[i] - c.starts[i - 1]).toBeGreaterThanOrEqual(1000)
    // the change announced last is seen: a re-list started after it
    expect(c.starts[c.starts.length - 1]).toBeGreaterThanOrEqual(lastAt)
    expect(c.starts[0]).toBe(t0)
  })

  it('a notification during a slow re-list waits for the gap and for that re-list', async () => {
    const c = counter(2500)
    const r = new Relister(c.run, () => {}, 1000)
    r.request()
    await vi.advanceTimersByTimeAsync(100)
    r.request()
    r.request()
    await vi.advanceTimersByTimeAsync(2000)
    expect(c.starts).toHaveLength(1) // still running
    await vi.advanceTimersByTimeAsync(600)
    expect(c.starts).toHaveLength(2) // right after the first ended (its gap had passed)
    await vi.advanceTimersByTimeAsync(10_000)
    expect(c.starts).toHaveLength(2)
  })

  it('a failing re-list is reported and does not stop later ones; stop() cancels what waits', async () => {
    const errors: unknown[] = []
    let n = 0
    const r = new Relister(
      async () => {
        n++
        throw new Error(`boom ${n}`)
      },
      (e) => errors.push(e),
      1000,
    )
    r.request()
    await vi.advanceTimersByTimeAsync(10)
    r.request()
    await vi.advanceTimersByTimeAsync(1500)
    expect(n).toBe(2)
    expect(errors.map((e) => (e as Error).message)).toEqual(['boom 1', 'boom 2'])
    r.request()
    r.stop()
    await vi.advanceTimersByTimeAsync(5000)
    expect(n).toBe(2)
  })
})
