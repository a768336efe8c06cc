// The config of a running core: the user's file with the organisation's policy applied, read at
// build, reloaded on the operator's edits of the file (each change recorded as their decision), on
// Toolgate's own writes (already recorded) and when the policy file changes. A reload that fails
// keeps the last good config and says why (the log, the window, config.error).
import type { ApiEvent } from '../../../shared/api'
import type { Config } from '../../../shared/config-schema'
import { configDecisions } from '../activity/config-decisions'
import type { DecisionRecord } from '../activity/recorder'
import { loadConfigFile, skippedMessage, type ConfigError } from '../config/load'
import { applyPolicy, policyLocation, readPolicy, type PolicyState } from '../config/policy'
import { watchPolicy } from '../config/policy-watch'
import { configReloader, type ConfigReloader, type ConfigWatcher } from '../config/watch'
import type { Logger } from '../log'

/** The parts of the core a config reaches. */
export interface ConfigParts {
  logger: Logger
  emit(event: ApiEvent): void
  /** `next` replaces `before`: what ends with a server removed ends now (the effective config is still `before`) */
  retire(before: Config, next: Config): void
  /** the effective config is `next` now: the parts take it */
  apply(next: Config): void
  /** one change of the operator's edit of the file, for the activity record */
  operatorDecision(d: DecisionRecord): void
}

export class LiveConfig {
  /** the user's config as written */
  private user: Config
  private policy: PolicyState | null
  /** the effective config (the policy applied) */
  private config: Config
  /** what the last reload said was wrong; null after a good one */
  private failed: string | null = null
  /** the text loaded at build: the reloader's starting point */
  private readonly text: string
  private reloader: ConfigReloader | null = null
  private parts: ConfigParts | null = null
  /** a reload of Toolgate's own write is running */
  private ownWrite = false
  private watcher: ConfigWatcher | null = null
  private policyWatcher: { close(): Promise<void> } | null = null

  /** Loads the file; one that does not parse, or whose mistake is outside a server entry, throws ConfigError (the CLI exits 2). */
  constructor(
    readonly path: string,
    /** a mistake inside a server entry leaves that server out instead of failing */
    private readonly lenient: boolean,
  ) {
    const loaded = loadConfigFile(path, { lenient })
    this.user = loaded.config
    this.text = loaded.text
    this.policy = readPolicy(policyLocation())
    this.config = applyPolicy(this.user, this.policy)
  }

  /** The effective config now. */
  get current(): Config {
    return this.config
  }

  /** A reload that failed, else the entries left out at build (until the file is fixed). */
  problem(): string | null {
    return this.failed ?? (this.config.skipped.length ? `${this.path}: ${skippedMessage(this.config.skipped)}` : null)
  }

  /** A reload that failed (null after a good one). */
  get reloadError(): string | null {
    return this.failed
  }

  /** Says whether the organisation's policy applies (or why it cannot be used). */
  logPolicy(logger: Logger, p: PolicyState | null = this.policy): void {
    if (!p) return
    if (p.error) logger.error({ file: p.file }, `your organisation's policy file cannot be used, so no server runs until it is fixed: ${p.error}`)
    else logger.info({ file: p.file }, "your organisation's policy applies")
  }

  /** From now on reloads reach `parts`. */
  attach(parts: ConfigParts): void {
    this.parts = parts
    // the text just loaded is the reloader's starting point: a server entry left out at start is not reported again as a reload error
    this.reloader = configReloader(
      this.path,
      { onConfig: (next) => this.onConfig(next), onError: (err) => this.onError(err) },
      { initialText: this.text, lenient: this.lenient },
    )
  }

  /** Toolgate wrote the config itself: reload it; the watch's event that follows finds nothing new (one edit, one reload). */
  reloadOwnWrite(): void {
    this.ownWrite = true
    try {
      this.reloader?.reloadNow()
    } finally {
      this.ownWrite = false
    }
  }

  /** The file changed on disk: reload it as the watcher does (the edit is the operator's decision). */
  fileChanged(): void {
    this.reloader?.reloadNow()
  }

  /** Watches the file and the organisation's policy (a policy that becomes invalid blocks every server). */
  watch(): void {
    this.watcher = this.reloader?.watch() ?? null
    this.policyWatcher = watchPolicy(this.policy, (next) => {
      this.policy = next
      const logger = this.parts?.logger
      if (logger) this.logPolicy(logger, next)
      if (!next) logger?.info("your organisation's policy file is gone; the user's config applies as written")
      this.apply(applyPolicy(this.user, this.policy))
    })
  }

  async close(): Promise<void> {
    await this.watcher?.close()
    await this.policyWatcher?.close()
  }

  private apply(next: Config): void {
    const parts = this.parts
    if (!parts) return
    parts.retire(this.config, next)
    this.config = next
    this.failed = null
    parts.apply(next)
    parts.logger.info({ servers: next.servers.length }, 'config loaded')
    if (next.warnings.length) parts.logger.warn(`${this.path}: ignoring unknown key(s) ${next.warnings.join(', ')} (typo?)`)
    for (const n of next.notes) parts.logger.warn(`${this.path}: ${n}`)
    parts.emit({ type: 'config.reloaded', data: { servers: next.servers.map((s) => s.name) } })
  }

  /** An edit of the file by the operator: each change is their decision. Toolgate's own writes (the user's decisions, already recorded) are not. */
  private onConfig(next: Config): void {
    if (!this.ownWrite) for (const d of configDecisions(this.user, next)) this.parts?.operatorDecision(d)
    this.user = next
    this.apply(applyPolicy(next, this.policy))
  }

  private onError(err: ConfigError): void {
    this.failed = err.message
    this.parts?.logger.error({ file: err.file, path: err.jsonPath }, `config error, keeping the last good config: ${err.message}`)
    this.parts?.emit({ type: 'config.error', data: { message: err.message, file: err.file, path: err.jsonPath } })
  }
}
