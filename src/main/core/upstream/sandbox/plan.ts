// The sandbox plan of one stdio upstream, independent of the mechanism (bwrap, sandbox-exec):
// what is hidden, what is writable, what is re-exposed read-only, whether the network is on.
// Grants are checked here: nothing may ever reach Toolgate's data dir or config file.
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { ServerConfig } from '../../../../shared/config-schema'
import { parseEgressRules, type EgressRule } from '../../../../shared/egress'
import { hiddenPaths, isVariantName, type HiddenInputs, type HiddenPath } from './hidden'
import { folded, hiddenEntryOf, hiddenInHome, launchShown, within } from './home-view'
import { PlanFacts, planFacts } from './plan-facts'

/**
 * run: the server's own permissions; inspect: nothing writable but temp and caches, no network but
 * its package runner's registry; inspect-network: the same with an open network.
 */
export type SandboxMode = 'run' | 'inspect' | 'inspect-network'

/** Where Toolgate keeps what upstreams must never see. */
export interface SandboxContext {
  dataDir: string
  configPath: string
}

export interface Mount {
  /** where the server sees it */
  path: string
  /** the host folder shown there: the same path for grants, the server's own folder for a cache */
  source: string
  write: boolean
}

/**
 * A folder that holds hidden files, shown as a copy of itself: an empty folder with each of its
 * entries put back (bound, or a symlink re-created), the hidden ones left out. A file renamed over
 * a hidden one later (an editor's save, Toolgate's own atomic config write) stays out of sight,
 * which a cover mounted on the file itself does not (the rename detaches it).
 */
export interface MaskedFolder {
  path: string
  entries: Array<{ name: string; symlink?: string }>
}

/**
 * none: no network at all; open: outbound connections (its own namespace on Linux); allow: only
 * the hosts of its allowlist, through Toolgate's egress proxy (egress-proxy.ts).
 */
export type NetworkPlan = 'none' | 'open' | 'allow'

export interface SandboxPlan {
  network: NetworkPlan
  /** network 'allow': the hosts it may reach */
  allow: EgressRule[]
  /** host loopback ports it may connect to (`sandbox.loopback`; never while inspecting) */
  loopback: number[]
  /** fresh, empty, writable and private to this server (the temp dirs) */
  privateDirs: string[]
  /** host paths bound into the view, read-only or writable, parents before children */
  mounts: Mount[]
  /** folders holding hidden files, re-created without them (bwrap) */
  masked: MaskedFolder[]
  /** existing hidden paths not already left out of a masked folder: covered where they are */
  hidden: Array<{ path: string; dir: boolean }>
  /** every hidden path, existing or not, symlinks resolved and as written (path rules: seatbelt) */
  secrets: HiddenPath[]
  /** the user's home as the server sees it ($HOME) */
  home: string
  cwd?: string
}

/** The launchers' package caches (npx, uvx, pip...): writable, and each server has its own. */
export const CACHE_DIRS = ['.npm', '.cache']

export class SandboxGrantError extends Error {
  override readonly name = 'SandboxGrantError'
}

export interface PlanEnv {
  /** $HOME as the server gets it */
  home: string
  /** every home to protect ($HOME and the account's home) */
  homes: string[]
  uid: number | null
  platform: NodeJS.Platform
  /** the folders replaced by a private, empty one: the temp dirs, and /run on Linux */
  tempDirs: string[]
  /** the folders of Toolgate's own PATH: those in a hidden entry of a home are shown (home-view.ts) */
  path?: string[]
  /** the server's program as found on its PATH (absolute): its folder is shown like one of PATH */
  program?: string
  /** $TOOLGATE_COMPILE_CACHE_DIR: Toolgate's compiled code kept outside the data dir (bin/toolgate.js) */
  compileCache?: string
}

