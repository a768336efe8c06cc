// How a server's isolation looks from outside (control API, UI, `servers list`,
// `upstream_servers`): isolated or not, why not, and the permissions it runs with.
import os from 'node:os'
import path from 'node:path'
import type { IsolationInfo, SandboxProfileInfo } from '../../../../shared/api'
import { usesStdio, type ServerConfig } from '../../../../shared/config-schema'
import { sandboxSupport, type SandboxSupport } from './detect'
import { networkSupport } from './network'
import { launcherOf, registryAccess } from './registries'
import { CACHE_DIRS, expandHome, isInside, sandboxGrants } from './plan'

export const OPT_OUT_REASON =
  'sandbox: false in mcp_config.json: the operator turned isolation off, so it runs with your full rights (every file, key and network)'
export const REMOTE_REASON = 'remote (HTTP) server: Toolgate does not run it, so there is nothing to sandbox here'

/** The permissions of a stdio server as configured (paths expanded; `~` is the user's home). */
export function profileOf(config: ServerConfig, home = process.env.HOME || os.homedir()): SandboxProfileInfo {
  const g = sandboxGrants(config)
  const write = [
    ...CACHE_DIRS.map((c) => path.join(home, c)),
    ...(config.cwd !== undefined ? [path.resolve(config.cwd)] : []),
    ...g.fs_write.map((p) => expandHome(p, home)),
  ]
  // an npx/uvx server with an allowlist also reaches its package registry (to download itself)
  const runner = Array.isArray(g.network) && g.network.length > 0 ? registryAccess(launcherOf(config)) : null
  return {
    network: runner ? [...new Set([...(g.network as string[]), ...runner.hosts.map((h) => h.replace(/:443$/, ''))])] : g.network,
    loopback: [...new Set([...g.loopback, ...(runner?.loopback ?? [])])],
    fs_read: [...new Set(g.fs_read.map((p) => expandHome(p, home)))],
    fs_write: [...new Set(write)],
  }
}

export function isolationOf(config: ServerConfig, support: SandboxSupport = sandboxSupport()): IsolationInfo {
  if (!usesStdio(config)) return { isolated: false, reason: REMOTE_REASON, risk: false, profile: null }
  if (config.sandbox === false) return { isolated: false, reason: OPT_OUT_REASON, risk: true, profile: null }
  const profile = profileOf(config)
  if (!support.available || !support.mechanism) {
    return { isolated: false, reason: `no sandbox on this machine: ${support.reason ?? 'unknown reason'}`, risk: true, profile }
  }
  // Linux: a home it may write is not re-created, so what is hidden of it is what was there at its start
  const homeWritable = support.mechanism === 'bwrap' && writesHome(config)
  const base: IsolationInfo = { isolated: true, mechanism: support.mechanism, profile, ...(homeWritable ? { home_writable: true as const } : {}) }
  if (support.mechanism === 'bwrap' && (profile.network === true || profile.loopback.length > 0)) {
    const net = networkSupport(support.binary)
    if (!net.available) return { ...base, network_risk: net.reason ?? 'no network namespace' }
  }
  return base
}

/** Whether a grant lets the server write a home (`~`, or a folder the home lies in), as `buildPlan` makes it writable. */
export function writesHome(config: ServerConfig, home = process.env.HOME || os.homedir()): boolean {
  const homes = [...new Set([home, os.homedir()].map((h) => path.resolve(h)))]
  const writable = [...sandboxGrants(config).fs_write, ...(config.cwd !== undefined ? [config.cwd] : [])].map((p) => expandHome(p, home))
  return writable.some((w) => homes.some((h) => isInside(h, w)))
}
