// What sandbox plans read of the filesystem (does a path exist, where does it lead, what does a
// folder hold), asked once per path, and shared by the plans built in one synchronous run only.
import fs from 'node:fs'
import path from 'node:path'

/**
 * The filesystem as the plans of one moment see it: every answer is asked once and then kept, so
 * it must not outlive that moment (a kept answer is what a path was, not what it is). A plan
 * built on its own gets a fresh one; plans built together share one through sharePlanFacts().
 * `derive` keeps results computed only from these answers and the key's inputs.
 */
export class PlanFacts {
  private readonly reals = new Map<string, string>()
  private readonly lstats = new Map<string, boolean>()
  private readonly dirs = new Map<string, boolean>()
  private readonly listings = new Map<string, readonly string[]>()
  private readonly links = new Map<string, string | null>()
  private readonly derived = new Map<string, unknown>()

  /** The path with every symlink resolved, as far as it exists (the rest appended). */
  real(p: string): string {
    const hit = this.reals.get(p)
    if (hit !== undefined) return hit
    let out: string | null = null
    // most paths a plan resolves do not exist: asking first spares a thrown ENOENT (an Error with its
    // stack) per missing path; a path that cannot be resolved is handled alike either way
    if (fs.existsSync(p)) {
      try {
        out = fs.realpathSync.native(p)
      } catch {
        // vanished, or unreadable: as if missing
      }
    }
    if (out === null) {
      const parent = path.dirname(p)
      out = parent === p ? p : path.join(this.real(parent), path.basename(p))
    }
    this.reals.set(p, out)
    return out
  }

  /** Whether something is there (a dangling symlink counts). */
  exists(p: string): boolean {
    let hit = this.lstats.get(p)
    if (hit === undefined) {
      try {
        // (throwIfNoEntry: false: a missing path, the usual answer here, is not a thrown Error)
        hit = fs.lstatSync(p, { throwIfNoEntry: false }) !== undefined
      } catch {
        hit = false
      }
      this.lstats.set(p, hit)
    }
    return hit
  }

  /** Whether it is a folder (symlinks followed). */
  isDir(p: string): boolean {
    let hit = this.dirs.get(p)
    if (hit === undefined) {
      try {
        hit = fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false
      } catch {
        hit = false
      }
      this.dirs.set(p, hit)
    }
    return hit
  }

  /** A folder's entries, sorted ([] when it cannot be read). */
  readdir(dir: string): readonly string[] {
    let hit = this.listings.get(dir)
    if (hit === undefined) {
      hit = []
      if (fs.existsSync(dir)) {
        try {
          hit = fs.readdirSync(dir).sort()
        } catch {
          // unreadable: nothing to list
        }
      }
      this.listings.set(dir, hit)
    }
    return hit
  }

  /** Where a symlink points as written, or null when it is not one. */
  readlink(p: string): string | null {
    let hit = this.links.get(p)
    if (hit === undefined) {
      try {
        hit = fs.lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink() ? fs.readlinkSync(p) : null
      } catch {
        hit = null
      }
      this.links.set(p, hit)
    }
    return hit
  }

  /** `make()` once per key: `key` must name every input of `make` besides these answers. */
  derive<T>(key: string, make: () => T): T {
    if (this.derived.has(key)) return this.derived.get(key) as T
    const value = make()
    this.derived.set(key, value)
    return value
  }
}

let shared: PlanFacts | null = null

/**
 * Runs `fn` with one PlanFacts for every plan built inside it (the upstream manager starts a few
 * servers in one turn of the event loop this way). The answers live exactly as long as `fn` runs:
 * synchronously, so no callback of this process runs between the plans, and the next plan after
 * it asks the filesystem again. A run inside a run shares the outer one.
 */
export function sharePlanFacts<T>(fn: () => T): T {
  if (shared) return fn()
  shared = new PlanFacts()
  try {
    return fn()
  } finally {
    shared = null
  }
}

/** The facts of the current sharePlanFacts() run, or fresh ones. */
export function planFacts(): PlanFacts {
  return shared ?? new PlanFacts()
}