export function currentPlanEnv(facts: PlanFacts = planFacts()): PlanEnv {
  const home = process.env.HOME || os.homedir()
  let account: string | null = null
  try {
    account = os.userInfo().homedir
  } catch {
    // no password database entry (some containers)
  }
  const homes = unique([home, os.homedir(), account].filter((h): h is string => Boolean(h)).map((h) => facts.real(path.resolve(h))))
  // Linux: /run too (/var/run is a link to it): the sockets of local services live there (a
  // database's, the system bus, docker's), reachable whatever the network namespace
  const runDirs = process.platform === 'linux' ? ['/run', '/var/run'].filter((d) => facts.exists(d)) : []
  const tempDirs = process.platform === 'win32' ? [] : unique(['/tmp', '/var/tmp', os.tmpdir(), ...runDirs].map((d) => facts.real(d)))
  const pathDirs = (process.env.PATH ?? '').split(path.delimiter).filter((d) => path.isAbsolute(d))
  const cache = process.env.TOOLGATE_COMPILE_CACHE_DIR
  return {
    home: path.resolve(home),
    homes,
    uid: process.getuid?.() ?? null,
    platform: process.platform,
    tempDirs,
    path: pathDirs,
    ...(cache ? { compileCache: path.resolve(cache) } : {}),
  }
}

/** The path with every symlink resolved, as far as it exists (the rest appended), asked now. */
export function real(p: string): string {
  return new PlanFacts().real(p)
}

/** Whether `child` is `parent` or lies below it (path.relative's answer: neither '' nor '..' first, nor absolute). */
export function isInside(child: string, parent: string): boolean {
  if (child === parent) return true
  // a plan asks this thousands of times, mostly of plain absolute paths: then it is a prefix check
  // with path.relative's exact answer, and without its two path.resolve() calls
  if (POSIX && plainPath(child) && plainPath(parent)) {
    const base = parent === '/' ? '/' : `${parent}/`
    return child.startsWith(base) && !child.startsWith('..', base.length)
  }
  const rel = path.relative(parent, child)
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)
}

const POSIX = path.sep === '/'

/** An absolute path path.resolve() leaves as it is: no empty, '.' or '..' segment, no trailing slash. */
function plainPath(p: string): boolean {
  if (p.charCodeAt(0) !== 47) return false
  if (p.length === 1) return true
  return !p.endsWith('/') && !p.endsWith('/.') && !p.endsWith('/..') && !p.includes('//') && !p.includes('/./') && !p.includes('/../')
}

function unique<T>(xs: T[]): T[] {
  return [...new Set(xs)]
}

export function expandHome(p: string, home: string): string {
  if (p === '~') return home
  if (p.startsWith('~/')) return path.join(home, p.slice(2))
  return path.resolve(p)
}

export function sandboxGrants(config: ServerConfig): { fs_read: string[]; fs_write: string[]; network: boolean | string[]; loopback: number[] } {
  const sb = typeof config.sandbox === 'object' ? config.sandbox : {}
  return { fs_read: sb.fs_read ?? [], fs_write: sb.fs_write ?? [], network: sb.network ?? true, loopback: sb.loopback ?? [] }
}

/**
 * The folder of this server's own package caches (`<data dir>/sandbox-caches/<name>@<hash>`):
 * one per server name and launch (command, args, cwd), so no server reads what another left in
 * its cache, and a server re-added under an old name with another command starts clean.
 */
export function cacheRoot(config: ServerConfig, dataDir: string): string {
  const launch = JSON.stringify([config.name, config.command ?? '', config.args ?? [], config.cwd ?? ''])
  const hash = crypto.createHash('sha256').update(launch).digest('hex').slice(0, 16)
  return path.join(path.resolve(dataDir), 'sandbox-caches', `${config.name}@${hash}`)
}

/** Where a launcher cache of the home (`.npm`, `.cache`) lives for this server. */
export function cacheSource(root: string, dir: string): string {
  return path.join(root, dir.replace(/^\./, ''))
}

/**
 * Builds the plan. Throws SandboxGrantError when a grant (or the cwd) reaches into Toolgate's
 * data dir or config file, or reaches a hidden path only through a symlink. `facts` is what it
 * reads of the filesystem (plan-facts.ts): fresh unless plans are built together.
 */
