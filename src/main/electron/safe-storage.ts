// The app's secret sealer: Electron safeStorage (macOS Keychain, Windows DPAPI, the Secret
// Service or KWallet on Linux) handed to the core, which never imports electron. Where
// safeStorage would only obfuscate (Linux "basic_text": a fixed password), there is no sealer.
import type { SafeStorage } from 'electron'
import type { SecretSealer } from '../core/secrets/key'

type SafeStorageLike = Pick<SafeStorage, 'isEncryptionAvailable' | 'encryptString' | 'decryptString'> & {
  getSelectedStorageBackend?: () => string
}

export function safeStorageSealer(safeStorage: SafeStorageLike, platform: NodeJS.Platform = process.platform): SecretSealer | null {
  if (!safeStorage.isEncryptionAvailable()) return null
  let where = platform === 'darwin' ? 'the macOS Keychain' : platform === 'win32' ? 'Windows DPAPI' : 'the OS keyring'
  if (platform === 'linux') {
    const backend = safeStorage.getSelectedStorageBackend?.() ?? 'unknown'
    if (backend === 'basic_text' || backend === 'unknown') return null
    where = backend.startsWith('kwallet') ? 'KWallet' : 'the Secret Service keyring'
  }
  return {
    label: `Electron safeStorage (${where})`,
    encrypt: (plain) => safeStorage.encryptString(plain),
    decrypt: (sealed) => safeStorage.decryptString(sealed),
  }
}
