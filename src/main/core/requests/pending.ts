// Pending human decisions: things an agent waits on until a person answers (access requests;
// confirmations of risky calls can use the same). Each item has an id, an optional time to live
// after which it expires, and waiters that get the answer, a timeout, or a cancellation. The
// first answer wins: answering twice, or after expiry, is refused, so exactly one decision lands.
import { EventEmitter } from 'node:events'
import { randomBytes } from 'node:crypto'

export type WaitResult<A> = { kind: 'answered'; answer: A } | { kind: 'timeout' } | { kind: 'cancelled' } | { kind: 'expired' }

interface Slot<A> {
  answer?: A
  expired?: boolean
  timer?: NodeJS.Timeout
  waiters: Set<(r: WaitResult<A>) => void>
}

export interface PendingEvents<T> {
  /** a new item waits */
  added: [T]
  /** an item was answered (the answer) or expired (undefined) */
  settled: [T, unknown]
}

/** A short random id with a prefix ("r_3k9…"): unguessable, so an agent cannot answer by guessing. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(9).toString('base64url')}`
}

export class PendingDecisions<T extends { id: string }, A> extends EventEmitter<PendingEvents<T>> {
  private readonly items = new Map<string, T>()
  private readonly slots = new Map<string, Slot<A>>()

  constructor(private readonly onExpire?: (item: T) => void) {
    super()
    this.setMaxListeners(0)
  }

  /** Adds an item that waits for an answer; it expires after `ttlMs` (none when undefined). */
  add(item: T, ttlMs?: number): T {
    const slot: Slot<A> = { waiters: new Set() }
    this.items.set(item.id, item)
    this.slots.set(item.id, slot)
    if (ttlMs !== undefined) {
      slot.timer = setTimeout(() => this.expire(item.id), ttlMs)
      slot.timer.unref?.()
    }
    this.emit('added', item)
    return item
  }

  get(id: string): T | undefined {
    return this.items.get(id)
  }

  isPending(id: string): boolean {
    const slot = this.slots.get(id)
    return slot !== undefined && slot.answer === undefined && !slot.expired
  }

  /** Every item still waiting, oldest first. */
  pending(): T[] {
    return [...this.items.values()].filter((i) => this.isPending(i.id))
  }

  /** Every item known (waiting or settled), oldest first. */
  all(): T[] {
    return [...this.items.values()]
  }

  /** Answers a waiting item: its waiters get `answer`. False when it is unknown, answered or expired. */
  answer(id: string, answer: A): boolean {
    const slot = this.slots.get(id)
    const item = this.items.get(id)
    if (!slot || !item || !this.isPending(id)) return false
    slot.answer = answer
    if (slot.timer) clearTimeout(slot.timer)
    for (const w of slot.waiters) w({ kind: 'answered', answer })
    slot.waiters.clear()
    this.emit('settled', item, answer)
    return true
  }

  /** Waits up to `ms` for the answer; an abort signal (the agent cancelled its request) ends the wait early. */
  wait(id: string, ms: number, signal?: AbortSignal): Promise<WaitResult<A>> {
    const slot = this.slots.get(id)
    if (!slot) return Promise.resolve({ kind: 'expired' })
    if (slot.answer !== undefined) return Promise.resolve({ kind: 'answered', answer: slot.answer })
    if (slot.expired) return Promise.resolve({ kind: 'expired' })
    if (signal?.aborted) return Promise.resolve({ kind: 'cancelled' })
    return new Promise((resolve) => {
      const done = (r: WaitResult<A>): void => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', onAbort)
        slot.waiters.delete(done)
        resolve(r)
      }
      const onAbort = (): void => done({ kind: 'cancelled' })
      const timer = setTimeout(() => done({ kind: 'timeout' }), ms)
      slot.waiters.add(done)
      signal?.addEventListener('abort', onAbort, { once: true })
    })
  }

  /** Forgets settled items beyond the newest `keep` (waiting ones are never dropped). */
  prune(keep: number): void {
    const settled = [...this.items.values()].filter((i) => !this.isPending(i.id))
    for (const i of settled.slice(0, Math.max(0, settled.length - keep))) {
      this.items.delete(i.id)
      this.slots.delete(i.id)
    }
  }

  private expire(id: string): void {
    const slot = this.slots.get(id)
    const item = this.items.get(id)
    if (!slot || !item || !this.isPending(id)) return
    slot.expired = true
    for (const w of slot.waiters) w({ kind: 'expired' })
    slot.waiters.clear()
    this.onExpire?.(item)
    this.emit('settled', item, undefined)
  }

  /** Ends every wait (Toolgate stops): waiters get "cancelled". */
  close(): void {
    for (const slot of this.slots.values()) {
      if (slot.timer) clearTimeout(slot.timer)
      for (const w of slot.waiters) w({ kind: 'cancelled' })
      slot.waiters.clear()
    }
  }
}
