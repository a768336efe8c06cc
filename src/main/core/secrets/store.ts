// The secret store: named values in `<data-dir>/secrets.json` (0600), each encrypted with
// AES-256-GCM under the store's data key (key.ts: safeStorage, the OS keychain, or a 0600 key
// file). Names are public, values are write-only for every surface but the one that starts
// servers. Other processes (the CLI with no owner) read the same file; a change made here is
// announced to `onChange` listeners (servers restart, the UI refreshes). Namespaces keep other
// features' values (OAuth tokens) apart from the user's secrets.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import { EventEmitter } from 'node:events'
import fs from 'node:fs'
import path from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import { z } from 'zod'
import type { SecretStoreInfo } from '../../../shared/api'
import { SECRET_NAME_RE, SECRET_NAME_RULE } from '../../../shared/secret-refs'
import { backendOf, closeToOthers, ensureSlots, keychainAccount, newKey, openKey, SecretStoreError, type KeyEnv, type SecretSealer } from './key'
import { osKeychain, type Keychain } from './keychain'

export { SecretStoreError, type SecretSealer } from './key'

export const SECRETS_FILE = 'secrets.json'
/** The largest value accepted (a PEM key or a long token fits easily). */
export const MAX_SECRET_BYTES = 64 * 1024
const CHECK_NAME = '\u0000check'
const CHECK_TEXT = 'toolgate secret store'

const FileSchema = z.object({
  version: z.literal(1),
  key: z.object({ safe_storage: z.string().optional(), keychain: z.string().optional(), file: z.string().optional() }),
  check: z.string(),
  secrets: z.record(z.string(), z.object({ value: z.string(), updated_at: z.string() })),
})
type StoreFile = z.infer<typeof FileSchema>

export interface SecretEntry {
  name: string
  updated_at: string
}

/** What any feature keeping values in the store uses: the user's secrets, or a namespace of its own. */
export interface Secrets {
  list(): SecretEntry[]
  has(name: string): boolean
  /** the value, or undefined when it is not set; throws SecretStoreError when the store cannot be opened */
  get(name: string): string | undefined
  set(name: string, value: string): void
  /** true when it existed */
  delete(name: string): boolean
  /** called with the names that changed (set or deleted) in this process; returns the unsubscribe */
  onChange(listener: (names: string[]) => void): () => void
}

export interface SecretStoreOptions {
  dataDir: string
  /** Electron safeStorage, in the app */
  sealer?: SecretSealer | null
  /** the OS keychain; default: @napi-rs/keyring unless TOOLGATE_SECRET_STORE=file; null: never */
  keychain?: Keychain | null
}

function seal(key: Buffer, name: string, plain: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', key, iv)
  cipher.setAAD(Buffer.from(name, 'utf8')) // a value moved to another name does not open
  const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()])
  return `v1:${Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64')}`
}

function unseal(key: Buffer, name: string, sealed: string): string {
  const raw = Buffer.from(sealed.replace(/^v1:/, ''), 'base64')
  const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12))
  decipher.setAAD(Buffer.from(name, 'utf8'))
  decipher.setAuthTag(raw.subarray(12, 28))
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
}

const FORCED_FILE = 'TOOLGATE_SECRET_STORE=file is set'

function keyEnv(opts: SecretStoreOptions): KeyEnv {
  const forcedFile = process.env.TOOLGATE_SECRET_STORE === 'file'
  let keychain: Keychain | null = null
  let keychainUnavailable: string | null = null
  if (opts.keychain !== undefined) {
    keychain = opts.keychain
    if (!keychain) keychainUnavailable = 'the keychain is not used by this process'
  } else if (forcedFile) {
    keychainUnavailable = FORCED_FILE
  } else {
    const found = osKeychain()
    if ('unavailable' in found) keychainUnavailable = found.unavailable
    else keychain = found
  }
  return { dataDir: opts.dataDir, sealer: opts.sealer ?? null, keychain, keychainUnavailable }
}

export class SecretStore implements Secrets {
  readonly file: string
  private readonly env: KeyEnv
  private readonly events = new EventEmitter<{ change: [names: string[]] }>()
  private data: StoreFile | null = null
  private key: Buffer | null = null
  /** mtime+size of the file as last read: another process's write is seen on the next read */
  private seen = ''
  /** why the key file was needed, when this process created it */
  private note: string | null = null

  constructor(opts: SecretStoreOptions) {
    this.file = path.join(opts.dataDir, SECRETS_FILE)
    this.env = keyEnv(opts)
  }

