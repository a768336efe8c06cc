// The state store: state.json validated on load, changed through `update` only, written
// atomically with fsync, one write at a time. `update` resolves once the change is on disk,
// so an acknowledged change survives a kill -9. Every successful write also writes the last good
// copy beside it (state.last-good.json). A file that fails validation is moved aside (kept), a
// warning is recorded, and the store fails closed (also when state.json is missing but its last
// good copy is not: it was deleted while Toolgate was stopped) (see State.fail_closed): the locks (user
// quarantine, agent-added review, user-disabled and rejected tools, "Ask me before each call") come back from the last good copy, and
// without one every server the config does not trust is held. A file that parses but was
// replaced or emptied behind Toolgate's back (it lost decisions its last good copy holds, or holds
// none while servers ran: tamper.ts) fails closed the same way. If state.json disappears or is
// changed while Toolgate runs, it is written again from memory (watchForLoss).
import fs from 'node:fs'
import { parseOnce } from '../../../shared/parse-once'
import path from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import { Deferred } from '../../../shared/deferred'
import { emptyState, stateSchema, type State } from './schema'
import { migrateToolHashes } from './migrate'
import { grantLocks } from './grant-undo'
import { ranWithoutDecisions, readText, replacedStateProblem, sha256 } from './tamper'
import { watchFolders } from '../config/watch-filter'

/** after a change event, both state files are looked at once more this much later (watchForLoss) */
const RECHECK_MS = 300

/**
 * How long a change made with `batch` may wait for others to join its write. A start brings one
 * change per server (its tools' baseline) as each connects, a few ms apart, and each write of the
 * two files costs ~1–2.5 ms of CPU (two new files, two fsyncs, two renames): 13–39 writes in a
 * 50-server start before, a few now.
 */
export const BATCH_MS = 500

export class StateStore {
  private state: State
  private queue: Promise<void> = Promise.resolve()
  private dirty = false
  /** the write that changes made with `batch` wait for, while it waits */
  private batch: { done: Promise<void>; now: () => void } | null = null
  /** why the state was not taken as it was at start, or that it was changed behind Toolgate's back since */
  warning: string | null = null
  /** the version the file had when it was loaded, when it was older than the current one (the core finishes the upgrade) */
  readonly migratedFrom: number | null = null

  /** the last good copy, written after every successful write of `file` */
  readonly backupFile: string

  /**
   * The SHA-256 of the text last written (or loaded): the next write names it as its predecessor,
   * and a file that hashes alike is Toolgate's own write. Only the hash is kept: the text grows
   * with every server and tool (a hash per tool) and would stay in the heap for as long as Toolgate runs.
   */
  private writtenSha: string | null = null

  constructor(readonly file: string) {
    this.backupFile = lastGoodPath(file)
    const loaded = StateStore.read(file, this.backupFile)
    this.state = loaded.state
    this.warning = loaded.warning
    if (!loaded.warning) this.writtenSha = shaOf(readText(file))
    if (loaded.state.version === 1) {
      migrateToolHashes(this.state)
      this.migratedFrom = 1
    }
    if (loaded.warning || this.migratedFrom !== null) this.writeNow()
  }

