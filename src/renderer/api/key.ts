// The admin key of the web UI: `toolgate serve` prints a URL with `#key=<api key>`. We read it
// once, keep it in sessionStorage (gone when the tab closes) and clear it from the address bar
// so it is not left in history, screenshots or a shared screen.
export const KEY_STORAGE = 'toolgate.api_key'

export interface KeyEnv {
  location: Pick<Location, 'hash' | 'pathname' | 'search'>
  history: Pick<History, 'replaceState'>
  storage: Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>
}

/** Returns the key from `#key=` (stored, hash cleared) or from sessionStorage; null when absent. */
export function readApiKey(env: KeyEnv): string | null {
  const hash = env.location.hash.replace(/^#/, '')
  if (hash) {
    const key = new URLSearchParams(hash).get('key')
    if (key) {
      try {
        env.storage.setItem(KEY_STORAGE, key)
      } catch {
        // storage disabled: the key still works for this page load
      }
      env.history.replaceState(null, '', env.location.pathname + env.location.search)
      return key
    }
  }
  try {
    return env.storage.getItem(KEY_STORAGE)
  } catch {
    return null
  }
}

export function forgetApiKey(env: Pick<KeyEnv, 'storage'>): void {
  try {
    env.storage.removeItem(KEY_STORAGE)
  } catch {
    // nothing to forget
  }
}
