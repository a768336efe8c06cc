// The secret store on a real temp data dir: values encrypted at rest, names only in lists, the
// key kept in the keychain / a 0600 key file / sealed by safeStorage, another process reading the
// same store, change events, namespaces, and the real keychain library on this machine.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { tempDir } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { SecretStore, SecretStoreError } from '../../src/main/core/secrets/store'
import { osKeychain, type Keychain } from '../../src/main/core/secrets/keychain'
import type { SecretSealer } from '../../src/main/core/secrets/key'

useCleanup()
const dataDir = (): string => tempDir('tg-secrets-')

/** An in-memory keychain (the OS one cannot run here), shared by "processes" like the real one. */
function memoryKeychain(): Keychain & { entries: Map<string, string>; broken: boolean } {
  const entries = new Map<string, string>()
  const kc = {
    label: 'the test keychain',
    entries,
    broken: false,
    get(account: string) {
      if (kc.broken) throw new Error('keychain locked')
      return entries.get(account) ?? null
    },
    set(account: string, value: string) {
      if (kc.broken) throw new Error('keychain locked')
      entries.set(account, value)
    },
    delete(account: string) {
      entries.delete(account)
    },
  }
  return kc
}

/** A reversible sealer standing in for safeStorage (which only the Electron binary has). */
function fakeSealer(): SecretSealer & { calls: number } {
  const s = {
    label: 'test safeStorage',
    calls: 0,
    encrypt: (plain: string) => {
      s.calls++
      return Buffer.from(plain, 'utf8').reverse()
    },
    decrypt: (sealed: Buffer) => Buffer.from(sealed).reverse().toString('utf8'),
  }
  return s
}

const TOKEN = 'ghp_TopSecretValue1234567890abcdef'