  private static read(file: string, backupFile: string): { state: State; warning: string | null } {
    let problem: string
    let movedTo: string
    // a state that parses but cannot be trusted: its own locks still hold
    let suspect: State | null = null
    const stamp = new Date().toISOString().replace(/[:.]/g, '-')
    if (!fs.existsSync(file)) {
      // A first start has neither file. state.json gone while its last good copy is still there
      // was deleted while Toolgate was stopped: a loss, never a fresh start (a fresh start would
      // take whatever the upstreams serve now as the new baseline and forget the user's locks).
      // Both gone while catalog.json shows servers that ran: deleted too.
      const ran = fs.existsSync(backupFile) ? null : ranWithoutDecisions(path.dirname(file))
      if (!fs.existsSync(backupFile) && !ran) return { state: emptyState(), warning: null }
      problem = ran ? `missing with its last good copy, while ${ran}` : 'missing, while its last good copy is there'
      movedTo = '(missing)'
    } else {
      const loaded = parseStateFile(file)
      const replaced = 'state' in loaded ? replacedStateProblem(loaded.state, file, backupFile) : null
      if ('state' in loaded && !replaced) return { state: loaded.state, warning: null }
      if ('state' in loaded) suspect = loaded.state
      problem = replaced ?? ('problem' in loaded ? loaded.problem : '')
      movedTo = `${file}.${suspect ? 'suspect' : 'corrupt'}-${stamp}`
      fs.renameSync(file, movedTo)
    }
    const state = emptyState()
    const backup = fs.existsSync(backupFile) ? parseStateFile(backupFile) : { problem: 'missing' }
    const restored = 'state' in backup
    state.fail_closed = { since: new Date().toISOString(), moved_to: movedTo, restored_locks: restored }
    if (restored) restoreLocks(state, backup.state)
    if (suspect) restoreLocks(state, suspect)
    const what = suspect ? 'cannot be trusted' : 'was unreadable'
    return {
      state,
      warning:
        `state file ${file} ${what} (${problem})${movedTo === '(missing)' ? '' : `; it was moved to ${movedTo}`}. Toolgate fails closed: tools without a fresh decision stay locked until you review them` +
        (restored
          ? `; servers and tools you had locked or put in quarantine stay so (restored from ${backupFile}).`
          : `; the last good copy ${backupFile} was unreadable too (${backup.problem}), so every server the config does not mark "quarantined": false stays in quarantine until you approve it.`),
    }
  }

  /** A read-only view; never mutate it (use update). */
  get current(): Readonly<State> {
    return this.state
  }

  /**
   * Applies a change in memory at once (readers see it immediately) and resolves when it is on
   * disk. Changes are serialized: concurrent callers are written in order. `batch`: the write may
   * wait up to BATCH_MS for other changes to join it (one that nobody waits on, made while more of
   * the same kind are coming: the baselines of the servers of a start); any change without it,
   * and settle(), write it at once.
   */
  update(mutate: (s: State) => void, o: { batch?: boolean } = {}): Promise<void> {
    mutate(this.state)
    this.dirty = true
    if (o.batch) return this.batched()
    return this.enqueue()
  }

  private enqueue(): Promise<void> {
    const next = this.queue.then(() => this.flush())
    this.queue = next.catch(() => {})
    return next
  }

  private batched(): Promise<void> {
    if (!this.batch) {
      const gate = new Deferred()
      // unref: a batch that waits never holds the process open (a stop writes it at once: settle())
      const timer = setTimeout(() => gate.resolve(), BATCH_MS).unref()
      const done = gate.promise.then(() => {
        this.batch = null
        // (a write without batch meanwhile took these changes along: this one finds nothing to write)
        return this.enqueue()
      })
      this.batch = {
        done,
        now: () => {
          clearTimeout(timer)
          gate.resolve()
        },
      }
    }
    return this.batch.done
  }

  private async flush(): Promise<void> {
    if (!this.dirty) return
    this.dirty = false
    fs.mkdirSync(path.dirname(this.file), { recursive: true })
    const text = this.nextText()
    await writeFileAtomic(this.file, text, { fsync: true, mode: 0o600 })
    await writeFileAtomic(this.backupFile, text, { fsync: true, mode: 0o600 })
    // every change is on disk: those waiting for a batch need not wait for its time
    if (!this.dirty) this.batch?.now()
  }

  /** The state's text for the next write, chained to the text written before it (prev_sha256, tamper.ts); remembered as written. */
  private nextText(): string {
    if (this.writtenSha !== null) this.state.prev_sha256 = this.writtenSha
    const text = JSON.stringify(this.state, null, 2) + '\n'
    this.writtenSha = sha256(text)
    return text
  }

