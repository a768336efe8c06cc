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