describe('SecretStore', () => {
  it('keeps values encrypted at rest and gives them back by name', () => {
    const dir = dataDir()
    const store = new SecretStore({ dataDir: dir, keychain: null })
    expect(store.list()).toEqual([])
    expect(store.get('GITHUB_TOKEN')).toBeUndefined()
    store.set('GITHUB_TOKEN', TOKEN)
    expect(store.get('GITHUB_TOKEN')).toBe(TOKEN)
    expect(store.list().map((e) => e.name)).toEqual(['GITHUB_TOKEN'])
    const file = path.join(dir, 'secrets.json')
    const text = fs.readFileSync(file, 'utf8')
    expect(text).toContain('GITHUB_TOKEN')
    expect(text).not.toContain(TOKEN)
    expect(text).not.toContain(Buffer.from(TOKEN).toString('base64'))
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(store.delete('GITHUB_TOKEN')).toBe(true)
    expect(store.delete('GITHUB_TOKEN')).toBe(false)
    expect(store.get('GITHUB_TOKEN')).toBeUndefined()
  })

  it('a store whose files were left readable by others (a copy, a restored backup) is closed to 0600 when opened', () => {
    const dir = dataDir()
    new SecretStore({ dataDir: dir, keychain: null }).set('A', 'value-a')
    const files = ['secrets.json', 'secrets.key'].map((f) => path.join(dir, f))
    for (const f of files) fs.chmodSync(f, 0o644)
    expect(new SecretStore({ dataDir: dir, keychain: null }).get('A')).toBe('value-a')
    for (const f of files) expect(fs.statSync(f).mode & 0o777, f).toBe(0o600)
  })

  it('a key file that exists with loose modes is never written into: the new key gets a fresh 0600 file', () => {
    const dir = dataDir()
    const keyFile = path.join(dir, 'secrets.key')
    fs.writeFileSync(keyFile, 'left over\n', { mode: 0o644 })
    const inode = fs.statSync(keyFile).ino
    new SecretStore({ dataDir: dir, keychain: null }).set('A', 'value-a')
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600)
    expect(fs.statSync(keyFile).ino).not.toBe(inode)
    expect(new SecretStore({ dataDir: dir, keychain: null }).get('A')).toBe('value-a')
  })

  it('without a keychain keeps the key in a 0600 key file and says so in a warning', () => {
    const dir = dataDir()
    const store = new SecretStore({ dataDir: dir, keychain: null })
    expect(store.info()).toMatchObject({ backend: 'none', count: 0, warning: null })
    store.set('A', 'value-a')
    const keyFile = path.join(dir, 'secrets.key')
    expect(fs.statSync(keyFile).mode & 0o777).toBe(0o600)
    const info = store.info()
    expect(info.backend).toBe('file')
    expect(info.count).toBe(1)
    expect(info.warning).toContain(keyFile)
    expect(info.warning).toMatch(/^No keyring on this machine: secrets are encrypted with a key file in the data dir/)
    // the key file alone opens nothing: without secrets.json there is no value, and vice versa
    fs.rmSync(keyFile)
    expect(() => new SecretStore({ dataDir: dir, keychain: null }).get('A')).toThrow(/secrets.key cannot be read/)
  })

  it('a second process reads what the first wrote, and sees later changes', () => {
    const dir = dataDir()
    const writer = new SecretStore({ dataDir: dir, keychain: null })
    const reader = new SecretStore({ dataDir: dir, keychain: null })
    writer.set('A', 'first')
    expect(reader.get('A')).toBe('first')
    writer.set('A', 'second-and-longer')
    expect(reader.get('A')).toBe('second-and-longer')
    writer.delete('A')
    expect(reader.get('A')).toBeUndefined()
  })

  it('with a keychain keeps the key there (no key file, no warning); a process without that keychain cannot open it', () => {
    const dir = dataDir()
    const kc = memoryKeychain()
    const store = new SecretStore({ dataDir: dir, keychain: kc })
    store.set('A', 'value-a')
    expect(fs.existsSync(path.join(dir, 'secrets.key'))).toBe(false)
    expect(kc.entries.size).toBe(1)
    expect(store.info()).toMatchObject({ backend: 'keychain', protected_by: 'the test keychain', warning: null })
    expect(new SecretStore({ dataDir: dir, keychain: kc }).get('A')).toBe('value-a')
    expect(() => new SecretStore({ dataDir: dir, keychain: null }).get('A')).toThrow(/OS keychain/)
    kc.broken = true
    expect(() => new SecretStore({ dataDir: dir, keychain: kc }).get('A')).toThrow(/could not be read \(keychain locked\)/)
  })

  it('a keychain that refuses to store falls back to the key file and the warning says why', () => {
    const dir = dataDir()
    const kc = memoryKeychain()
    kc.broken = true
    const store = new SecretStore({ dataDir: dir, keychain: kc })
    store.set('A', 'value-a')
    expect(fs.existsSync(path.join(dir, 'secrets.key'))).toBe(true)
    // plain words in the warning; the system's reason is the detail
    expect(store.info().warning).not.toContain('keychain locked')
    expect(store.info().warning_detail).toBe('the test keychain is not usable here (keychain locked)')
  })

  it('says what will protect the first secret before it happens: a keychain that does not answer is no promise', () => {
    const kc = memoryKeychain()
    const works = new SecretStore({ dataDir: dataDir(), keychain: kc })
    expect(works.info().protected_by).toBe('no secrets yet; the first one will be protected by the test keychain')
    kc.broken = true
    const dir = dataDir()
    const store = new SecretStore({ dataDir: dir, keychain: kc })
    expect(store.info().protected_by).toBe(
      `no secrets yet; the first one will be protected by a key file in the data dir (${dir}, mode 0600), since there is no keyring on this machine`,
    )
    // and so it is
    store.set('A', 'value-a')
    expect(store.info().backend).toBe('file')
  })

  it('in the app the key is also sealed by safeStorage; the CLI (no safeStorage) opens the same store through the keychain', () => {
    const dir = dataDir()
    const kc = memoryKeychain()
    const sealer = fakeSealer()
    const app = new SecretStore({ dataDir: dir, sealer, keychain: kc })
    app.set('A', 'from-the-app')
    expect(sealer.calls).toBe(1)
    const slots = JSON.parse(fs.readFileSync(path.join(dir, 'secrets.json'), 'utf8')).key
    expect(Object.keys(slots).sort()).toEqual(['keychain', 'safe_storage'])
    expect(new SecretStore({ dataDir: dir, keychain: kc }).get('A')).toBe('from-the-app')
    // the app opens it with safeStorage even when the keychain entry is gone
    kc.entries.clear()
    expect(new SecretStore({ dataDir: dir, sealer, keychain: kc }).get('A')).toBe('from-the-app')
  })

  it('a store the CLI created gains the safeStorage slot when the app opens it', () => {
    const dir = dataDir()
    new SecretStore({ dataDir: dir, keychain: null }).set('A', 'from-the-cli')
    const sealer = fakeSealer()
    expect(new SecretStore({ dataDir: dir, sealer, keychain: null }).get('A')).toBe('from-the-cli')
    const slots = JSON.parse(fs.readFileSync(path.join(dir, 'secrets.json'), 'utf8')).key
    expect(Object.keys(slots).sort()).toEqual(['file', 'safe_storage'])
    // the file slot stays (the CLI still reads it), so the store still warns
    expect(new SecretStore({ dataDir: dir, keychain: null }).info().backend).toBe('file')
  })

  it('a value moved to another name in the file does not open', () => {
    const dir = dataDir()
    const store = new SecretStore({ dataDir: dir, keychain: null })
    store.set('A', 'value-a')
    store.set('B', 'value-b')
    const file = path.join(dir, 'secrets.json')
    const data = JSON.parse(fs.readFileSync(file, 'utf8'))
    data.secrets.B.value = data.secrets.A.value
    fs.writeFileSync(file, JSON.stringify(data))
    const other = new SecretStore({ dataDir: dir, keychain: null })
    expect(other.get('A')).toBe('value-a')
    expect(() => other.get('B')).toThrow(/"B" is damaged/)
  })

  it('announces changes by name, and never the value', () => {
    const store = new SecretStore({ dataDir: dataDir(), keychain: null })
    const seen: unknown[] = []
    const off = store.onChange((names) => seen.push(names))
    store.set('A', 'value-a')
    store.delete('A')
    store.delete('A')
    off()
    store.set('A', 'again')
    expect(seen).toEqual([['A'], ['A']])
  })

  it('refuses bad names and empty or huge values', () => {
    const store = new SecretStore({ dataDir: dataDir(), keychain: null })
    for (const bad of ['', '1ABC', 'A B', 'a/b', '${secret:A}', 'x'.repeat(200)]) expect(() => store.set(bad, 'v')).toThrow(SecretStoreError)
    expect(() => store.set('A', '')).toThrow(/empty/)
    expect(() => store.set('A', 'x'.repeat(70_000))).toThrow(/over 65536 bytes/)
  })

  it('keeps namespaces (OAuth tokens) apart from the user secrets', () => {
    const store = new SecretStore({ dataDir: dataDir(), keychain: null })
    const oauth = store.namespace('oauth')
    const heard: string[][] = []
    const userHeard: string[][] = []
    oauth.onChange((n) => heard.push(n))
    store.onChange((n) => userHeard.push(n))
    oauth.set('github:access_token', 'tok-1234')
    store.set('A', 'value-a')
    expect(store.list().map((e) => e.name)).toEqual(['A'])
    expect(oauth.list().map((e) => e.name)).toEqual(['github:access_token'])
    expect(oauth.get('github:access_token')).toBe('tok-1234')
    expect(store.info().count).toBe(1)
    expect(heard).toEqual([['github:access_token']])
    expect(userHeard).toEqual([['A']])
  })

  it('a damaged secrets.json is an error naming the file, not a crash', () => {
    const dir = dataDir()
    fs.writeFileSync(path.join(dir, 'secrets.json'), '{"version": 1, "oops": true}')
    const store = new SecretStore({ dataDir: dir, keychain: null })
    expect(() => store.get('A')).toThrow(/secrets\.json is not a valid secret store/)
    expect(store.info().error).toMatch(/secrets\.json is not a valid secret store/)
  })
})

