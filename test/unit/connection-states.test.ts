// ConnectionStates tells listeners (the control event stream, the window) only about real changes:
// a call's lease announces the server's state again on every call, which must not become a
// servers.changed event per call.
import { afterEach, describe, expect, it, vi } from 'vitest'
import { ConnectionStates, IDLE_CLOCK_TELL_MS } from '../../src/main/core/upstream/states'

describe('ConnectionStates', () => {
  const connected = { state: 'connected' as const, lastError: null, attempt: 0, protocolVersion: '2025-11-25', idleStopAt: null }

  it('emits changed once when the same state is announced again', () => {
    const states = new ConnectionStates()
    const seen: string[][] = []
    states.on('changed', (s) => seen.push(s))
    states.set('gh', connected)
    states.set('gh', { ...connected })
    states.set('gh', { ...connected, idleStopAt: undefined })
    expect(seen).toEqual([['gh']])
    expect(states.of('gh').state).toBe('connected')
  })

  it('emits changed for every field that differs', () => {
    const states = new ConnectionStates()
    const seen: string[][] = []
    states.on('changed', (s) => seen.push(s))
    states.set('gh', connected)
    states.set('gh', { ...connected, idleStopAt: 1000 })
    states.set('gh', { ...connected, idleStopAt: 1000, protocolVersion: '2026-07-28' })
    states.set('gh', { ...connected, idleStopAt: 1000, protocolVersion: '2026-07-28', attempt: 1 })
    states.set('gh', { ...connected, idleStopAt: 1000, protocolVersion: '2026-07-28', attempt: 1, lastError: 'boom' })
    states.set('gh', { ...connected, idleStopAt: 1000, protocolVersion: '2026-07-28', attempt: 1, lastError: 'boom', state: 'error' })
    expect(seen).toHaveLength(6)
    expect(states.of('gh')).toMatchObject({ state: 'error', lastError: 'boom', attempt: 1, protocolVersion: '2026-07-28', idleStopAt: 1000 })
  })

  it('a server announced for the first time is a change, even when it reads stopped', () => {
    const states = new ConnectionStates()
    const seen: string[][] = []
    states.on('changed', (s) => seen.push(s))
    states.set('new', { state: 'stopped', lastError: null, attempt: 0, protocolVersion: null })
    states.forget('new')
    expect(seen).toEqual([['new'], ['new']])
  })

  describe('the idle clock', () => {
    afterEach(() => {
      vi.useRealTimers()
    })

    it('is recorded at once but told at most once a second per server: calls in a row are one event, not two per call', () => {
      vi.useFakeTimers()
      const states = new ConnectionStates()
      const seen: string[][] = []
      states.on('changed', (s) => seen.push(s))
      states.set('gh', { ...connected, idleStopAt: 5000 })
      states.set('other', { ...connected, idleStopAt: 5000 })
      expect(seen).toEqual([['gh'], ['other']])
      // a call: the clock stops, then runs again from the end of the call; the first change is told at once
      states.set('gh', { ...connected, idleStopAt: null })
      expect(seen).toHaveLength(3)
      states.set('gh', { ...connected, idleStopAt: 6000 })
      // 100 more calls within the second: each is read at once, none is told yet
      for (let i = 0; i < 100; i++) {
        states.set('gh', { ...connected, idleStopAt: null })
        states.set('gh', { ...connected, idleStopAt: 7000 + i })
        expect(states.of('gh').idleStopAt).toBe(7000 + i)
      }
      // another server's clock is its own
      states.set('other', { ...connected, idleStopAt: null })
      expect(seen).toEqual([['gh'], ['other'], ['gh'], ['other']])
      vi.advanceTimersByTime(IDLE_CLOCK_TELL_MS)
      expect(seen).toEqual([['gh'], ['other'], ['gh'], ['other'], ['gh']])
      // quiet afterwards: nothing more is told
      vi.advanceTimersByTime(10 * IDLE_CLOCK_TELL_MS)
      expect(seen).toHaveLength(5)
      // a second later, the next change is told at once again
      states.set('gh', { ...connected, idleStopAt: null })
      expect(seen).toHaveLength(6)
    })

    it('never holds back a change of the state itself, and that telling covers a clock change held back', () => {
      vi.useFakeTimers()
      const states = new ConnectionStates()
      const seen: string[][] = []
      states.on('changed', (s) => seen.push(s))
      states.set('gh', { ...connected, idleStopAt: 5000 })
      states.set('gh', { ...connected, idleStopAt: null })
      states.set('gh', { ...connected, idleStopAt: 6000 })
      expect(seen).toHaveLength(2)
      states.set('gh', { ...connected, state: 'error', lastError: 'boom', idleStopAt: null })
      expect(seen).toHaveLength(3)
      expect(states.of('gh')).toMatchObject({ state: 'error', lastError: 'boom', idleStopAt: null })
      vi.advanceTimersByTime(5 * IDLE_CLOCK_TELL_MS)
      expect(seen).toHaveLength(3)
    })

    it('a server forgotten while a clock change waits is not told about again', () => {
      vi.useFakeTimers()
      const states = new ConnectionStates()
      const seen: string[][] = []
      states.on('changed', (s) => seen.push(s))
      states.set('gh', { ...connected, idleStopAt: 5000 })
      states.set('gh', { ...connected, idleStopAt: null })
      states.set('gh', { ...connected, idleStopAt: 6000 })
      states.forget('gh')
      expect(seen).toEqual([['gh'], ['gh'], ['gh']])
      vi.advanceTimersByTime(5 * IDLE_CLOCK_TELL_MS)
      expect(seen).toHaveLength(3)
      expect(states.of('gh').state).toBe('stopped')
    })
  })
})
