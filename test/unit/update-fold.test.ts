// UpdateFolder (agent-server/update-fold.ts): a URI's updates at most once per UPDATE_EVERY_MS,
// gated when each comes and again when the folded one is told.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { UpdateFolder } from '../../src/main/core/agent-server/update-fold'

describe('UpdateFolder', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('tells the first at once and a burst as one a second later, per URI', () => {
    const told: string[] = []
    const f = new UpdateFolder(
      () => true,
      (uri) => void told.push(uri),
    )
    for (let i = 0; i < 5000; i++) f.push('u:a')
    f.push('u:b')
    expect(told).toEqual(['u:a', 'u:b'])
    vi.advanceTimersByTime(999)
    expect(told).toEqual(['u:a', 'u:b'])
    vi.advanceTimersByTime(1)
    expect(told).toEqual(['u:a', 'u:b', 'u:a'])
    vi.advanceTimersByTime(5000)
    expect(told).toHaveLength(3)
  })

  it('does not tell a folded change the agent may no longer hear when it is due', () => {
    let may = true
    const told: string[] = []
    const f = new UpdateFolder(
      () => may,
      (uri) => void told.push(uri),
    )
    f.push('u:a')
    f.push('u:a')
    may = false
    vi.advanceTimersByTime(1000)
    expect(told).toEqual(['u:a'])
  })

  it('does not tell a change that came while the agent might not hear it, even if it may when due', () => {
    let may = true
    const told: string[] = []
    const f = new UpdateFolder(
      () => may,
      (uri) => void told.push(uri),
    )
    f.push('u:a')
    may = false
    f.push('u:a')
    may = true
    vi.advanceTimersByTime(2000)
    expect(told).toEqual(['u:a'])
  })

  it('tells nothing after stop', () => {
    const told: string[] = []
    const f = new UpdateFolder(
      () => true,
      (uri) => void told.push(uri),
    )
    f.push('u:a')
    f.push('u:a')
    f.stop()
    vi.advanceTimersByTime(2000)
    f.push('u:a')
    expect(told).toEqual(['u:a'])
  })
})

describe('UpdateFolder: many URIs', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  /** How many map entries `fn` walks (every for…of over a Map, the folder's forgetting included). */
  function entriesWalked(fn: () => void): number {
    const proto = Map.prototype as unknown as Record<symbol, (this: Map<unknown, unknown>) => Iterator<unknown>>
    const original = proto[Symbol.iterator]
    let walked = 0
    proto[Symbol.iterator] = function (this: Map<unknown, unknown>) {
      const it = original.call(this)
      return {
        next: () => {
          const r = it.next()
          if (!r.done) walked++
          return r
        },
        [Symbol.iterator]() {
          return this
        },
      } as Iterator<unknown>
    }
    try {
      fn()
    } finally {
      proto[Symbol.iterator] = original
    }
    return walked
  }

  it('attack: updates of thousands of URIs in one second cost work in step with their number, not its square', () => {
    // a 2026-07-28 agent may listen to 20,000 URIs (resource-subscribe.ts), and every stream's folder
    // gets every published update: each new URI walked all the URIs of that second to forget old
    // ones (none is old yet), 5,000 URIs were 12.5 million steps, 20,000 took ~2 s of the main thread
    const n = 5000
    const told: string[] = []
    const f = new UpdateFolder(
      () => true,
      (uri) => void told.push(uri),
    )
    const walked = entriesWalked(() => {
      for (let i = 0; i < n; i++) f.push(`u:${i}`)
    })
    expect(told).toHaveLength(n)
    expect(walked).toBeLessThan(4 * n)
    f.stop()
  })

  it('still forgets URIs told long ago: a server naming new URIs every second does not grow it for good', () => {
    const f = new UpdateFolder(
      () => true,
      () => undefined,
    )
    const size = (): number => (f as unknown as { entries: Map<string, unknown> }).entries.size
    let most = 0
    for (let s = 0; s < 100; s++) {
      for (let i = 0; i < 300; i++) f.push(`u:${s}:${i}`)
      most = Math.max(most, size())
      vi.advanceTimersByTime(1001)
    }
    // 30,000 URIs over 100 s: at most the URIs of about two seconds are remembered at once
    expect(most).toBeLessThan(1500)
    f.stop()
  })
})