describe('the OS keychain through @napi-rs/keyring, on this machine', () => {
  const noSecretService = process.platform === 'linux' && !process.env.DBUS_SESSION_BUS_ADDRESS
  it.runIf(noSecretService)('without a Secret Service the library loads, refuses to store, and the store falls back to the key file saying why', () => {
    const kc = osKeychain()
    expect('unavailable' in kc).toBe(false)
    const dir = dataDir()
    const store = new SecretStore({ dataDir: dir })
    // before: no promise of the keyring that will not answer
    expect(store.info().protected_by).toContain('a key file in the data dir')
    store.set('A', 'value-a')
    expect(store.get('A')).toBe('value-a')
    const info = store.info()
    expect(info.backend).toBe('file')
    expect(info.warning_detail).toMatch(/Secret Service keyring .* is not usable here \(.*(DBus|dbus|D-Bus).*\)/)
  })

  it('TOOLGATE_SECRET_STORE=file skips the keychain', () => {
    vi.stubEnv('TOOLGATE_SECRET_STORE', 'file')
    try {
      const store = new SecretStore({ dataDir: dataDir() })
      store.set('A', 'value-a')
      expect(store.info().warning).toContain('TOOLGATE_SECRET_STORE=file is set')
    } finally {
      vi.unstubAllEnvs()
    }
  })
})
