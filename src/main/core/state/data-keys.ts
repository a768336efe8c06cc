// The data dir's HMAC keys (32 random bytes each, 0600, created once per data dir, kept across
// restarts): `review.key` for servers' launch hashes, so the token the API shows for a launch
// reveals nothing about its env values or secrets, and `args.key` for the digest of a call's
// arguments in the activity record and confirmations, so a short secret
// argument (a 4-digit PIN) cannot be found by hashing guesses. An unsalted hash of either could
// be guessed offline; a keyed one tells nothing without the key.
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { ensurePrivateDir } from '../paths'

export const REVIEW_KEY_FILE = 'review.key'
export const ARGS_KEY_FILE = 'args.key'
const KEY_BYTES = 32

const cache = new Map<string, Buffer>()

function read(file: string): Buffer | null {
  try {
    const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64')
    return key.length === KEY_BYTES ? key : null
  } catch {
    return null
  }
}

/** The review key of `dataDir` (launch hashes): a damaged one is replaced, which only asks for a review again. */
export function reviewKey(dataDir: string): Buffer {
  return dataKey(dataDir, REVIEW_KEY_FILE)
}

/** The arguments key of `dataDir` (args_hmac): a damaged one is replaced; older digests then match no new call. */
export function argsKey(dataDir: string): Buffer {
  return dataKey(dataDir, ARGS_KEY_FILE)
}

/**
 * The key in `<dataDir>/<name>`, created on first use. A new key appears whole (written aside,
 * then hard-linked into place, which fails when another process was first: then its key is used),
 * and a damaged one is replaced.
 */
export function dataKey(dataDir: string, name: string): Buffer {
  const file = path.join(dataDir, name)
  const known = cache.get(file)
  if (known) return known
  let key = read(file)
  if (!key) {
    ensurePrivateDir(dataDir)
    const fresh = randomBytes(KEY_BYTES)
    const tmp = `${file}.${process.pid}.new`
    try {
      fs.writeFileSync(tmp, fresh.toString('base64') + '\n', { mode: 0o600 })
      try {
        fs.linkSync(tmp, file)
        key = fresh
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
        key = read(file)
        if (!key) {
          // there but damaged: replace it whole
          fs.renameSync(tmp, file)
          key = fresh
        }
      }
    } finally {
      fs.rmSync(tmp, { force: true })
    }
  }
  cache.set(file, key)
  return key
}