  /** What protects the store (and a warning when that is only a file), for the UI, `secrets list` and /api/v1/info. */
  info(): SecretStoreInfo {
    let data: StoreFile | null
    try {
      data = this.read()
    } catch (e) {
      return { backend: 'none', protected_by: 'unknown', count: 0, warning: null, error: (e as Error).message }
    }
    const count = data ? Object.keys(data.secrets).filter((n) => !n.includes('/')).length : 0
    const backend = data ? backendOf(data.key) : null
    if (!data || !backend) {
      return {
        backend: 'none',
        protected_by: `no secrets yet; the first one will be protected by ${this.plannedProtection()}`,
        count: 0,
        warning: null,
        error: null,
      }
    }
    if (backend === 'file') {
      const keyFile = path.join(this.env.dataDir, data.key.file ?? 'secrets.key')
      const why = this.note ?? this.env.keychainUnavailable ?? 'no OS keychain was usable when the store was created'
      return {
        backend,
        protected_by: `a key file, ${keyFile} (mode 0600)`,
        count,
        // plain words first; the raw reason (often a D-Bus error) is the detail
        warning: `${this.env.keychainUnavailable === FORCED_FILE ? `${FORCED_FILE}: ` : 'No keyring on this machine: '}secrets are encrypted with a key file in the data dir (${keyFile}), readable only by your user account, so anything that runs as you can read them.`,
        warning_detail: why,
        error: null,
      }
    }
    if (backend === 'keychain') return { backend, protected_by: this.env.keychain?.label ?? 'the OS keychain', count, warning: null, error: null }
    return { backend, protected_by: this.env.sealer?.label ?? 'Electron safeStorage (the OS keychain)', count, warning: null, error: null }
  }

  /**
   * What the first secret will be protected by, said before it happens (the view promised
   * the keyring, then the first secret went to a key file). A keychain the library offers is asked
   * once whether it answers (a read of an entry that does not exist); one that does not is no promise.
   */
  private plannedProtection(): string {
    if (this.env.keychain && this.keychainAnswers()) return this.env.keychain.label
    return `a key file in the data dir (${this.env.dataDir}, mode 0600), since ${this.env.keychainUnavailable === FORCED_FILE ? FORCED_FILE : 'there is no keyring on this machine'}`
  }

  private probed: boolean | null = null
  private keychainAnswers(): boolean {
    if (this.probed !== null) return this.probed
    try {
      this.env.keychain?.get(`${keychainAccount(this.env.dataDir)}-probe`)
      this.probed = true
    } catch {
      this.probed = false
    }
    return this.probed
  }

  // ---- the user's secrets (names without "/") -------------------------------------------------

  list(): SecretEntry[] {
    return this.entries('')
  }
  has(name: string): boolean {
    return this.hasRaw(checkUserName(name))
  }
  get(name: string): string | undefined {
    return this.getRaw(checkUserName(name))
  }
  set(name: string, value: string): void {
    this.setRaw(checkUserName(name), value)
  }
  delete(name: string): boolean {
    return this.deleteRaw(checkUserName(name))
  }
  onChange(listener: (names: string[]) => void): () => void {
    const l = (names: string[]): void => {
      const mine = names.filter((n) => !n.includes('/'))
      if (mine.length) listener(mine)
    }
    this.events.on('change', l)
    return () => this.events.off('change', l)
  }

  /** The same API over names of its own ("oauth" keeps tokens as "oauth/<name>"); never listed among the user's secrets. */
  namespace(ns: string): Secrets {
    if (!/^[a-z][a-z0-9-]*$/.test(ns)) throw new Error(`namespace "${ns}": lowercase letters, digits and "-" only`)
    const full = (name: string): string => {
      if (!name || name.length > 256 || /[\u0000-\u001f]/.test(name)) throw new SecretStoreError(`invalid ${ns} secret name "${name}"`)
      return `${ns}/${name}`
    }
    return {
      list: () => this.entries(`${ns}/`),
      has: (name) => this.hasRaw(full(name)),
      get: (name) => this.getRaw(full(name)),
      set: (name, value) => this.setRaw(full(name), value),
      delete: (name) => this.deleteRaw(full(name)),
      onChange: (listener) => {
        const l = (names: string[]): void => {
          const mine = names.filter((n) => n.startsWith(`${ns}/`)).map((n) => n.slice(ns.length + 1))
          if (mine.length) listener(mine)
        }
        this.events.on('change', l)
        return () => this.events.off('change', l)
      },
    }
  }

  // ---- storage ---------------------------------------------------------------------------------

