// The state store: state.json validated on load, changed through `update` only, written
// atomically with fsync, one write at a time. `update` resolves once the change is on disk,
// so an acknowledged change survives a kill -9. A file that fails validation is moved aside
// (kept), a warning is recorded, and the store fails closed (see State.fail_closed).
import fs from 'node:fs'
import path from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import { emptyState, StateSchema, type State } from './schema'
import { migrateToolHashes } from './migrate'

export class StateStore {
  private state: State
  private queue: Promise<void> = Promise.resolve()
  private dirty = false
  readonly warning: string | null = null
  /** the version the file had when it was loaded, when it was older than the current one (the core finishes the upgrade) */
  readonly migratedFrom: number | null = null

  constructor(readonly file: string) {
    const loaded = StateStore.read(file)
    this.state = loaded.state
    this.warning = loaded.warning
    if (loaded.state.version === 1) {
      migrateToolHashes(this.state)
      this.migratedFrom = 1
    }
    if (loaded.warning || this.migratedFrom !== null) this.writeNow()
  }

  private static read(file: string): { state: State; warning: string | null } {
    if (!fs.existsSync(file)) return { state: emptyState(), warning: null }
    let problem: string
    try {
      const parsed = StateSchema.safeParse(JSON.parse(fs.readFileSync(file, 'utf8')))
      if (parsed.success) return { state: parsed.data, warning: null }
      const i = parsed.error.issues[0]
      problem = `${i.message} at ${i.path.join('.') || '(top level)'}`
    } catch (e) {
      problem = (e as Error).message
    }
    const movedTo = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`
    fs.renameSync(file, movedTo)
    const state = emptyState()
    state.fail_closed = { since: new Date().toISOString(), moved_to: movedTo }
    return {
      state,
      warning: `state file ${file} was unreadable (${problem}); it was moved to ${movedTo}. Toolgate fails closed: tools without a fresh decision stay locked until you review them.`,
    }
  }

  /** A read-only view; never mutate it (use update). */
  get current(): Readonly<State> {
    return this.state
  }

  /**
   * Applies a change in memory at once (readers see it immediately) and resolves when it is on
   * disk. Changes are serialized: concurrent callers are written in order.
   */
  update(mutate: (s: State) => void): Promise<void> {
    mutate(this.state)
    this.dirty = true
    const next = this.queue.then(() => this.flush())
    this.queue = next.catch(() => {})
    return next
  }

  private async flush(): Promise<void> {
    if (!this.dirty) return
    this.dirty = false
    fs.mkdirSync(path.dirname(this.file), { recursive: true })
    await writeFileAtomic(this.file, JSON.stringify(this.state, null, 2) + '\n', { fsync: true, mode: 0o600 })
  }

  private writeNow(): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true })
    writeFileAtomic.sync(this.file, JSON.stringify(this.state, null, 2) + '\n', { fsync: true, mode: 0o600 })
  }

  /** Waits for every pending write. */
  async settle(): Promise<void> {
    await this.queue
  }
}
