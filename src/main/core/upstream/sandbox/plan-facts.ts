// What sandbox plans read of the filesystem (does a path exist, where does it lead, what does a
// folder hold), asked once per path, and shared by the plans built in one synchronous run only;
// and what plans compute from those answers, kept across runs as long as the answers stay the same.
import fs from 'node:fs'
import path from 'node:path'

type FactKind = 'real' | 'exists' | 'isDir' | 'readdir' | 'readlink'
type Answer = string | boolean | null | readonly string[]

/** One question asked of the filesystem and what it answered. */
interface Fact {
  kind: FactKind
  path: string
  answer: Answer
}

/** A value recall() computed, and what its computation used, in the order first used. */
interface Recalled {
  value: unknown
  trace: readonly Step[]
}

/** What a recalled value's computation used: a question and its answer, or the value of a recall() inside it. */
type Step = Fact | { kind: 'recall'; key: string; entry: Recalled }

/**
 * The filesystem as the plans of one moment see it: every answer is asked once and then kept, so
 * it must not outlive that moment (a kept answer is what a path was, not what it is). A plan
 * built on its own gets a fresh one; plans built together share one through sharePlanFacts().
 * `derive` keeps results computed only from these answers and the key's inputs, for this run;
 * `recall` keeps them across runs too, each taken again only after every answer it used was asked
 * again, now, and found the same (so no answer outlives its run).
 */
export class PlanFacts {
  private readonly reals = new Map<string, string>()
  private readonly lstats = new Map<string, boolean>()
  private readonly dirs = new Map<string, boolean>()
  private readonly listings = new Map<string, readonly string[]>()
  private readonly links = new Map<string, string | null>()
  private readonly derived = new Map<string, unknown>()
  private readonly recalled = new Map<string, Recalled>()
  /** fresh: recall() computes anew, taking nothing kept from earlier runs (nor keeping anything) */
  private readonly fresh: boolean
  /** the questions asked while the innermost recall() computes its value (null: none computes) */
  private asked: Map<string, Step> | null = null

  constructor(opts: { fresh?: boolean } = {}) {
    this.fresh = opts.fresh === true
  }

  /** The path with every symlink resolved, as far as it exists (the rest appended). */
  real(p: string): string {
    return this.note('real', p, this.realOf(p))
  }

  private realOf(p: string): string {
    return once(this.reals, p, () => {
      // most paths a plan resolves do not exist: asking first spares a thrown ENOENT (an Error with its
      // stack) per missing path; a path that cannot be resolved (vanished, unreadable) is as if missing
      const out = fs.existsSync(p) ? orElse(null, () => fs.realpathSync.native(p)) : null
      if (out !== null) return out
      const parent = path.dirname(p)
      return parent === p ? p : path.join(this.realOf(parent), path.basename(p))
    })
  }

  /** Whether something is there (a dangling symlink counts). */
  exists(p: string): boolean {
    // (throwIfNoEntry: false: a missing path, the usual answer here, is not a thrown Error)
    return this.note(
      'exists',
      p,
      once(this.lstats, p, () => orElse(false, () => fs.lstatSync(p, { throwIfNoEntry: false }) !== undefined)),
    )
  }

  /** Whether it is a folder (symlinks followed). */
  isDir(p: string): boolean {
    return this.note(
      'isDir',
      p,
      once(this.dirs, p, () => orElse(false, () => fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false)),
    )
  }

  /** A folder's entries, sorted ([] when it cannot be read). */
  readdir(dir: string): readonly string[] {
    return this.note(
      'readdir',
      dir,
      once(this.listings, dir, () => (fs.existsSync(dir) ? orElse([], () => fs.readdirSync(dir).sort()) : [])),
    )
  }

  /** Where a symlink points as written, or null when it is not one. */
  readlink(p: string): string | null {
    return this.note(
      'readlink',
      p,
      once(this.links, p, () => orElse(null, () => (fs.lstatSync(p, { throwIfNoEntry: false })?.isSymbolicLink() ? fs.readlinkSync(p) : null))),
    )
  }

