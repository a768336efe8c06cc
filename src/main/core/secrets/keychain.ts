// The OS keychain from plain Node (CLI, `serve`, and the app's main process): macOS Keychain,
// Windows Credential Manager, the Secret Service (GNOME Keyring, KWallet) on Linux, through
// @napi-rs/keyring. On Linux it is pinned to the Secret Service: the library's fallback, the
// kernel keyring, forgets everything at reboot, which would lose the store's key.
import { createRequire } from 'node:module'

/** One entry per account under Toolgate's service name. Every method may throw when the keychain is unusable. */
export interface Keychain {
  /** what protects an entry, for the user ("the macOS Keychain") */
  readonly label: string
  get(account: string): string | null
  set(account: string, value: string): void
  delete(account: string): void
}

export const KEYCHAIN_SERVICE = 'toolgate'

interface NapiEntry {
  getPassword(): string | null
  setPassword(value: string): void
  deletePassword(): boolean
}
type EntryClass = new (service: string, account: string, options?: { linux?: { store?: 'secret-service' | 'keyutils' } }) => NapiEntry

function platformLabel(): string {
  if (process.platform === 'darwin') return 'the macOS Keychain'
  if (process.platform === 'win32') return 'the Windows Credential Manager'
  return 'the Secret Service keyring (GNOME Keyring / KWallet)'
}

/** The OS keychain, or the reason it cannot be loaded (no native build for this platform). */
export function osKeychain(): Keychain | { unavailable: string } {
  let Entry: EntryClass
  try {
    // required lazily: a platform without a prebuilt binary must fall back, not fail to start
    const load = createRequire(__filename)
    Entry = (load('@napi-rs/keyring') as { Entry: EntryClass }).Entry
  } catch (e) {
    return { unavailable: `the keychain library cannot load here (${(e as Error).message.split('\n')[0]})` }
  }
  const entry = (account: string): NapiEntry => new Entry(KEYCHAIN_SERVICE, account, { linux: { store: 'secret-service' } })
  return {
    label: platformLabel(),
    get: (account) => entry(account).getPassword() ?? null,
    set: (account, value) => entry(account).setPassword(value),
    delete: (account) => void entry(account).deletePassword(),
  }
}
