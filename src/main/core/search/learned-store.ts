// Learning from use, persisted: `<data-dir>/search-learned.json` (at most MAX_RECORDS records,
// written atomically a second after the last change), and the per-MCP-session recorder that pairs
// an agent's call with the retrieve_tools query it made just before (same session, within
// WINDOW_MS). Switched by the config key `search.learn`; cleared by the control API
// (DELETE /api/v1/search/learned) and `toolgate search --forget-learned`.
import fs from 'node:fs'
import writeFileAtomic from 'write-file-atomic'
import { z } from 'zod'
import type { Logger } from '../log'
import { LearnedUse, MAX_RECORDS } from './learned'

/** a call counts for the query of the last retrieve_tools in the same session within this window */
export const WINDOW_MS = 5 * 60_000
const SAVE_DELAY_MS = 1000

const FileSchema = z.object({
  version: z.literal(1),
  records: z
    .array(
      z.object({
        terms: z.array(z.string().max(200)).min(1).max(64),
        tool: z.string().min(1).max(500),
        count: z.number().int().min(1),
        last: z.number().finite(),
      }),
    )
    .max(MAX_RECORDS),
})

export class LearnedStore {
  readonly use: LearnedUse
  enabled = true
  private timer: NodeJS.Timeout | null = null
  private writing: Promise<void> = Promise.resolve()

  constructor(
    private readonly file: string,
    private readonly logger: Logger,
  ) {
    this.use = new LearnedUse(this.load())
  }

  private load(): z.infer<typeof FileSchema>['records'] {
    let text: string
    try {
      text = fs.readFileSync(this.file, 'utf8')
    } catch {
      return [] // none yet
    }
    try {
      return FileSchema.parse(JSON.parse(text)).records
    } catch (e) {
      this.logger.warn(`${this.file}: unreadable (${(e as Error).message.slice(0, 200)}); starting with no learned searches`)
      return []
    }
  }

  /** Remembers that `tool` was called after a search with these analyzed terms (when enabled). */
  record(terms: readonly string[], tool: string, now = Date.now()): void {
    if (!this.enabled) return
    this.use.record(terms, tool, now)
    this.schedule()
  }

  /** Forgets every learned search, on disk too; returns how many records there were. */
  async clear(): Promise<number> {
    const n = this.use.clear()
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    await this.save()
    return n
  }

  /** Writes pending changes now (at shutdown). */
  async flush(): Promise<void> {
    if (this.timer) {
      clearTimeout(this.timer)
      this.timer = null
      await this.save()
    }
    await this.writing
  }

  private schedule(): void {
    if (this.timer) return
    this.timer = setTimeout(() => {
      this.timer = null
      void this.save()
    }, SAVE_DELAY_MS)
    this.timer.unref()
  }

  private save(): Promise<void> {
    const text = JSON.stringify({ version: 1, records: this.use.records() })
    this.writing = this.writing
      .then(() => writeFileAtomic(this.file, text, { mode: 0o600 }))
      .catch((e: Error) => this.logger.warn(`could not write ${this.file}: ${e.message}`))
    return this.writing
  }
}

/** What one MCP session tells the store: its searches, then the tools it calls. */
export interface SessionRecorder {
  searched(terms: readonly string[]): void
  called(tool: string): void
}

export function sessionRecorder(store: LearnedStore, clock: () => number = Date.now): SessionRecorder {
  let last: { terms: readonly string[]; at: number } | null = null
  return {
    searched(terms) {
      last = { terms, at: clock() }
    },
    called(tool) {
      const now = clock()
      if (last && now - last.at <= WINDOW_MS) store.record(last.terms, tool, now)
    },
  }
}
