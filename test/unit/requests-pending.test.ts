// The pending-decisions core (src/main/core/requests/pending.ts) that access requests use and
// confirmations can reuse: the first answer wins, waiters get the answer, a timeout, a
// cancellation or the expiry, and nothing is answered twice.
import { describe, expect, it } from 'vitest'
import { PendingDecisions, newId } from '../../src/main/core/requests/pending'
import { waitFor } from '../helpers/wait'

type Item = { id: string; what: string }

describe('pending human decisions', () => {
  it('every waiter gets the first answer; a second answer is refused', async () => {
    const q = new PendingDecisions<Item, string>()
    const item = q.add({ id: newId('t'), what: 'x' })
    const a = q.wait(item.id, 10_000)
    const b = q.wait(item.id, 10_000)
    expect(q.answer(item.id, 'allow')).toBe(true)
    expect(q.answer(item.id, 'deny')).toBe(false)
    expect(await a).toEqual({ kind: 'answered', answer: 'allow' })
    expect(await b).toEqual({ kind: 'answered', answer: 'allow' })
    expect(await q.wait(item.id, 10)).toEqual({ kind: 'answered', answer: 'allow' })
    expect(q.pending()).toEqual([])
  })

  it('a wait times out, an aborted wait is cancelled, and the item still waits for its answer', async () => {
    const q = new PendingDecisions<Item, string>()
    const item = q.add({ id: newId('t'), what: 'x' })
    expect(await q.wait(item.id, 30)).toEqual({ kind: 'timeout' })
    const ac = new AbortController()
    const w = q.wait(item.id, 10_000, ac.signal)
    ac.abort()
    expect(await w).toEqual({ kind: 'cancelled' })
    expect(q.isPending(item.id)).toBe(true)
  })

  it('an item expires after its time to live: waiters are told, the expiry hook runs, answering is refused', async () => {
    const expired: string[] = []
    const q = new PendingDecisions<Item, string>((i) => expired.push(i.id))
    const item = q.add({ id: newId('t'), what: 'x' }, 50)
    expect(await q.wait(item.id, 10_000)).toEqual({ kind: 'expired' })
    await waitFor(() => expired.length === 1)
    expect(q.answer(item.id, 'allow')).toBe(false)
  })

  it('ids are unguessable and distinct; prune keeps waiting items', () => {
    const ids = new Set(Array.from({ length: 1000 }, () => newId('r')))
    expect(ids.size).toBe(1000)
    const q = new PendingDecisions<Item, string>()
    const keep = q.add({ id: 'a', what: 'waiting' })
    for (let i = 0; i < 5; i++) {
      q.add({ id: `s${i}`, what: 'settled' })
      q.answer(`s${i}`, 'ok')
    }
    q.prune(2)
    expect(q.all().map((i) => i.id)).toEqual([keep.id, 's3', 's4'])
  })
})
