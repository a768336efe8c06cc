// What a sandbox plan shows and hides of the homes' hidden entries (Linux: home-view.ts): the
// toolchain and program folders shown, the folders re-created without their hidden entries, the
// hidden paths covered where they lie. Found once per run of plans, and kept while the answers
// they were found from stay the same (plan-facts.ts recall).
import path from 'node:path'
import { hiddenPaths, isVariantName, type HiddenInputs, type HiddenPath } from './hidden'
import { folded, hiddenEntryOf, hiddenInHome, launchShown, within } from './home-view'
import type { PlanFacts } from './plan-facts'
import { depth, isInside, plainPath, unique } from './plan-paths'
import type { MaskedFolder, PlanEnv, SandboxPlan } from './plan'

/**
 * What the launch shows of the homes' hidden entries (home-view.ts): the toolchain and the folders
 * it runs from, resolved, unless they are (in) a hidden path or Toolgate's own; and the symlinks
 * in a home they are shown through (~/.nvm -> elsewhere: the link is shown too).
 */
export function launchView(env: PlanEnv, base: HiddenBase, facts: PlanFacts): { shown: string[]; links: string[] } {
  const real = (p: string): string => facts.real(p)
  const { hiddenAll, hiddenReal, toolgateOwn } = base
  const program = env.program ? unique([path.dirname(env.program), path.dirname(real(env.program))]) : []
  const dirs = unique((env.path ?? []).flatMap((d) => [d, real(d)]))
  const shown: string[] = []
  const links: string[] = []
  for (const s of launchShown(unique([...env.homes, env.home]), dirs, program)) {
    if (!facts.isDir(s.path)) continue // (most are missing: one stat, no resolving)
    const r = real(s.path)
    if (toolgateOwn.some((own) => within(r, own))) continue
    if (hiddenReal.some((h) => within(r, h)) || hiddenAll.some((h) => within(s.path, h.path))) continue
    shown.push(r)
    const entry = hiddenEntryOf(s.path, s.home)
    // (the home as the re-created one is named: resolved)
    const at = entry && path.join(real(s.home), path.basename(entry))
    if (at && facts.readlink(at) !== null && !links.includes(at)) links.push(at)
  }
  return { shown, links }
}

/** The hidden paths of a home set and data dir, with their copies and where they lead. */
export interface HiddenBase {
  hiddenAll: HiddenPath[]
  /** each hidden path resolved, once */
  hiddenReal: string[]
  kindOf: Map<string, HiddenPath['kind']>
  /** the data dir and config file, resolved */
  toolgateOwn: string[]
  secrets: HiddenPath[]
  /** where each of hiddenAll leads (resolved), by index */
  leadsTo: string[]
  /** the indexes of hiddenAll by path as written, and by where it leads (hiddenAround) */
  byPath: Map<string, number[]>
  byReal: Map<string, number[]>
  /** indexes whose path or resolved path is not plain (hiddenAround checks them one by one) */
  irregular: number[]
}

export function hiddenBase(inp: HiddenInputs, facts: PlanFacts): HiddenBase {
  const real = (p: string): string => facts.real(p)
  const named = hiddenPaths(inp)
  const hiddenAll = [...named, ...variantsOf(named, facts)]
  // the data dir, the config file, and the compile cache when it lives elsewhere: upstreams never see nor get them
  const toolgateOwn = [real(path.resolve(inp.dataDir)), real(path.resolve(inp.configPath)), ...(inp.compileCache ? [real(inp.compileCache)] : [])]
  const kindOf = new Map<string, HiddenPath['kind']>()
  for (const h of hiddenAll) {
    kindOf.set(h.path, h.kind)
    kindOf.set(real(h.path), h.kind)
  }
  const leadsTo = hiddenAll.map((h) => real(h.path))
  const hiddenReal = unique(leadsTo)
  const secrets = unique([...hiddenAll.map((h) => h.path), ...hiddenReal]).map((p) => ({ path: p, kind: kindOf.get(p) ?? 'file' }))
  const byPath = new Map<string, number[]>()
  const byReal = new Map<string, number[]>()
  const irregular: number[] = []
  hiddenAll.forEach((h, i) => {
    if (!plainPath(h.path) || !plainPath(leadsTo[i])) return void irregular.push(i)
    add(byPath, h.path, i)
    add(byReal, leadsTo[i], i)
  })
  return { hiddenAll, hiddenReal, kindOf, toolgateOwn, secrets, leadsTo, byPath, byReal, irregular }
}

