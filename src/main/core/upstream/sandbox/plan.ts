// The sandbox plan of one stdio upstream, independent of the mechanism (bwrap, sandbox-exec):
// what is hidden, what is writable, what is re-exposed read-only, whether the network is on.
// Grants are checked here: nothing may ever reach Toolgate's data dir or config file.
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { ServerConfig } from '../../../../shared/config-schema'
import { parseEgressRules, type EgressRule } from '../../../../shared/egress'
import type { HiddenInputs, HiddenPath } from './hidden'
import { hiddenAround, hiddenBase, hiddenView, launchView, type HiddenBase, type SeenMount } from './plan-hidden'
import { depth, isInside, unique } from './plan-paths'
import { PlanFacts, planFacts } from './plan-facts'

export { depth, isInside } from './plan-paths'

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

/** The SandboxGrantError `err` is or wraps, if any: a launch its plan refuses, which no retry changes. */
export function grantRefusal(err: unknown): SandboxGrantError | null {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = (e as Error & { cause?: unknown }).cause, depth++) {
    if (e instanceof SandboxGrantError) return e
  }
  return null
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
  // (asked twice per launch: by the launch that creates the folders and by its plan; a function of the text alone)
  let hash = LAUNCH_HASHES.get(launch)
  if (hash === undefined) {
    hash = crypto.createHash('sha256').update(launch).digest('hex').slice(0, 16)
    if (LAUNCH_HASHES.size >= 1024) LAUNCH_HASHES.clear()
    LAUNCH_HASHES.set(launch, hash)
  }
  return path.join(path.resolve(dataDir), 'sandbox-caches', `${config.name}@${hash}`)
}

const LAUNCH_HASHES = new Map<string, string>()

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
  // what follows from the facts alone is found once and kept while they stay the same (plan-facts.ts
  // recall: asked again for each run, each value taken again only when every answer it used is the same)
  const baseOf = (): HiddenBase => facts.recall(baseKey, () => hiddenBase(hiddenIn, facts))
  const base = baseOf()
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
  /** The hidden paths `p` lies in (as written or resolved), resolved. */
  const secretsOf = (p: string): string[] => hiddenAround(base, p, real(p))
  // Things under a private temp dir that the server needs to see: its home, its program (never
  // a hidden path, nor a folder that is one: a file in /run/user/<uid> must not show that folder).
  const underTemp = (p: string): boolean => env.tempDirs.some((t) => isInside(p, t))
  if (underTemp(real(env.home)) && exists(env.home)) add(real(env.home), false)
  for (const arg of [config.command ?? '', ...(config.args ?? [])]) {
    if (!path.isAbsolute(arg) || !exists(arg)) continue
    const r = real(arg)
    if (!underTemp(r) || toolgateOwn.some((own) => isInside(r, own))) continue
    const shown = facts.isDir(r) ? r : path.dirname(r)
    if (secretsOf(arg).length > 0 || secretsOf(shown).length > 0) continue
    add(shown, false)
  }
  const granted: string[] = []
  let cwd: string | undefined
  if (config.cwd !== undefined) {
    cwd = check('cwd', config.cwd)
    add(cwd, mode === 'run')
    granted.push(cwd)
  }
  grants.fs_read.forEach((g, i) => {
    const r = check(`sandbox.fs_read[${i}]`, g)
    if (exists(r)) add(r, false)
    granted.push(r)
  })
  grants.fs_write.forEach((g, i) => {
    const r = check(`sandbox.fs_write[${i}]`, g)
    if (exists(r)) add(r, mode === 'run')
    granted.push(r)
  })
  // A program inside a hidden path (~/.ssh/x, ~/.aws/bin/tool, /run/user/<uid>/...) is shown only
  // through a grant at or inside that path: its folder would show the keys beside it. Refused with
  // the grant to add, rather than failing inside the sandbox as a missing file.
  const program = env.program ?? (config.command !== undefined && path.isAbsolute(config.command) ? config.command : null)
  if (program) {
    const around = secretsOf(program)
    const r = real(program)
    if (around.length > 0 && !granted.some((g) => isInside(r, g) && around.every((h) => isInside(g, h)))) {
      throw new SandboxGrantError(
        `command "${config.command ?? program}"${r === program ? '' : ` (${r})`} lies inside ${around[0]}, which sandboxed servers never see (it holds credentials), ` +
          `so its folder is not shown to it; grant the program alone if you trust it: "sandbox": { "fs_read": ["${r}"] }, or move it out of there`,
      )
    }
  }
  // Linux: a home's hidden entries are out of sight unless shown (home-view.ts). The toolchain and
  // the folders the launch runs from are, read-only, unless they are (in) a hidden path.
  // (the same for every server with this PATH and program: found once, kept while its answers hold)
  const launch =
    env.platform === 'linux'
      ? facts.recall(JSON.stringify(['shown', baseKey, env.home, env.path ?? [], env.program ?? '']), () => launchView(env, baseOf(), facts))
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
  const view = facts.recall(JSON.stringify(['view', baseKey, env.tempDirs, seen, links]), () => hiddenView(baseOf(), seen, links, env, facts))

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

/** The port of the live Toolgate owning this data dir (its instance.json), if any. */
function toolgatePort(dataDir: string): number | null {
  try {
    const inst = JSON.parse(fs.readFileSync(path.join(dataDir, 'instance.json'), 'utf8')) as { url?: unknown }
    return typeof inst.url === 'string' ? Number(new URL(inst.url).port) || null : null
  } catch {
    return null
  }
}
