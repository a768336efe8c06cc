// Hot reload: watches the config file (chokidar), debounces bursts of writes, and hands each
// successfully validated config to `onConfig`; a bad edit keeps the running config and goes
// to `onError` instead. Toolgate's own writes go through `reloadNow()`, so the file event that
// follows them finds nothing new: one edit, one reload.
import chokidar, { type FSWatcher } from 'chokidar'
import fs from 'node:fs'
import path from 'node:path'
import type { Config } from '../../../shared/config-schema'
import { ConfigError, loadConfigFile } from './load'

export interface ConfigWatcher {
  close(): Promise<void>
  /** Re-read now, synchronously (after Toolgate itself wrote the file); the file event that follows finds the same text and does nothing. */
  reloadNow(): void
}

export function watchConfig(
  file: string,
  handlers: { onConfig(config: Config): void; onError(err: ConfigError): void },
  o: {
    debounceMs?: number
    /** the text the caller already loaded and applied (else the file is read now) */
    initialText?: string
    /** a mistake inside a server entry leaves that entry out (parseConfigLenient) instead of failing the reload */
    lenient?: boolean
  } = {},
): ConfigWatcher {
  const debounceMs = o.debounceMs ?? 150
  const lenient = o.lenient === true
  let timer: NodeJS.Timeout | null = null
  let lastText: string | null = null
  const reload = (): void => {
    if (timer) clearTimeout(timer)
    timer = null
    // the same text as last applied: nothing to do (also when that text had an entry left out at start)
    let current: string | null = null
    try {
      current = fs.readFileSync(file, 'utf8')
    } catch {
      // missing or unreadable: loadConfigFile says what (or creates the default file)
    }
    if (current !== null && current === lastText) return
    try {
      const { config, text } = loadConfigFile(file, { lenient })
      if (text === lastText) return
      lastText = text
      handlers.onConfig(config)
    } catch (e) {
      lastText = null
      handlers.onError(e instanceof ConfigError ? e : new ConfigError(file, '', String((e as Error)?.message ?? e)))
    }
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
  // Watch the directory so atomic replace (rename over the file) is seen too.
  const watcher: FSWatcher = chokidar.watch(path.dirname(file), {
    ignoreInitial: true,
    depth: 0,
    awaitWriteFinish: false,
  })
  const base = path.resolve(file)
  watcher.on('all', (_event, p) => {
    if (path.resolve(p) === base) schedule()
  })
  // an edit made after the first read but before the watcher is ready has no event: look once more then
  watcher.on('ready', schedule)
  watcher.on('error', () => {})
  return {
    async close() {
      if (timer) clearTimeout(timer)
      await watcher.close()
    },
    reloadNow: reload,
  }
}
