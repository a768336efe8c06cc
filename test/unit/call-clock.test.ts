// The call's clock (upstream/call-clock.ts): it runs while the server works, stands still while a
// question of the call is open (at most the pause allowance in all), and aborts when it runs out.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { CallClock } from '../../src/main/core/upstream/call-clock'

describe('CallClock', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('runs out after its time when nothing is asked', () => {
    const c = new CallClock(3000, undefined, 60_000)
    vi.advanceTimersByTime(2999)
    expect(c.expired).toBe(false)
    vi.advanceTimersByTime(1)
    expect(c.expired).toBe(true)
  })

  it('stands still while a question is open, then runs on with the time that was left', () => {
    const c = new CallClock(3000, undefined, 60_000)
    vi.advanceTimersByTime(2000)
    const resume = c.pause()
    vi.advanceTimersByTime(30_000)
    expect(c.expired).toBe(false)
    expect(c.waited).toBe(30_000)
    resume()
    resume() // twice is once
    vi.advanceTimersByTime(999)
    expect(c.expired).toBe(false)
    vi.advanceTimersByTime(1)
    expect(c.expired).toBe(true)
  })

  it('two questions open at once pause once; the clock runs again when the last is answered', () => {
    const c = new CallClock(1000, undefined, 60_000)
    const a = c.pause()
    vi.advanceTimersByTime(500)
    const b = c.pause()
    vi.advanceTimersByTime(5000)
    a()
    vi.advanceTimersByTime(5000)
    expect(c.expired).toBe(false)
    b()
    vi.advanceTimersByTime(1000)
    expect(c.expired).toBe(true)
    expect(c.waited).toBe(10_500)
  })

  it('stands still at most the pause allowance in all, over several questions', () => {
    const c = new CallClock(1000, undefined, 10_000)
    const a = c.pause()
    vi.advanceTimersByTime(6000)
    a()
    const b = c.pause()
    // 4 s of allowance left, then the call's own 1 s
    vi.advanceTimersByTime(4999)
    expect(c.expired).toBe(false)
    vi.advanceTimersByTime(1)
    expect(c.expired).toBe(true)
    b()
    expect(c.signal.aborted).toBe(true)
  })

  it("follows the caller's signal, and is not expired then; once stopped it no longer listens", () => {
    const caller = new AbortController()
    const c = new CallClock(1000, caller.signal, 10_000)
    caller.abort(new Error('the agent cancelled'))
    expect(c.signal.aborted).toBe(true)
    expect(c.expired).toBe(false)
    const other = new AbortController()
    const d = new CallClock(1000, other.signal, 10_000)
    d.stop()
    other.abort()
    expect(d.signal.aborted).toBe(false)
  })

  it('leaves no timer behind once stopped', () => {
    const c = new CallClock(1000, undefined, 10_000)
    c.stop()
    expect(vi.getTimerCount()).toBe(0)
    c.pause()()
    expect(vi.getTimerCount()).toBe(0)
  })
})
