// What Inspect lets a server launched by a package runner reach: `npx` must download its package
// from the npm registry (the one `npm config get registry` names: a mirror where one is set),
// `uvx` from the Python index (PyPI: pypi.org and files.pythonhosted.org, or the index of
// UV_DEFAULT_INDEX / UV_INDEX_URL / PIP_INDEX_URL). Only that, through the egress proxy: the
// unreviewed program itself gets no other network. And which Inspect failures were about the
// network, the only ones that offer "Inspect with network".
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import type { ServerConfig } from '../../../../shared/config-schema'
import { normalizeHost } from '../../../../shared/egress'
import { which } from './detect'

export type Launcher = 'npm' | 'pypi'

export const DEFAULT_NPM_REGISTRY = 'https://registry.npmjs.org/'
export const PYPI_HOSTS = ['pypi.org', 'files.pythonhosted.org']

/** The package runner a server is launched with, if any (`npx …`, `npm exec …`, `uvx …`, `uv tool run …`). */
export function launcherOf(config: Pick<ServerConfig, 'command' | 'args'>): Launcher | null {
  const bin = path.basename(config.command ?? '').replace(/\.(cmd|exe)$/i, '')
  const [a0, a1] = config.args ?? []
  if (bin === 'npx' || bin === 'bunx' || (bin === 'npm' && (a0 === 'exec' || a0 === 'x')) || (bin === 'pnpm' && a0 === 'dlx')) return 'npm'
  if (bin === 'uvx' || (bin === 'uv' && a0 === 'tool' && a1 === 'run') || (bin === 'pipx' && a0 === 'run')) return 'pypi'
  return null
}

/** What the launch may reach while inspected, and the variables that point the launcher there. */
export interface RegistryAccess {
  /** allowlist entries (host:port) */
  hosts: string[]
  /** a registry on this machine's loopback (a local mirror): its port, forwarded */
  loopback: number[]
  env: Record<string, string>
  /** for the user: "the npm registry (registry.npmjs.org)" */
  label: string
}

const npmCache = new Map<string, string>()

/** The npm registry of this user (a mirror where `npm config get registry` names one). */
export function npmRegistry(envPath = process.env.PATH ?? ''): string {
  const override = process.env.npm_config_registry ?? process.env.NPM_CONFIG_REGISTRY
  if (override) return override
  const hit = npmCache.get(envPath)
  if (hit) return hit
  let registry = DEFAULT_NPM_REGISTRY
  const npm = which('npm', envPath)
  if (npm) {
    const r = spawnSync(npm, ['config', 'get', 'registry'], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'] })
    const said = (r.stdout ?? '').trim()
    if (r.status === 0 && /^https?:\/\//.test(said)) registry = said
  }
  npmCache.set(envPath, registry)
  return registry
}

function entryOf(url: string): { host: string; port: number } | null {
  try {
    const u = new URL(url)
    const host = normalizeHost(u.hostname)
    if (!host || (u.protocol !== 'https:' && u.protocol !== 'http:')) return null
    return { host, port: Number(u.port || (u.protocol === 'https:' ? 443 : 80)) }
  } catch {
    return null
  }
}

const isLoopback = (host: string): boolean => host === 'localhost' || host === '::1' || /^127\./.test(host)

/** Where `launcher` downloads from, for Inspect (null: not a package runner). */
export function registryAccess(launcher: Launcher | null, env: NodeJS.ProcessEnv = process.env): RegistryAccess | null {
  if (!launcher) return null
  const urls =
    launcher === 'npm' ? [npmRegistry(env.PATH ?? '')] : [env.UV_DEFAULT_INDEX ?? env.UV_INDEX_URL ?? env.PIP_INDEX_URL].filter((u): u is string => Boolean(u))
  const hosts: string[] = []
  const loopback: number[] = []
  for (const url of urls) {
    const e = entryOf(url)
    if (!e) continue
    if (isLoopback(e.host)) loopback.push(e.port)
    else hosts.push(`${e.host.includes(':') ? `[${e.host}]` : e.host}:${e.port}`)
  }
  if (launcher === 'pypi' && urls.length === 0) hosts.push(...PYPI_HOSTS.map((h) => `${h}:443`))
  const envOut: Record<string, string> =
    launcher === 'npm' ? { npm_config_registry: urls[0] ?? DEFAULT_NPM_REGISTRY } : urls[0] ? { UV_DEFAULT_INDEX: urls[0], PIP_INDEX_URL: urls[0] } : {}
  if (loopback.length) Object.assign(envOut, { NO_PROXY: 'localhost,127.0.0.1', no_proxy: 'localhost,127.0.0.1' })
  const shown = [...hosts.map((h) => h.replace(/:(443|80)$/, '')), ...loopback.map((p) => `localhost:${p}`)].join(', ')
  return { hosts, loopback, env: envOut, label: `${launcher === 'npm' ? 'the npm registry' : 'the Python package index'} (${shown})` }
}

/**
 * Whether an Inspect failure was about the network (a download that could not happen), not
 * about the program (no such command, a missing secret, a crash): only then is "Inspect with
 * network" a useful suggestion.
 */
export function looksLikeNetworkFailure(text: string): boolean {
  if (/\bspawn \S+ ENOENT\b|no such command|\$\{secret:|\$\{env:|secret .* (is not set|not found)/i.test(text)) return false
  return /\b(ENOTFOUND|EAI_AGAIN|ENETUNREACH|EHOSTUNREACH|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ECONNABORTED|EPROTO|UNABLE_TO_GET_ISSUER_CERT|getaddrinfo|fetch failed|network|Could not resolve host|Failed to fetch|dns error|tunnel(ing)? (failed|socket)|sandbox\.network|proxy|Connection (refused|reset)|timed out while (connecting|downloading))\b/i.test(
    text,
  )
}
