// Live updates: each core event names what changed; the events of a burst are gathered into one
// refresh of exactly that (the servers named, the app info, the requests, …). An action in the
// window does not refresh anything itself: it waits for the refresh its own change brought.
import type { ApiEvent } from '../../shared/api'

/** What the events since the last refresh name. */
export interface Due {
  /** everything: the config was read again, or events may have been missed */
  all: boolean
  /** the app info (config error and warnings, the secret store) */
  info: boolean
  /** servers whose state, counts, grants or tools changed */
  servers: Set<string>
  requests: boolean
  confirmations: boolean
  /** upstream questions waiting for the user */
  questions: boolean
  secrets: boolean
}

export const nothingDue = (): Due => ({ all: false, info: false, servers: new Set(), requests: false, confirmations: false, questions: false, secrets: false })

/** Adds what one event names to `due`; true when it should be shown at once (a call waits for the user). */
export function addDue(due: Due, ev: ApiEvent): boolean {
  switch (ev.type) {
    case 'servers.changed':
    case 'tools.changed':
      for (const s of ev.data.servers) due.servers.add(s)
      return false
    case 'grant.ended':
      due.servers.add(ev.data.server)
      return false
    case 'config.reloaded':
      due.all = true
      due.info = true
      if ('reconnected' in ev.data) {
        due.requests = true
        due.confirmations = true
        due.questions = true
      }
      return false
    case 'config.error':
      due.info = true
      return false
    case 'secrets.changed':
      due.info = true
      due.secrets = true
      return false
    case 'requests.changed':
      due.requests = true
      return false
    case 'confirmations.changed':
      due.confirmations = true
      return true
    case 'question':
      due.questions = true
      return true
    case 'activity':
      return false
  }
}

export interface LiveOptions {
  /** how long a burst of events gathers before its refresh */
  delayMs: number
  /** how long an action waits for an event before it takes it that nothing changed */
  settleMs: number
  refresh(due: Due): Promise<void>
}

export class LiveUpdates {
  private due = nothingDue()
  private timer: ReturnType<typeof setTimeout> | null = null
  private urgent = false
  /** events received, and events whose refresh is done */
  private received = 0
  private done = 0
  private readonly waiters = new Set<() => void>()
  private stopped = false

  constructor(private readonly o: LiveOptions) {}

  /** One event: gathered into the next refresh. */
  note(ev: ApiEvent): void {
    if (this.stopped || ev.type === 'activity') return
    const urgent = addDue(this.due, ev)
    this.received++
    if (urgent && !this.urgent && this.timer) {
      clearTimeout(this.timer)
      this.timer = null
    }
    this.urgent ||= urgent
    this.timer ??= setTimeout(() => void this.run(), this.urgent ? 0 : this.o.delayMs)
  }

  /** Taken before an action; `settled(mark)` after it waits for the refresh of what it changed. */
  mark(): number {
    return this.received
  }

  /** Resolves once a refresh has covered an event that came after `mark`, or after settleMs when none came (nothing changed). */
  settled(mark: number): Promise<void> {
    return new Promise((resolve) => {
      const finish = (): void => {
        clearTimeout(quiet)
        this.waiters.delete(check)
        resolve()
      }
      const check = (): void => {
        if (this.stopped || this.done > mark) finish()
      }
      const quiet = setTimeout(() => {
        if (this.received === mark) finish()
      }, this.o.settleMs)
      this.waiters.add(check)
      check()
    })
  }

  stop(): void {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    for (const w of [...this.waiters]) w()
  }

  private async run(): Promise<void> {
    this.timer = null
    this.urgent = false
    const upTo = this.received
    const due = this.due
    this.due = nothingDue()
    try {
      await this.o.refresh(due)
    } finally {
      this.done = Math.max(this.done, upTo)
      for (const w of [...this.waiters]) w()
    }
  }
}
