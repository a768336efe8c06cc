// The data dir's review key (`review.key`, 0600): the HMAC key of servers' launch hashes, so the
// token the API shows for a launch reveals nothing about its env values or secrets (an unsalted
// hash of them could be guessed offline). Created once per data dir, kept across restarts.
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { ensurePrivateDir } from '../paths'

export const REVIEW_KEY_FILE = 'review.key'
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

/**
 * The review key of `dataDir`, created on first use. A new key appears whole (written aside, then
 * hard-linked into place, which fails when another process was first: then its key is used), and
 * a damaged one is replaced: launch hashes then change, which only asks for a review again.
 */
export function reviewKey(dataDir: string): Buffer {
  const file = path.join(dataDir, REVIEW_KEY_FILE)
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