function add(index: Map<string, number[]>, key: string, i: number): void {
  const at = index.get(key)
  if (at) at.push(i)
  else index.set(key, [i])
}

/**
 * The hidden paths (resolved) that `p` lies in, as written or resolved (`r`: `p` resolved),
 * shallowest first: isInside against each of hiddenAll, asked only of the paths `p` and `r` can
 * lie in (themselves and their parents) when both are plain; one by one when not.
 */
export function hiddenAround(base: HiddenBase, p: string, r: string): string[] {
  const { hiddenAll, leadsTo } = base
  const hit = (i: number): boolean => isInside(p, hiddenAll[i].path) || isInside(r, leadsTo[i])
  let found: number[]
  if (plainPath(p) && plainPath(r)) {
    const candidates = new Set(base.irregular)
    for (const a of selfAndParents(p)) for (const i of base.byPath.get(a) ?? []) candidates.add(i)
    for (const a of selfAndParents(r)) for (const i of base.byReal.get(a) ?? []) candidates.add(i)
    found = [...candidates].filter(hit).sort((a, b) => a - b)
  } else {
    found = hiddenAll.map((_, i) => i).filter(hit)
  }
  return unique(found.map((i) => leadsTo[i])).sort((a, b) => depth(a) - depth(b))
}

/** A plain absolute path and every folder above it, up to `/`. */
function selfAndParents(p: string): string[] {
  const out = [p]
  for (let end = p.lastIndexOf('/'); end > 0; end = p.lastIndexOf('/', end - 1)) out.push(p.slice(0, end))
  if (p !== '/') out.push('/')
  return out
}

/** A mount as the hidden view needs it: where, writable or not, and whether it shows the host's own folder there. */
export interface SeenMount {
  path: string
  write: boolean
  host: boolean
}

/**
 * Which folders are re-created without their hidden entries, and which hidden paths are covered
 * where they lie. `links`: symlinks among a home's hidden entries that lead to a shown folder.
 */