  /** `make()` once per key: `key` must name every input of `make` besides these answers. */
  derive<T>(key: string, make: () => T): T {
    // (a value recall() keeps may depend on nothing but the answers it saw: see recall())
    if (this.asked) throw new Error(`plan facts: derive("${key.slice(0, 40)}") inside recall(), whose value must depend on nothing else`)
    return once(this.derived as Map<string, T>, key, make)
  }

  /**
   * `make()` once per key, and its value kept after this run: a later run (or plan) takes it
   * again when every question `make` asked answers the same now, asked again in the order first
   * asked; else `make` runs again. `make` must be a function of `key` (naming every other input)
   * and of the answers it gets from these facts and from recall() inside it, nothing else (no
   * other reads, no derive()), and its value must never be changed (it is frozen). Since `make`
   * sees the same answers, it would ask the same questions and return the same value: the value is
   * what `make` would return now, without the work of computing it (the sandbox plan's home view
   * and hidden paths, the same for every server of a start).
   */
  recall<T>(key: string, make: () => T): T {
    let entry = this.settled(key)
    if (!entry) {
      entry = this.compute(make)
      if (!this.fresh) keep(key, entry)
      this.recalled.set(key, entry)
    }
    // an outer recall's value depends on this one's value as taken now (the very entry: one
    // computed anew is another, and the outer value is then computed anew too)
    this.noteStep(`recall\0${key}`, { kind: 'recall', key, entry })
    return entry.value as T
  }

  /** The entry this run has for `key`: taken or computed already, or the kept one if it still holds now. */
  private settled(key: string): Recalled | undefined {
    const here = this.recalled.get(key)
    if (here || this.fresh) return here
    const kept = KEPT.get(key)
    if (!kept) return undefined
    // (what is asked to check it is not a step of an outer value being computed: the entry is)
    const outer = this.asked
    this.asked = null
    try {
      if (!this.stillTrue(kept.trace)) return undefined
    } finally {
      this.asked = outer
    }
    this.recalled.set(key, kept)
    return kept
  }

  private compute(make: () => unknown): Recalled {
    const outer = this.asked
    const asked = new Map<string, Step>()
    this.asked = asked
    try {
      return { value: deepFreeze(make()), trace: [...asked.values()] }
    } finally {
      this.asked = outer
    }
  }

  /**
   * Whether each step holds now: each question answers as it did (asked now, through this run's
   * answers), and each recall inside takes the same entry (checked now the same way if this run has none yet).
   */
  private stillTrue(trace: readonly Step[]): boolean {
    for (const s of trace) {
      if (s.kind === 'recall') {
        if (this.settled(s.key) !== s.entry) return false
      } else if (!sameAnswer(this.ask(s.kind, s.path), s.answer)) return false
    }
    return true
  }

  private ask(kind: FactKind, p: string): Answer {
    switch (kind) {
      case 'real':
        return this.real(p)
      case 'exists':
        return this.exists(p)
      case 'isDir':
        return this.isDir(p)
      case 'readdir':
        return this.readdir(p)
      case 'readlink':
        return this.readlink(p)
    }
  }

  /** Notes a question asked while a recall() computes (its answer, as this run has it). */
  private note<T extends Answer>(kind: FactKind, p: string, answer: T): T {
    if (this.asked) this.noteStep(`${kind}\0${p}`, { kind, path: p, answer })
    return answer
  }

  private noteStep(id: string, step: Step): void {
    const asked = this.asked
    if (asked && !asked.has(id)) asked.set(id, step)
  }
}

/** What recall() keeps across runs: the last few keys (a start's plans use a handful). */
const KEPT = new Map<string, Recalled>()
const KEPT_MAX = 32

function keep(key: string, entry: Recalled): void {
  KEPT.delete(key)
  KEPT.set(key, entry)
  if (KEPT.size > KEPT_MAX) KEPT.delete(KEPT.keys().next().value as string)
}

function sameAnswer(a: Answer, b: Answer): boolean {
  if (a === b) return true
  if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/** The value, its arrays and plain objects frozen (a kept value is handed to many plans). */
function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value
  if (!Array.isArray(value) && Object.getPrototypeOf(value) !== Object.prototype) return value // a Map: read only by convention
  Object.freeze(value)
  for (const v of Object.values(value)) deepFreeze(v)
  return value
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