export function buildPlan(
  config: ServerConfig,
  ctx: SandboxContext,
  mode: SandboxMode,
  env: PlanEnv = currentPlanEnv(),
  /**
   * what its package runner must reach to start (npx: the npm registry; registries.ts): the only
   * network of Inspect, and added to an allowlist (the runner downloads the package first)
   */
  runner: { hosts: string[]; loopback: number[] } | null = null,
  facts: PlanFacts = planFacts(),
): SandboxPlan {
  const real = (p: string): string => facts.real(p)
  const exists = (p: string): boolean => facts.exists(p)
  const grants = sandboxGrants(config)
  const listed = Array.isArray(grants.network) && grants.network.length > 0
  const withRunner = runner !== null && (mode === 'inspect' || (mode === 'run' && listed))
  const allow = parseEgressRules([...(mode === 'run' && listed ? (grants.network as string[]) : []), ...(withRunner ? runner.hosts : [])])
  const own: NetworkPlan = grants.network === true ? 'open' : allow.length > 0 ? 'allow' : 'none'
  const network: NetworkPlan = mode === 'inspect' ? (allow.length > 0 ? 'allow' : 'none') : mode === 'inspect-network' ? 'open' : own
  const runnerPorts = withRunner ? runner.loopback : []
  const loopback = [...new Set([...(mode === 'run' ? grants.loopback : []), ...(mode !== 'inspect-network' ? runnerPorts : [])])]
  const ownPort = facts.derive(`port\0${ctx.dataDir}`, () => toolgatePort(ctx.dataDir))
  grants.loopback.forEach((port, i) => {
    if (port === ownPort) {
      throw new SandboxGrantError(
        `sandbox.loopback[${i}] ${port} is Toolgate's own port (its control API and MCP endpoint), which upstreams may never reach; grant another port`,
      )
    }
  })
  const hiddenIn: HiddenInputs = {
    homes: env.homes,
    dataDir: ctx.dataDir,
    configPath: ctx.configPath,
    compileCache: env.compileCache ?? null,
    uid: env.uid,
    platform: env.platform,
  }
  const baseKey = JSON.stringify(['base', hiddenIn.homes, hiddenIn.dataDir, hiddenIn.configPath, hiddenIn.compileCache, hiddenIn.uid, hiddenIn.platform])
  const base = facts.derive(baseKey, () => hiddenBase(hiddenIn, facts))
  const { hiddenAll, hiddenReal, toolgateOwn } = base

  const check = (label: string, written: string): string => {
    const lexical = expandHome(written, env.home)
    const resolved = real(lexical)
    toolgateOwn.forEach((own, i) => {
      if (isInside(resolved, own) || isInside(lexical, own)) {
        const what = i === 0 ? 'data dir' : i === 1 ? 'config file' : 'compile cache ($TOOLGATE_COMPILE_CACHE_DIR)'
        const why = i < 2 ? 'it holds the keys that approve servers' : 'it holds code Toolgate runs'
        throw new SandboxGrantError(`${label} "${written}" is inside Toolgate's ${what} (${own}), which upstreams may never see (${why}); grant another path`)
      }
    })
    for (const h of hiddenReal) {
      if (isInside(resolved, h) && !hiddenAll.some((x) => isInside(lexical, x.path) || isInside(lexical, real(x.path)))) {
        throw new SandboxGrantError(
          `${label} "${written}" leads to ${resolved} through a symlink, inside the hidden ${h}; grant the hidden path itself if you mean it`,
        )
      }
    }
    return resolved
  }

  const mounts: Mount[] = []
  const add = (p: string, write: boolean): void => {
    const existing = mounts.find((m) => m.path === p)
    if (existing) existing.write ||= write
    else mounts.push({ path: p, source: p, write })
  }
  // Things under a private temp dir that the server needs to see: its home, its program.
  const underTemp = (p: string): boolean => env.tempDirs.some((t) => isInside(p, t))
  if (underTemp(real(env.home)) && exists(env.home)) add(real(env.home), false)
  for (const arg of [config.command ?? '', ...(config.args ?? [])]) {
    if (!path.isAbsolute(arg) || !exists(arg)) continue
    const r = real(arg)
    if (!underTemp(r) || toolgateOwn.some((own) => isInside(r, own))) continue
    add(facts.isDir(r) ? r : path.dirname(r), false)
  }
  let cwd: string | undefined
  if (config.cwd !== undefined) {
    cwd = check('cwd', config.cwd)
    add(cwd, mode === 'run')
  }
  grants.fs_read.forEach((g, i) => {
    const r = check(`sandbox.fs_read[${i}]`, g)
    if (exists(r)) add(r, false)
  })
  grants.fs_write.forEach((g, i) => {
    const r = check(`sandbox.fs_write[${i}]`, g)
    if (exists(r)) add(r, mode === 'run')
  })
  // Linux: a home's hidden entries are out of sight unless shown (home-view.ts). The toolchain and
  // the folders the launch runs from are, read-only, unless they are (in) a hidden path.
  // (the same for every server of a run with this PATH and program: found once per run)
  const launch =
    env.platform === 'linux'
      ? facts.derive(JSON.stringify(['shown', baseKey, env.home, env.path ?? [], env.program ?? '']), () => launchView(env, base, facts))
      : { shown: [], links: [] }
  for (const r of launch.shown) add(r, false)
  const links = [...launch.links]
  // Each server's own caches, where npx and uvx expect the shared ones.
  const caches = cacheRoot(config, ctx.dataDir)
  for (const c of CACHE_DIRS) {
    const at = real(path.join(env.home, c))
    if (!exists(at)) continue // no home (or not ours): the server simply has no cache
    const existing = mounts.findIndex((m) => m.path === at)
    if (existing >= 0) mounts.splice(existing, 1) // a grant of the shared cache is the server's own cache
    mounts.push({ path: at, source: cacheSource(caches, c), write: true })
  }
  mounts.sort((a, b) => depth(a.path) - depth(b.path))

  // what the server sees of the hidden paths depends on the mounts only through these (a cache's source is its own)
  const seen: SeenMount[] = mounts.map((m) => ({ path: m.path, write: m.write, host: m.source === m.path }))
  const view = facts.derive(JSON.stringify(['view', baseKey, env.tempDirs, seen, links]), () => hiddenView(base, seen, links, env, facts))

  return {
    network,
    allow: network === 'allow' ? allow : [],
    loopback,
    privateDirs: env.tempDirs,
    mounts,
    masked: view.masked.map((m) => ({ path: m.path, entries: m.entries.map((e) => ({ ...e })) })),
    hidden: view.hidden.map((h) => ({ ...h })),
    secrets: base.secrets.map((h) => ({ ...h })),
    home: env.home,
    ...(cwd ? { cwd } : {}),
  }
}

