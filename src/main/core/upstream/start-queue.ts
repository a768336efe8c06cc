// The servers whose start is scheduled, started a few per turn of the event loop (setImmediate):
// spawning a process blocks for a few ms, and 70 spawns in one go kept the process from answering
// `initialize` for seconds. All of them still start at once: none waits for another to connect.
// The sandbox plans of one turn share what they read of the filesystem (plan-facts.ts): each plan
// asks about the same ~100 paths.
import type { ServerSlot, StartReason } from './lifecycle'
import { sharePlanFacts } from './sandbox'

/**
 * How many queued servers start in one turn of the event loop (their sandbox plans share one look
 * at the filesystem). More spawns each boot slower on a busy machine: with 8, the first of 70
 * sandboxed servers was ready seconds later and startup.test's retrieve_tools found none in its 3 s.
 */
const STARTS_PER_TURN = 4

export class StartQueue {
  private readonly queued = new Map<string, { slot: ServerSlot; reason: StartReason }>()
  private draining = false

  constructor(
    /** starts one server (it takes it off the queue) */
    private readonly start: (slot: ServerSlot, reason: StartReason) => void,
    /** Toolgate stops: nothing more starts */
    private readonly stopped: () => boolean,
  ) {}

  /** Schedules the start of `slot` (drain() starts it). */
  add(slot: ServerSlot, reason: StartReason): void {
    this.queued.set(slot.cfg.name, { slot, reason })
  }

  has(name: string): boolean {
    return this.queued.has(name)
  }

  /** The slot queued under `name`, if any. */
  slot(name: string): ServerSlot | undefined {
    return this.queued.get(name)?.slot
  }

  delete(name: string): void {
    this.queued.delete(name)
  }

  get size(): number {
    return this.queued.size
  }

  clear(): void {
    this.queued.clear()
  }

  /** Starts the queued servers, STARTS_PER_TURN per turn of the event loop. */
  drain(): void {
    if (this.draining || this.stopped() || this.queued.size === 0) return
    this.draining = true
    setImmediate(() => {
      this.draining = false
      sharePlanFacts(() => {
        for (let n = 0; n < STARTS_PER_TURN && !this.stopped(); n++) {
          const next = this.queued.values().next()
          if (next.done) break
          this.start(next.value.slot, next.value.reason)
        }
      })
      this.drain()
    })
  }
}
