// One owner per data dir: a lock file holding the owner's pid, and instance.json saying how to
// reach it (control API URL). A lock whose pid is dead is stale and is taken over.
import fs from 'node:fs'
import { parseOnce } from '../../../shared/parse-once'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { ensurePrivateDir, resolveApiKey } from '../paths'
import { z } from 'zod'

export const InstanceSchema = z.object({
  pid: z.number().int(),
  url: z.string().nullable(),
  mcp_url: z.string().nullable(),
  started_at: z.string(),
  version: z.string(),
  kind: z.enum(['serve', 'stdio', 'app']),
  /** a file (mode 0600) holding this instance's admin key; the key itself is never written here */
  api_key_file: z.string().nullable(),
})
export type Instance = z.infer<typeof InstanceSchema>

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM'
  }
}

export class DataDirLock {
  private constructor(
    readonly dataDir: string,
    private readonly lockFile: string,
  ) {}

  static lockPath(dataDir: string): string {
    return path.join(dataDir, 'toolgate.lock')
  }
  static instancePath(dataDir: string): string {
    return path.join(dataDir, 'instance.json')
  }

  /** Takes the lock, or returns null when a live process holds it. Stale locks are recovered. */
  static tryAcquire(dataDir: string): DataDirLock | null {
    ensurePrivateDir(dataDir)
    const file = DataDirLock.lockPath(dataDir)
    for (let attempt = 0; attempt < 5; attempt++) {
      // The lock appears with its pid already in it (written aside, then hard-linked into place,
      // which fails if it exists): a lock file created empty and written after could be read in
      // between as "garbage", taken for stale and taken over, giving two owners. Bridges whose
      // owner died all race for the lock at once, so this window matters.
      const tmp = `${file}.${process.pid}.new`
      try {
        fs.writeFileSync(tmp, String(process.pid), { mode: 0o600 })
        fs.linkSync(tmp, file)
        return new DataDirLock(dataDir, file)
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
        let seen: string
        try {
          seen = fs.readFileSync(file, 'utf8').trim()
        } catch {
          continue // removed meanwhile: try again
        }
        const holder = Number.parseInt(seen, 10)
        if (Number.isInteger(holder) && holder > 0 && holder !== process.pid && pidAlive(holder)) return null
        // Stale (dead pid or garbage). Move it aside atomically rather than deleting it: if another
        // process took the lock over between our read and now, we moved ITS fresh lock, see that,
        // and put it back, so two processes never both own the data dir.
        const aside = `${file}.stale-${process.pid}`
        try {
          fs.renameSync(file, aside)
        } catch {
          continue // someone else moved it first
        }
        const moved = fs.readFileSync(aside, 'utf8').trim()
        if (moved !== seen) {
          try {
            fs.linkSync(aside, file)
          } finally {
            fs.rmSync(aside, { force: true })
          }
          return null
        }
        fs.rmSync(aside, { force: true })
        fs.rmSync(DataDirLock.instancePath(dataDir), { force: true })
      } finally {
        fs.rmSync(tmp, { force: true })
      }
    }
    return null
  }

  writeInstance(instance: Instance): void {
    const file = DataDirLock.instancePath(this.dataDir)
    const tmp = `${file}.${process.pid}.tmp`
    fs.writeFileSync(tmp, JSON.stringify(instance, null, 2) + '\n', { mode: 0o600 })
    fs.renameSync(tmp, file)
  }

  release(): void {
    try {
      const holder = fs.readFileSync(this.lockFile, 'utf8').trim()
      if (holder === String(process.pid)) {
        fs.rmSync(DataDirLock.instancePath(this.dataDir), { force: true })
        fs.rmSync(instanceKeyPath(this.dataDir), { force: true })
        fs.rmSync(this.lockFile, { force: true })
      }
    } catch {
      // already gone
    }
  }
}

export function instanceKeyPath(dataDir: string): string {
  return path.join(dataDir, 'instance.key')
}

/** Writes a fresh per-instance admin key (mode 0600) and returns it. */
export function writeInstanceKey(dataDir: string): string {
  const key = `tgi_${randomBytes(24).toString('base64url')}`
  const file = instanceKeyPath(dataDir)
  fs.rmSync(file, { force: true })
  fs.writeFileSync(file, key + '\n', { mode: 0o600 })
  return key
}

/** The key to reach a live instance: its instance key file, else the configured admin key. */
export function instanceKey(inst: Instance, dataDir: string, configKey: string | undefined): string | null {
  try {
    if (inst.api_key_file) {
      const key = fs.readFileSync(inst.api_key_file, 'utf8').trim()
      if (key) return key
    }
  } catch {
    // fall back to the configured key
  }
  return resolveApiKey(dataDir, configKey, false).key
}

/** The live owner of a data dir, if any (instance.json with a live pid). */
export function readLiveInstance(dataDir: string): Instance | null {
  try {
    const parsed = parseOnce(InstanceSchema, JSON.parse(fs.readFileSync(DataDirLock.instancePath(dataDir), 'utf8')))
    if (!parsed.success) return null
    if (parsed.data.pid === process.pid || !pidAlive(parsed.data.pid)) return null
    const lockPid = Number.parseInt(fs.readFileSync(DataDirLock.lockPath(dataDir), 'utf8').trim(), 10)
    return lockPid === parsed.data.pid ? parsed.data : null
  } catch {
    return null
  }
}
