// Hot reload: watches the config file (chokidar), debounces bursts of writes, and hands each
// successfully validated config to `onConfig`; a bad edit keeps the running config and goes
// to `onError` instead. Toolgate's own writes go through `reloadNow()`, so the file event that
// follows them finds nothing new: one edit, one reload.
import chokidar, { type FSWatcher } from 'chokidar'
import path from 'node:path'
import type { Config } from '../../../shared/config-schema'
import { ConfigError, loadConfigFile } from './load'

export interface ConfigWatcher {
  close(): Promise<void>
  /** Re-read now, synchronously (after Toolgate itself wrote the file); the file event that follows finds the same text and does nothing. */
  reloadNow(): void
}

export function watchConfig(file: string, handlers: { onConfig(config: Config): void; onError(err: ConfigError): void }, debounceMs = 150): ConfigWatcher {
  let timer: NodeJS.Timeout | null = null
  let lastText: string | null = null
  const reload = (): void => {
    if (timer) clearTimeout(timer)
    timer = null
    try {
      const { config, text } = loadConfigFile(file)
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
  try {
    lastText = loadConfigFile(file).text
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