export function hiddenView(
  base: HiddenBase,
  mounts: readonly SeenMount[],
  links: readonly string[],
  env: PlanEnv,
  facts: PlanFacts,
): Pick<SandboxPlan, 'masked' | 'hidden'> {
  const { hiddenAll, hiddenReal, kindOf } = base
  const underTemp = (p: string): boolean => env.tempDirs.some((t) => isInside(p, t))
  /** The mount a path is seen through (the innermost one), if any. */
  const mountOf = (p: string): SeenMount | undefined => {
    let best: SeenMount | undefined
    for (const m of mounts) if (isInside(p, m.path) && (!best || depth(m.path) > depth(best.path))) best = m
    return best
  }
  const linux = env.platform === 'linux'
  /** Linux: the hidden entry of a home `p` lies in (home-view.ts), if any. */
  const homeEntry = (p: string): string | null => {
    if (!linux) return null
    for (const h of env.homes) {
      const e = hiddenEntryOf(p, h)
      if (e) return e
    }
    return null
  }
  /**
   * Whether the host path `p` is what the server sees at `p` (not a private temp dir, not its own
   * cache, not in a hidden entry of a home unless a mount inside that entry shows it).
   */
  const hostVisible = (p: string): boolean => {
    const m = mountOf(p)
    const entry = homeEntry(p)
    if (entry && !(m && isInside(m.path, entry))) return false
    if (m) return m.host
    return !underTemp(p)
  }
  const writable = (p: string): boolean => {
    const m = mountOf(p)
    return m !== undefined && m.write && m.host
  }
  const mounted = new Set(mounts.map((m) => m.path))

  // Folders holding hidden files are re-created without them (bwrap: the rename-proof way).
  const masked: MaskedFolder[] = []
  const maskedPaths = new Set<string>()
  const leaveOut = new Set([...hiddenReal, ...hiddenAll.map((h) => h.path)])
  // compared as a case-insensitive filesystem would: .config/GH is .config/gh there
  const leaveOutFolded = new Set([...leaveOut].map(folded))
  if (linux) {
    // the folders of hidden files, and of the hidden folders of a home (a grant of ~/.config
    // shows no ~/.config/gh created later)
    const inHome = (h: string): boolean => env.homes.some((home) => within(h, home) && h !== home)
    const hiddenFiles = unique(hiddenReal.filter((h) => kindOf.get(h) === 'file' || inHome(h)))
    for (const h of hiddenFiles) {
      const parent = path.dirname(h)
      if (parent === h || parent === '/' || parent === '/etc' || !hostVisible(parent)) continue
      // A folder the server may write cannot be re-created (what it writes there would be lost):
      // the file is covered where it lies (covered-files.ts keeps Toolgate's own writes in place).
      if (writable(parent)) continue
      // also when the file does not exist yet: one created while the server runs stays out of sight
      if (!maskedPaths.has(parent) && facts.isDir(parent)) maskedPaths.add(parent)
    }
    for (const folder of byDepth([...maskedPaths])) {
      const entries: MaskedFolder['entries'] = []
      for (const name of facts.readdir(folder)) {
        const full = path.join(folder, name)
        if (leaveOutFolded.has(folded(full))) continue
        if (mounted.has(full)) continue // mounted by its own grant or cache
        if (!hostVisible(full) && !links.includes(full)) continue // a home's hidden entry: out of sight unless shown
        const link = facts.readlink(full)
        entries.push(link === null ? { name } : { name, symlink: link })
      }
      masked.push({ path: folder, entries })
    }
  }

  // Below an entry left out of a re-created folder (and not granted again): out of sight already.
  const leftOut = (h: string): boolean => {
    for (let a = h; path.dirname(a) !== a; a = path.dirname(a)) {
      if (maskedPaths.has(path.dirname(a)) && leaveOut.has(a) && !mounted.has(a)) return true
      if (mounted.has(a)) return false
    }
    return false
  }
  const hidden: SandboxPlan['hidden'] = []
  for (const h of byDepth(hiddenReal)) {
    if (!facts.exists(h) || !hostVisible(h) || leftOut(h)) continue
    if (mounted.has(h)) continue // granted explicitly, as a whole
    if (hidden.some((x) => x.dir && isInside(h, x.path))) continue
    hidden.push({ path: h, dir: facts.isDir(h) })
  }
  // A home that cannot be re-created (the server may write it): its hidden entries are covered
  // where they lie, each one there at the start (a symlink is not: it leads where it is covered or shown).
  for (const home of linux ? env.homes : []) {
    if (maskedPaths.has(home) || !hostVisible(home) || !facts.isDir(home)) continue
    for (const name of facts.readdir(home)) {
      const full = path.join(home, name)
      if (!hiddenInHome(name) || mounted.has(full) || facts.readlink(full) !== null) continue
      if (hidden.some((x) => x.path === full || (x.dir && isInside(full, x.path)))) continue
      hidden.push({ path: full, dir: facts.isDir(full) })
    }
  }
  return { masked, hidden }
}

/** Paths sorted by depth, shallowest first (stable: equal depths keep their order). */
function byDepth(paths: readonly string[]): string[] {
  return paths
    .map((p, i) => ({ p, d: depth(p), i }))
    .sort((a, b) => a.d - b.d || a.i - b.i)
    .map((x) => x.p)
}

/**
 * The existing copies and variants of the hidden files (isVariantName), next to each file as
 * written and next to where it leads: hidden like the file itself. Those created later are left
 * out too on Linux (a re-created folder shows what was there at the start) and by a path rule on
 * macOS (seatbelt.ts).
 */
function variantsOf(hidden: readonly HiddenPath[], facts: PlanFacts): HiddenPath[] {
  const out: HiddenPath[] = []
  for (const h of hidden) {
    if (h.kind !== 'file') continue
    for (const file of new Set([h.path, facts.real(h.path)])) {
      const folder = path.dirname(file)
      const base = path.basename(file)
      for (const n of facts.readdir(folder)) if (isVariantName(n, base)) out.push({ path: path.join(folder, n), kind: 'file' })
    }
  }
  return out
}
