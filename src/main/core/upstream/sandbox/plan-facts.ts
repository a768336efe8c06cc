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
    return once(this.reals, p, () => {
      // most paths a plan resolves do not exist: asking first spares a thrown ENOENT (an Error with its
      // stack) per missing path; a path that cannot be resolved (vanished, unreadable) is as if missing
      const out = fs.existsSync(p) ? orElse(null, () => fs.realpathSync.native(p)) : null
      if (out !== null) return out
      const parent = path.dirname(p)
      return parent === p ? p : path.join(this.real(parent), path.basename(p))
    })
  }

  /** Whether something is there (a dangling symlink counts). */
  exists(p: string): boolean {
    // (throwIfNoEntry: false: a missing path, the usual answer here, is not a thrown Error)
    return once(this.lstats, p, () => orElse(false, () => fs.lstatSync(p, { throwIfNoEntry: false }) !== undefined))
  }

  /** Whether it is a folder (symlinks followed). */
  isDir(p: string): boolean {
    return once(this.dirs, p, () => orElse(false, () => fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false))
  }

  /** A folder's entries, sorted ([] when it cannot be read). */
  readdir(dir: string): readonly string[] {
    return once(this.listings, dir, () => (fs.existsSync(dir) ? orElse([], () => fs.readdirSync(dir).sort()) : []))
  }

  /** Where a symlink points as written, or null when it is not one. */
  readlink(p: string): string | null {
    return once(this.links, p, () => orElse(null, () => (fs.lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink() ? fs.readlinkSync(p) : null)))
  }

  /** `make()` once per key: `key` must name every input of `make` besides these answers. */
  derive<T>(key: string, make: () => T): T {
    return once(this.derived as Map<string, T>, key, make)
  }
}

/** The answer kept under `key`, asked (once) when there is none yet. */
function once<T>(kept: Map<string, T>, key: string, ask: () => T): T {
  if (kept.has(key)) return kept.get(key) as T
  const answer = ask()
  kept.set(key, answer)
  return answer
}

/** What `ask` answers, or `fallback` when it throws (an unreadable path answers as a missing one). */
function orElse<T>(fallback: T, ask: () => T): T {
  try {
    return ask()
  } catch {
    return fallback
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
