// The app hands Electron safeStorage to the core as the secret store's sealer (electron mocked:
// the binary cannot run here); where safeStorage would only obfuscate, there is no sealer.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'

vi.mock('electron', () => import('../helpers/fake-electron'))
const { fake, safeStorage } = await import('../helpers/fake-electron')
const { safeStorageSealer } = await import('../../src/main/electron/safe-storage')
const { SecretStore } = await import('../../src/main/core/secrets/store')

const dirs: string[] = []
afterEach(() => {
  fake.reset()
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

describe('safeStorageSealer', () => {
  it('seals the store key with safeStorage; a CLI process without it still opens the store', () => {
    const sealer = safeStorageSealer(safeStorage, 'linux')
    expect(sealer?.label).toBe('Electron safeStorage (the Secret Service keyring)')
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-ss-'))
    dirs.push(dir)
    new SecretStore({ dataDir: dir, sealer, keychain: null }).set('A', 'value-a')
    expect(fake.safeStorage.sealed).toBe(1)
    expect(new SecretStore({ dataDir: dir, keychain: null }).get('A')).toBe('value-a')
    const slots = JSON.parse(fs.readFileSync(path.join(dir, 'secrets.json'), 'utf8')).key
    expect(safeStorage.decryptString(Buffer.from(slots.safe_storage, 'base64'))).toMatch(/^[A-Za-z0-9+/]{43}=$/)
  })

  it('no sealer where safeStorage is unavailable or only a fixed password (Linux basic_text)', () => {
    fake.safeStorage.backend = 'basic_text'
    expect(safeStorageSealer(safeStorage, 'linux')).toBeNull()
    fake.safeStorage.backend = 'gnome_libsecret'
    fake.safeStorage.available = false
    expect(safeStorageSealer(safeStorage, 'linux')).toBeNull()
    fake.safeStorage.available = true
    expect(safeStorageSealer(safeStorage, 'darwin')?.label).toBe('Electron safeStorage (the macOS Keychain)')
  })
})