  private writeNow(): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true })
    const text = this.nextText()
    writeFileAtomic.sync(this.file, text, { fsync: true, mode: 0o600 })
    writeFileAtomic.sync(this.backupFile, text, { fsync: true, mode: 0o600 })
  }

  /**
   * Writes state.json and its last good copy again from memory when either disappears or is
   * changed behind Toolgate's back while it runs (otherwise a restart would load what was written
   * there, e.g. `{"version":2}`, and take a rug-pulled tool as the new baseline). Toolgate's own
   * writes are recognised by their text. Returns a stop function.
   */
  watchForLoss(onRewrite: (file: string, how: 'deleted' | 'changed') => void = () => undefined): () => Promise<void> {
    const ours = [this.file, this.backupFile]
    const verify = (file: string): void => {
      const now = readText(file)
      if (shaOf(now) === this.writtenSha) return
      this.writeNow()
      if (now !== null)
        this.warning = `${file} was changed behind Toolgate's back at ${new Date().toISOString()}; it was written again from memory (your decisions are kept).`
      onRewrite(file, now === null ? 'deleted' : 'changed')
    }
    // an event for either file checks both, after the write under way, and once more a moment
    // later (a second look costs two reads; it was needed when chokidar throttled a second change
    // right after our own rewrite, and stays as a margin)
    let again: NodeJS.Timeout | null = null
    const check = (): void => {
      void this.queue.then(() => ours.forEach(verify))
      if (again) clearTimeout(again)
      again = setTimeout(() => {
        again = null
        void this.queue.then(() => ours.forEach(verify))
      }, RECHECK_MS)
      again.unref()
    }
    const watch = watchFolders(ours, check, { ready: false })
    return () => {
      if (again) clearTimeout(again)
      return watch.close()
    }
  }

  /** Writes what waits for a batch now, and waits for every pending write. */
  async settle(): Promise<void> {
    const waiting = this.batch
    waiting?.now()
    await waiting?.done.catch(() => {})
    await this.queue
  }
}

/** The SHA-256 of a file's text, or null for no file. */
function shaOf(text: string | null): string | null {
  return text === null ? null : sha256(text)
}

/** `state.json` → `state.last-good.json` beside it. */
export function lastGoodPath(file: string): string {
  return path.join(path.dirname(file), `${path.basename(file, '.json')}.last-good.json`)
}

function parseStateFile(file: string): { state: State } | { problem: string } {
  try {
    const parsed = parseOnce(stateSchema(), JSON.parse(fs.readFileSync(file, 'utf8')))
    if (parsed.success) return { state: parsed.data }
    const i = parsed.error.issues[0]
    return { problem: `${i.message} at ${i.path.join('.') || '(top level)'}` }
  } catch (e) {
    return { problem: (e as Error).message }
  }
}

/** Only what locks: a restored lock can never let anything run that would not run anyway. */
function restoreLocks(into: State, from: State): void {
  for (const [name, rec] of Object.entries(from.servers)) {
    if (rec.user_quarantined) into.servers[name] = { ...into.servers[name], user_quarantined: true }
    if (rec.needs_review) into.servers[name] = { ...into.servers[name], needs_review: true }
  }
  for (const [id, rec] of Object.entries(from.tools)) {
    if (rec.user_disabled) into.tools[id] = { ...into.tools[id], user_disabled: true }
    if (rec.rejected?.length) into.tools[id] = { ...into.tools[id], rejected: rec.rejected }
  }
  // "Ask me before each call" only ever holds a call back: restoring it lets nothing run
  for (const [name, rec] of Object.entries(from.servers)) if (rec.confirm) into.servers[name] = { ...into.servers[name], confirm: true }
  for (const [id, rec] of Object.entries(from.tools)) if (rec.confirm) into.tools[id] = { ...into.tools[id], confirm: true }
  // what a time-boxed grant had lifted is locked again; a timed server enable still ends on time
  grantLocks(into, from)
}
