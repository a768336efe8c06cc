// ConnectionStates tells listeners (the control event stream, the window) only about real changes:
// a call's lease announces the server's state again on every call, which must not become a
// servers.changed event per call.
import { describe, expect, it } from 'vitest'
import { ConnectionStates } from '../../src/main/core/upstream/states'

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
})