/**
 * What the launch shows of the homes' hidden entries (home-view.ts): the toolchain and the folders
 * it runs from, resolved, unless they are (in) a hidden path or Toolgate's own; and the symlinks
 * in a home they are shown through (~/.nvm -> elsewhere: the link is shown too).
 */
function launchView(env: PlanEnv, base: HiddenBase, facts: PlanFacts): { shown: string[]; links: string[] } {
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
interface HiddenBase {
  hiddenAll: HiddenPath[]
  /** each hidden path resolved, once */
  hiddenReal: string[]
  kindOf: Map<string, HiddenPath['kind']>
  /** the data dir and config file, resolved */
  toolgateOwn: string[]
  secrets: HiddenPath[]
}

function hiddenBase(inp: HiddenInputs, facts: PlanFacts): HiddenBase {
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
  const hiddenReal = unique(hiddenAll.map((h) => real(h.path)))
  const secrets = unique([...hiddenAll.map((h) => h.path), ...hiddenReal]).map((p) => ({ path: p, kind: kindOf.get(p) ?? 'file' }))
  return { hiddenAll, hiddenReal, kindOf, toolgateOwn, secrets }
}

/** A mount as the hidden view needs it: where, writable or not, and whether it shows the host's own folder there. */
interface SeenMount {
  path: string
  write: boolean
  host: boolean
}

/**
 * Which folders are re-created without their hidden entries, and which hidden paths are covered
 * where they lie. `links`: symlinks among a home's hidden entries that lead to a shown folder.
 */
function hiddenView(
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

/** The port of the live Toolgate owning this data dir (its instance.json), if any. */
function toolgatePort(dataDir: string): number | null {
  try {
    const inst = JSON.parse(fs.readFileSync(path.join(dataDir, 'instance.json'), 'utf8')) as { url?: unknown }
    return typeof inst.url === 'string' ? Number(new URL(inst.url).port) || null : null
  } catch {
    return null
  }
}

export function depth(p: string): number {
  return p.split(/[\\/]+/).filter(Boolean).length
}
