// The sandbox plan of one stdio upstream, independent of the mechanism (bwrap, sandbox-exec):
// what is hidden, what is writable, what is re-exposed read-only, whether the network is on.
// Grants are checked here: nothing may ever reach Toolgate's data dir or config file.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { ServerConfig } from '../../../../shared/config-schema'
import { hiddenPaths } from './hidden'

/** run: the server's own permissions; inspect: no network, nothing writable but temp and caches. */
export type SandboxMode = 'run' | 'inspect' | 'inspect-network'

/** Where Toolgate keeps what upstreams must never see. */
export interface SandboxContext {
  dataDir: string
  configPath: string
}

export interface Mount {
  path: string
  write: boolean
}

export interface SandboxPlan {
  network: boolean
  /** fresh, empty, writable and private to this server (the temp dirs) */
  privateDirs: string[]
  /** host paths bound into the view, read-only or writable, parents before children */
  mounts: Mount[]
  /** existing host paths covered: a folder shows empty, a file unreadable */
  hidden: Array<{ path: string; dir: boolean }>
  /** the user's home as the server sees it ($HOME) */
  home: string
  cwd?: string
}

/** The launchers' package caches (npx, uvx, pip...), writable in every mode. */
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
  /** the temp dirs replaced by a private one */
  tempDirs: string[]
}

export function currentPlanEnv(): PlanEnv {
  const home = process.env.HOME || os.homedir()
  let account: string | null = null
  try {
    account = os.userInfo().homedir
  } catch {
    // no password database entry (some containers)
  }
  const homes = unique([home, os.homedir(), account].filter((h): h is string => Boolean(h)).map((h) => real(path.resolve(h))))
  const tempDirs = process.platform === 'win32' ? [] : unique(['/tmp', '/var/tmp', os.tmpdir()].map((d) => real(d)))
  return { home: path.resolve(home), homes, uid: process.getuid?.() ?? null, platform: process.platform, tempDirs }
}

/** The path with every symlink resolved, as far as it exists (the rest appended). */
export function real(p: string): string {
  try {
    return fs.realpathSync.native(p)
  } catch {
    const parent = path.dirname(p)
    return parent === p ? p : path.join(real(parent), path.basename(p))
  }
}

export function isInside(child: string, parent: string): boolean {
  if (child === parent) return true
  const rel = path.relative(parent, child)
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)
}

function unique<T>(xs: T[]): T[] {
  return [...new Set(xs)]
}

export function expandHome(p: string, home: string): string {
  if (p === '~') return home
  if (p.startsWith('~/')) return path.join(home, p.slice(2))
  return path.resolve(p)
}

function exists(p: string): boolean {
  try {
    fs.lstatSync(p)
    return true
  } catch {
    return false
  }
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory()
  } catch {
    return false
  }
}

export function sandboxGrants(config: ServerConfig): { fs_read: string[]; fs_write: string[]; network: boolean } {
  const sb = typeof config.sandbox === 'object' ? config.sandbox : {}
  return { fs_read: sb.fs_read ?? [], fs_write: sb.fs_write ?? [], network: sb.network ?? true }
}

/**
 * Builds the plan. Throws SandboxGrantError when a grant (or the cwd) reaches into Toolgate's
 * data dir or config file, or reaches a hidden path only through a symlink.
 */
export function buildPlan(config: ServerConfig, ctx: SandboxContext, mode: SandboxMode, env: PlanEnv = currentPlanEnv()): SandboxPlan {
  const grants = sandboxGrants(config)
  const network = mode === 'inspect' ? false : mode === 'inspect-network' ? true : grants.network
  const hiddenAll = hiddenPaths({ homes: env.homes, dataDir: ctx.dataDir, configPath: ctx.configPath, uid: env.uid, platform: env.platform })
  const toolgateOwn = [real(path.resolve(ctx.dataDir)), real(path.resolve(ctx.configPath))]
  const hiddenReal = unique(hiddenAll.map((h) => real(h)))

  const check = (label: string, written: string): string => {
    const lexical = expandHome(written, env.home)
    const resolved = real(lexical)
    for (const own of toolgateOwn) {
      if (isInside(resolved, own) || isInside(lexical, own)) {
        throw new SandboxGrantError(
          `${label} "${written}" is inside Toolgate's ${own === toolgateOwn[0] ? 'data dir' : 'config file'} (${own}), which upstreams may never see (it holds the keys that approve servers); grant another path`,
        )
      }
    }
    for (const h of hiddenReal) {
      if (isInside(resolved, h) && !hiddenAll.some((x) => isInside(lexical, x) || isInside(lexical, real(x)))) {
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
    else mounts.push({ path: p, write })
  }
  // Things under a private temp dir that the server needs to see: its home, its program.
  const underTemp = (p: string): boolean => env.tempDirs.some((t) => isInside(p, t))
  if (underTemp(real(env.home)) && exists(env.home)) add(real(env.home), false)
  for (const arg of [config.command ?? '', ...(config.args ?? [])]) {
    if (!path.isAbsolute(arg) || !exists(arg)) continue
    const r = real(arg)
    if (!underTemp(r) || toolgateOwn.some((own) => isInside(r, own))) continue
    add(isDir(r) ? r : path.dirname(r), false)
  }
  for (const c of CACHE_DIRS) {
    const p = path.join(env.home, c)
    if (exists(p)) add(real(p), true)
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
  mounts.sort((a, b) => depth(a.path) - depth(b.path))

  const visible = (p: string): boolean => !underTemp(p) || mounts.some((m) => isInside(p, m.path))
  const hidden: SandboxPlan['hidden'] = []
  for (const h of [...hiddenReal].sort((a, b) => depth(a) - depth(b))) {
    if (!exists(h) || !visible(h)) continue
    if (mounts.some((m) => m.path === h)) continue // granted explicitly, as a whole
    if (hidden.some((x) => x.dir && isInside(h, x.path))) continue
    hidden.push({ path: h, dir: isDir(h) })
  }
  return { network, privateDirs: env.tempDirs, mounts, hidden, home: env.home, ...(cwd ? { cwd } : {}) }
}

export function depth(p: string): number {
  return p.split(/[\\/]+/).filter(Boolean).length
}