  private entries(prefix: string): SecretEntry[] {
    const data = this.read()
    if (!data) return []
    return Object.entries(data.secrets)
      .filter(([n]) => (prefix ? n.startsWith(prefix) : !n.includes('/')))
      .map(([n, v]) => ({ name: prefix ? n.slice(prefix.length) : n, updated_at: v.updated_at }))
      .sort((a, b) => a.name.localeCompare(b.name))
  }

  private hasRaw(name: string): boolean {
    const data = this.read()
    return data !== null && Object.hasOwn(data.secrets, name)
  }

  private getRaw(name: string): string | undefined {
    const data = this.read()
    if (!data || !Object.hasOwn(data.secrets, name)) return undefined
    const key = this.openedKey(data)
    try {
      return unseal(key, name, data.secrets[name].value)
    } catch {
      throw new SecretStoreError(`the stored value of "${name}" is damaged and cannot be decrypted; set it again`)
    }
  }

  private setRaw(name: string, value: string): void {
    if (typeof value !== 'string' || value.length === 0) throw new SecretStoreError(`the value of "${name}" is empty; a secret needs a value`)
    if (Buffer.byteLength(value, 'utf8') > MAX_SECRET_BYTES) throw new SecretStoreError(`the value of "${name}" is over ${MAX_SECRET_BYTES} bytes`)
    let data = this.read()
    let key: Buffer
    if (!data) {
      key = newKey()
      const { slots, note } = ensureSlots(key, {}, this.env)
      this.note = note
      data = { version: 1, key: slots, check: seal(key, CHECK_NAME, CHECK_TEXT), secrets: {} }
    } else {
      key = this.openedKey(data)
    }
    data.secrets[name] = { value: seal(key, name, value), updated_at: new Date().toISOString() }
    this.write(data)
    this.emit([name])
  }

  private deleteRaw(name: string): boolean {
    const data = this.read()
    if (!data || !Object.hasOwn(data.secrets, name)) return false
    delete data.secrets[name]
    this.write(data)
    this.emit([name])
    return true
  }

  private emit(names: string[]): void {
    try {
      this.events.emit('change', names)
    } catch {
      // a listener's failure must not undo a stored change
    }
  }

  /** The data key, opened once; a store opened elsewhere gains this process's slots (the app's safeStorage). */
  private openedKey(data: StoreFile): Buffer {
    if (this.key) return this.key
    const { key } = openKey(data.key, this.env)
    if (unsealOrNull(key, CHECK_NAME, data.check) !== CHECK_TEXT) throw new SecretStoreError(`the secret store's key does not fit ${this.file}`)
    this.key = key
    const { slots } = ensureSlots(key, data.key, this.env)
    if (JSON.stringify(slots) !== JSON.stringify(data.key)) {
      data.key = slots
      this.write(data)
    }
    return key
  }

  /** The file as it is on disk now (re-read when another process changed it); null when there is none. */
  private read(): StoreFile | null {
    let stat: fs.Stats
    try {
      stat = fs.statSync(this.file)
    } catch {
      this.data = null
      this.seen = ''
      return null
    }
    const stamp = `${stat.mtimeMs}:${stat.size}:${stat.ino}`
    if (this.data && stamp === this.seen) return this.data
    if ((stat.mode & 0o077) !== 0) closeToOthers(this.file)
    let parsed: StoreFile
    try {
      parsed = FileSchema.parse(JSON.parse(fs.readFileSync(this.file, 'utf8')))
    } catch (e) {
      throw new SecretStoreError(`${this.file} is not a valid secret store (${(e as Error).message.split('\n')[0]}); move it aside to start a new one`)
    }
    if (this.data && JSON.stringify(parsed.key) !== JSON.stringify(this.data.key)) this.key = null
    this.data = parsed
    this.seen = stamp
    return parsed
  }

  private write(data: StoreFile): void {
    fs.mkdirSync(path.dirname(this.file), { recursive: true })
    writeFileAtomic.sync(this.file, JSON.stringify(data, null, 2) + '\n', { fsync: true, mode: 0o600 })
    this.data = data
    const stat = fs.statSync(this.file)
    this.seen = `${stat.mtimeMs}:${stat.size}:${stat.ino}`
  }
}

function unsealOrNull(key: Buffer, name: string, sealed: string): string | null {
  try {
    return unseal(key, name, sealed)
  } catch {
    return null
  }
}

/** A user-facing secret name, checked; throws with the rule otherwise. */
export function checkUserName(name: string): string {
  if (typeof name !== 'string' || !SECRET_NAME_RE.test(name)) throw new SecretStoreError(`invalid secret name "${String(name)}": ${SECRET_NAME_RULE}`)
  return name
}
