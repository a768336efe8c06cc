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

/**
 * The key in what the user pasted: the key itself, or the whole URL `toolgate serve` printed
 * (`http://127.0.0.1:8719/#key=…`); null when there is none.
 */
export function keyFromInput(text: string): string | null {
  const t = text.trim()
  const m = /(?:^|[#?&])key=([^&#\s]+)/.exec(t)
  if (m) {
    try {
      return decodeURIComponent(m[1])
    } catch {
      return m[1]
    }
  }
  if (!t || /\s/.test(t) || /^https?:\/\//i.test(t)) return null
  return t
}

export function forgetApiKey(env: Pick<KeyEnv, 'storage'>): void {
  try {
    env.storage.removeItem(KEY_STORAGE)
  } catch {
    // nothing to forget
  }
}
