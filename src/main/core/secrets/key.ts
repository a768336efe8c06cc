// The secret store's data key and the places it is kept ("slots"). Secrets are encrypted with
// one random 256-bit key; the key itself is sealed by Electron safeStorage (in the app), kept in
// the OS keychain (any Node process: CLI, `serve`, the app), or, where no keychain is usable
// from Node, in `<data-dir>/secrets.key` (mode 0600). Every store has a slot a plain Node
// process can open (keychain or file), so the CLI and `serve` read what the app wrote.
import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import writeFileAtomic from 'write-file-atomic'
import type { Keychain } from './keychain'

/** Electron safeStorage, handed in by the app (the core never imports electron). */
export interface SecretSealer {
  /** what seals it, for the user ("Electron safeStorage (the macOS Keychain)") */
  readonly label: string
  encrypt(plain: string): Buffer
  decrypt(sealed: Buffer): string
}

/** Where the data key is kept, as recorded in secrets.json. */
export interface KeySlots {
  /** base64 of the key sealed by safeStorage */
  safe_storage?: string
  /** the keychain account holding the key */
  keychain?: string
  /** the file (in the data dir) holding the key */
  file?: string
}

export type Backend = 'safe-storage' | 'keychain' | 'file'

export const KEY_FILE = 'secrets.key'

export class SecretStoreError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SecretStoreError'
  }
}

export interface KeyEnv {
  dataDir: string
  sealer: SecretSealer | null
  /** null: never use the keychain (TOOLGATE_SECRET_STORE=file, tests) */
  keychain: Keychain | null
  /** why the keychain is not offered, when it is not */
  keychainUnavailable: string | null
}

/** The keychain account of a data dir: several data dirs on one machine keep separate keys. */
export function keychainAccount(dataDir: string): string {
  let real = path.resolve(dataDir)
  try {
    real = fs.realpathSync(dataDir)
  } catch {
    // not created yet
  }
  return `secrets-key:${createHash('sha256').update(real).digest('hex').slice(0, 16)}`
}

const keyText = (key: Buffer): string => key.toString('base64')

/** A store file readable or writable by others (copied, restored from a backup) is closed to 0600. */
export function closeToOthers(file: string): void {
  try {
    if ((fs.statSync(file).mode & 0o077) !== 0) fs.chmodSync(file, 0o600)
  } catch {
    // gone or not ours: reading it reports what is wrong
  }
}

function fromText(text: string, where: string): Buffer {
  const key = Buffer.from(text.trim(), 'base64')
  if (key.length !== 32) throw new SecretStoreError(`the secret store's key in ${where} is damaged (not 32 bytes)`)
  return key
}

/** Opens the data key from the first slot this process can use; throws with every reason when none opens. */
export function openKey(slots: KeySlots, env: KeyEnv): { key: Buffer; via: Backend } {
  const why: string[] = []
  if (slots.safe_storage !== undefined) {
    if (!env.sealer) why.push('it is sealed by the Toolgate app (Electron safeStorage), which only the app can open')
    else {
      try {
        return { key: fromText(env.sealer.decrypt(Buffer.from(slots.safe_storage, 'base64')), 'safeStorage'), via: 'safe-storage' }
      } catch (e) {
        why.push(`safeStorage could not open it (${(e as Error).message})`)
      }
    }
  }
  if (slots.keychain !== undefined) {
    if (!env.keychain) why.push(`it is in the OS keychain, which this process does not use (${env.keychainUnavailable ?? 'switched off'})`)
    else {
      try {
        const text = env.keychain.get(slots.keychain)
        if (text) return { key: fromText(text, env.keychain.label), via: 'keychain' }
        why.push(`${env.keychain.label} has no entry "${slots.keychain}" for it`)
      } catch (e) {
        why.push(`${env.keychain.label} could not be read (${(e as Error).message})`)
      }
    }
  }
  if (slots.file !== undefined) {
    const file = path.join(env.dataDir, path.basename(slots.file))
    try {
      const key = fromText(fs.readFileSync(file, 'utf8'), file)
      closeToOthers(file)
      return { key, via: 'file' }
    } catch (e) {
      why.push(e instanceof SecretStoreError ? e.message : `${file} cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`)
    }
  }
  if (why.length === 0) why.push('secrets.json records no place for its key')
  throw new SecretStoreError(`the secret store (${path.join(env.dataDir, 'secrets.json')}) cannot be opened: ${why.join('; ')}`)
}

/**
 * Makes sure `key` is kept where a plain Node process finds it (the keychain, else the key
 * file) and, in the app, sealed by safeStorage. Returns the slots to record; `note` says why
 * the key file was needed.
 */
export function ensureSlots(key: Buffer, slots: KeySlots, env: KeyEnv): { slots: KeySlots; note: string | null } {
  const next: KeySlots = { ...slots }
  let note: string | null = null
  if (env.sealer && next.safe_storage === undefined) {
    try {
      next.safe_storage = env.sealer.encrypt(keyText(key)).toString('base64')
    } catch {
      // safeStorage refused: the portable slot below still holds the key
    }
  }
  if (next.keychain === undefined && next.file === undefined) {
    if (env.keychain) {
      const account = keychainAccount(env.dataDir)
      try {
        env.keychain.set(account, keyText(key))
        if (env.keychain.get(account) !== keyText(key)) throw new Error('the entry did not read back')
        next.keychain = account
      } catch (e) {
        note = `${env.keychain.label} is not usable here (${(e as Error).message.split('\n')[0]})`
      }
    } else {
      note = env.keychainUnavailable
    }
    if (next.keychain === undefined) {
      const file = path.join(env.dataDir, KEY_FILE)
      fs.mkdirSync(env.dataDir, { recursive: true })
      // a fresh 0600 file renamed into place: a leftover file with loose modes is replaced, never written into
      writeFileAtomic.sync(file, keyText(key) + '\n', { mode: 0o600, fsync: true })
      next.file = KEY_FILE
    }
  }
  return { slots: next, note }
}

export function newKey(): Buffer {
  return randomBytes(32)
}

/** The weakest place the key is kept decides what protects the secrets. */
export function backendOf(slots: KeySlots): Backend | null {
  if (slots.file !== undefined) return 'file'
  if (slots.keychain !== undefined) return 'keychain'
  if (slots.safe_storage !== undefined) return 'safe-storage'
  return null
}
