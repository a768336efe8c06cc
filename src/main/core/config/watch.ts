// Hot reload: reads the config file again when it changes (a watch of its folder, bursts of writes debounced)
// and hands each successfully validated config to `onConfig`; a bad edit keeps the running config
// and goes to `onError` instead. Toolgate's own writes go through `reloadNow()`, so the file event
// that follows them finds nothing new: one edit, one reload. After each reload the file is read
// again a few times (an edit just after a replace can have no event). The reloader exists before the watch
// (a core built and not started reloads on demand and watches nothing). A file deleted or moved
// away is an error like a bad edit (the running config stays, nothing is created); while it is
// missing, Toolgate's own writes start from the running config (running-text.ts).
import fs from 'node:fs'
import path from 'node:path'
import type { Config } from '../../../shared/config-schema'
import { ConfigError, loadConfigFile } from './load'
import { watchFiles } from './link-watch'
import { forgetRunningText, setRunningText } from './running-text'

export interface ConfigWatcher {
  close(): Promise<void>
  /** Re-read now, synchronously (after Toolgate itself wrote the file); the file event that follows finds the same text and does nothing. */
  reloadNow(): void
}

export interface ConfigReloader {
  /** Re-read now, synchronously: what a file event does after its debounce, and what Toolgate's own writes call. */
  reloadNow(): void
  /** Starts watching the file; each change (debounced) reloads. Closing stops the watch, not the reloader. */
  watch(): ConfigWatcher
}

export interface ConfigWatchOptions {
  debounceMs?: number
  /** the text the caller already loaded and applied (else the file is read now) */
  initialText?: string
  /** a mistake inside a server entry leaves that entry out (parseConfigLenient) instead of failing the reload */
  lenient?: boolean
}

/** What a reload says when the file is gone (after the file's path, in the log, the window's banner, GET /api/v1/info, config.error). */
export const MISSING_PROBLEM =
  'the config file is missing (deleted or moved away?). Toolgate keeps running the last good config and does not create a new file. ' +
  'Put the file back to apply it again; a change you make in Toolgate meanwhile (the window, the CLI, an agent) writes the running config back with that change.'

/** After a reload, when the file is read once more (ms): see `reload` in configReloader. */
export const LOOK_AGAIN_MS = [300, 1000, 3000]

type ConfigHandlers = { onConfig(config: Config): void; onError(err: ConfigError): void }

/** Watches `file` at once (the reloader and its watch in one step). */
export function watchConfig(file: string, handlers: ConfigHandlers, o: ConfigWatchOptions = {}): ConfigWatcher {
  const reloader = configReloader(file, handlers, o)
  const watcher = reloader.watch()
  return { close: () => watcher.close(), reloadNow: () => reloader.reloadNow() }
}

export function configReloader(file: string, handlers: ConfigHandlers, o: ConfigWatchOptions = {}): ConfigReloader {
  const debounceMs = o.debounceMs ?? 150
  const lenient = o.lenient === true
  let timer: NodeJS.Timeout | null = null
  let lastText: string | null = null
  let watching = false
  let again: NodeJS.Timeout[] = []
  /** the text the last check read, applied or not (a look again at a bad edit does not report it twice) */
  let seen: string | null = null
  /** the text last applied: what runs, and what Toolgate's own writes start from while the file is missing */
  let good: string | null = null
  /** the file was missing at the last check (reported once, until it is back) */
  let missing = false
  const read = (): string | null => {
    try {
      return fs.readFileSync(file, 'utf8')
    } catch {
      // missing or unreadable: loadConfigFile says what (or creates the default file)
      return null
    }
  }
  const check = (): void => {
    // the same text as last applied: nothing to do (also when that text had an entry left out at start)
    const current = read()
    seen = current
    if (current === null && !fs.existsSync(file)) {
      // deleted or moved away: never a new empty file (every server would stop); the running config stays
      if (missing) return
      missing = true
      // the file coming back, even unchanged, is applied (and clears the error)
      lastText = null
      handlers.onError(new ConfigError(file, '', MISSING_PROBLEM))
      return
    }
    missing = false
    if (current !== null && current === lastText) return
    try {
      const { config, text } = loadConfigFile(file, { lenient, create: false })
      if (text === lastText) return
      lastText = text
      good = text
      if (watching) setRunningText(file, text)
      handlers.onConfig(config)
    } catch (e) {
      lastText = null
      handlers.onError(e instanceof ConfigError ? e : new ConfigError(file, '', String((e as Error)?.message ?? e)))
    }
  }
  const stopLooking = (): void => {
    for (const t of again) clearTimeout(t)
    again = []
  }
  // A reload (a file event, or Toolgate's own write) looks again a little later. With chokidar (until
  // session 9) a file replaced by rename (Toolgate's atomic write, many editors' save) was followed
  // only after an asynchronous stat, and a write that landed in between had no event (seen: the
  // user's edit just after a tray toggle stayed unseen under load). The folder's own watch now names
  // every such write; the looks stay as a margin: each is one read and a compare.
  const reload = (): void => {
    if (timer) clearTimeout(timer)
    timer = null
    check()
    if (!watching) return
    stopLooking()
    const look = (): void => {
      const current = read()
      if (current !== null && current !== seen) check()
    }
    again = LOOK_AGAIN_MS.map((ms) => {
      const t = setTimeout(look, ms)
      t.unref()
      return t
    })
  }
  const schedule = (): void => {
    if (timer) clearTimeout(timer)
    timer = setTimeout(reload, debounceMs)
  }
  if (o.initialText !== undefined) lastText = o.initialText
  else
    try {
      lastText = loadConfigFile(file, { lenient }).text
    } catch {
      lastText = null
    }
  good = lastText
  return {
    reloadNow: reload,
    watch(): ConfigWatcher {
      watching = true
      if (good !== null) setRunningText(file, good)
      // through the folder, so an atomic replace (a rename over the file) is seen too, and a linked
      // folder swapped to another (link-watch.ts) is watched anew and read again
      const watcher = watchFiles([file], schedule)
      return {
        async close() {
          watching = false
          forgetRunningText(file)
          stopLooking()
          if (timer) clearTimeout(timer)
          await watcher.close()
        },
        reloadNow: reload,
      }
    },
  }
}
