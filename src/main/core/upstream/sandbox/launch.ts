// How a stdio upstream is started: through the machine's sandbox (bwrap or sandbox-exec) with
// the plan of its config and mode, or directly when the operator opted out or the platform has
// no sandbox. The transport calls this and spawns what it returns.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { ServerConfig } from '../../../../shared/config-schema'
import { resolveConfigPath, resolveDataDir } from '../../paths'
import { bwrapArgs } from './bwrap'
import { holdCovers } from '../../covered-files'
import { sandboxSupport, type SandboxSupport } from './detect'
import { buildPlan, cacheRoot, cacheSource, CACHE_DIRS, currentPlanEnv, real, type SandboxContext, type SandboxMode, type SandboxPlan } from './plan'
import { planFacts, type PlanFacts } from './plan-facts'
import { innerUserFlags, networkSupport, pastaCommand, PASTA_NOISE, sandboxResolvConf } from './network'
import { seatbeltProfile } from './seatbelt'
import { egressProxy, type EgressLog } from './egress-proxy'
import { launcherOf, registryAccess } from './registries'

/** What the transport needs to start an upstream in a sandbox (absent = the default data dir). */
export interface SandboxRequest {
  ctx: SandboxContext
  mode: SandboxMode
  /** the server's log: what the egress proxy refuses it is said there */
  logger?: EgressLog
}

export interface LaunchSpec {
  command: string
  args: string[]
  env: Record<string, string>
  cwd?: string
  /** bwrap | sandbox-exec, or null when started directly */
  mechanism: SandboxSupport['mechanism']
  /** removes what the launch created (macOS: the private temp dir); call once the process is gone */
  cleanup(): void
  /** stderr lines of the sandbox's own tools (not the server's), left out of its log */
  noise?: RegExp
  /**
   * the command starts a process group of its own (setsid), whose leftovers are killed once the
   * process is gone (process-group.ts)
   */
  ownGroup?: boolean
}

export function defaultSandboxContext(): SandboxContext {
  const dataDir = resolveDataDir(undefined)
  return { dataDir, configPath: resolveConfigPath(dataDir, undefined) }
}

/** Whether this config and mode run in the sandbox (inspect always does, whatever the config says). */
export function wantsSandbox(config: ServerConfig, mode: SandboxMode): boolean {
  return mode !== 'run' || config.sandbox !== false
}

export function launchSpec(
  config: ServerConfig & { command: string },
  env: Record<string, string>,
  req: SandboxRequest | undefined,
  support: SandboxSupport = sandboxSupport(),
): LaunchSpec {
  const mode = req?.mode ?? 'run'
  const direct: LaunchSpec = { command: config.command, args: config.args ?? [], env, cwd: config.cwd, mechanism: null, cleanup: () => undefined }
  if (!wantsSandbox(config, mode) || !support.available || !support.binary) return direct
  // bwrap would only say "execvp: No such file" after starting: fail the way a direct spawn does.
  const program = findCommand(config.command, env.PATH ?? '', config.cwd)
  if (!program) {
    throw Object.assign(new Error(`spawn ${config.command} ENOENT (no such command${config.command.includes('/') ? '' : ' on PATH'})`), { code: 'ENOENT' })
  }
  const ctx = req?.ctx ?? defaultSandboxContext()
  // what the plan reads of the filesystem: shared with the plans built in the same run (plan-facts.ts)
  const facts = planFacts()
  const planEnv = facts.derive(
    JSON.stringify(['env', process.env.HOME, os.homedir(), os.tmpdir(), process.env.PATH, process.env.TOOLGATE_COMPILE_CACHE_DIR]),
    () => currentPlanEnv(facts),
  )
  const home = env.HOME ? path.resolve(env.HOME) : planEnv.home
  const caches = ensureCaches(config, ctx.dataDir, home, facts)
  // an npx/uvx server's registry: all the network of its Inspect; added to its allowlist
  const listed = typeof config.sandbox === 'object' && Array.isArray(config.sandbox.network) && config.sandbox.network.length > 0
  const registry =
    mode === 'inspect' || (mode === 'run' && listed) ? registryAccess(launcherOf(config), { ...process.env, PATH: env.PATH ?? process.env.PATH }) : null
  const plan = buildPlan(config, ctx, mode, { ...planEnv, home, homes: [...new Set([...planEnv.homes, facts.real(home)])], program }, registry, facts)
  // an allowlist: the server's own registration with Toolgate's egress proxy
  const proxy = plan.network === 'allow' ? egressProxy().register(config.name, plan.allow, req?.logger ?? null) : null
  const viaProxy = { ...(proxy ? proxyEnv(proxy.url) : {}), ...(registry?.env ?? {}) }
  if (support.mechanism === 'bwrap') {
    const release = holdCovers(plan.hidden.filter((h) => !h.dir).map((h) => h.path))
    const linux = linuxCommand(plan, config, support.binary, ctx.dataDir, planEnv.uid, proxy ? egressProxy().listenPort : null, facts)
    const [command, ...args] = linux.argv
    return {
      ...direct,
      command,
      args,
      env: { ...env, ...viaProxy },
      mechanism: 'bwrap',
      cleanup: launchCleanup(release, proxy),
      noise: PASTA_NOISE,
      ownGroup: linux.ownGroup,
    }
  }
  const tmp = real(fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-sbx-')))
  return {
    ...direct,
    command: support.binary,
    args: ['-p', seatbeltProfile(plan, tmp, { proxyPort: proxy ? egressProxy().listenPort : null }), config.command, ...(config.args ?? [])],
    // no mounts on macOS: the launchers are pointed at the server's own caches
    env: { ...env, TMPDIR: tmp, ...cacheEnv(caches), ...viaProxy },
    mechanism: 'sandbox-exec',
    cleanup: launchCleanup(removeTree(tmp), proxy),
  }
}

/**
 * A launch's cleanup, made outside launchSpec: a closure made inside it would hold launchSpec's
 * whole context (its run's PlanFacts with every answer of that run, ≈ 40 KB) for as long as the
 * server runs, since the transport keeps the cleanup until the process is gone.
 */
function launchCleanup(own: () => void, proxy: { release(): void } | null): () => void {
  return () => {
    own()
    proxy?.release()
  }
}

function removeTree(dir: string): () => void {
  return () => fs.rmSync(dir, { recursive: true, force: true })
}

/**
 * What sends a program through the egress proxy: the proxy variables curl, Python, Go, git, uv
 * and npm read (Node's own fetch reads them from Node 24 with NODE_USE_ENV_PROXY), nothing
 * exempted. The URL's password is this launch's token.
 */
export function proxyEnv(url: string): Record<string, string> {
  return {
    HTTPS_PROXY: url,
    https_proxy: url,
    HTTP_PROXY: url,
    http_proxy: url,
    ALL_PROXY: url,
    all_proxy: url,
    NO_PROXY: '',
    no_proxy: '',
    npm_config_proxy: url,
    npm_config_https_proxy: url,
    NODE_USE_ENV_PROXY: '1',
  }
}

/**
 * bwrap, in pasta's network namespace when the server has network, an allowlist or loopback
 * ports: outbound connections (network on) or only the egress proxy's port (an allowlist: no
 * interface, so no direct connection and no DNS), plus the granted ports; nothing else of the
 * host. Without pasta a server with network on shares the host's network (shown as a risk); one
 * with an allowlist or without network gets bwrap's empty namespace.
 */
function linuxCommand(
  plan: SandboxPlan,
  config: ServerConfig & { command: string },
  bwrap: string,
  dataDir: string,
  uid: number | null,
  proxyPort: number | null,
  facts: PlanFacts,
): { argv: string[]; ownGroup: boolean } {
  const program = [config.command, ...(config.args ?? [])] as const
  // the data dir's two files, written when missing or changed: once per run of plans (plan-facts.ts)
  const base = { emptyFile: facts.derive(`empty\0${dataDir}`, () => emptyFile(dataDir)) }
  const forward = [...(proxyPort ? [proxyPort] : []), ...plan.loopback]
  const needsPasta = plan.network === 'open' || forward.length > 0
  const net = needsPasta ? networkSupport(bwrap) : null
  if (!net?.available) {
    const netns = plan.network === 'open' ? 'inherit' : 'new'
    return { argv: [bwrap, ...bwrapArgs(plan, program[0], program.slice(1), { ...base, netns })], ownGroup: false }
  }
  const outbound = plan.network === 'open'
  const inner = bwrapArgs(plan, program[0], program.slice(1), {
    ...base,
    netns: 'inherit',
    userFlags: innerUserFlags(uid, process.getgid?.() ?? null),
    resolvConf: outbound ? facts.derive(`resolv\0${dataDir}`, () => sandboxResolvConf(dataDir)) : null,
  })
  return { argv: pastaCommand(net, { outbound, forward }, uid, [bwrap, ...inner]), ownGroup: net.setsid !== null }
}

/** Where the command is (absolute), as a spawn finds it, or null. */
function findCommand(command: string, envPath: string, cwd: string | undefined): string | null {
  const executable = (p: string): boolean => {
    try {
      fs.accessSync(p, fs.constants.X_OK)
      return fs.statSync(p).isFile()
    } catch {
      return false
    }
  }
  if (command.includes('/')) {
    const at = path.resolve(cwd ?? process.cwd(), command)
    return executable(at) ? at : null
  }
  for (const dir of envPath.split(path.delimiter)) {
    const at = path.resolve(cwd ?? process.cwd(), dir, command)
    if (dir !== '' && executable(at)) return at
  }
  return null
}

/**
 * Creates this server's own cache folders (`.npm`, `.cache` of its home are mounted there), and removes
 * the ones an earlier launch of the same server name left (another command: a clean start). What
 * every server of a run shares (the home's folders, the list of cache folders) is looked at once.
 */
function ensureCaches(config: ServerConfig, dataDir: string, home: string, facts: PlanFacts): string {
  const root = cacheRoot(config, dataDir)
  for (const c of CACHE_DIRS) {
    fs.mkdirSync(cacheSource(root, c), { recursive: true, mode: 0o700 })
    // where they are mounted: a read-only home cannot grow the folder later
    const at = path.join(home, c)
    if (facts.isDir(home) && !facts.isDir(at)) {
      try {
        fs.mkdirSync(at, { recursive: true, mode: 0o700 })
      } catch {
        // not ours: the server simply has no cache
      }
    }
  }
  // the folders of other launches: this server's name is its own, so a listing of this run is recent enough
  const parent = path.dirname(root)
  for (const other of facts.readdir(parent)) {
    if (other.startsWith(`${config.name}@`) && path.join(parent, other) !== root) {
      fs.promises.rm(path.join(parent, other), { recursive: true, force: true }).catch(() => undefined)
    }
  }
  return root
}

/** The environment that sends npm, uv, pip and XDG tools to the server's own caches (macOS). */
export function cacheEnv(root: string): Record<string, string> {
  const cache = cacheSource(root, '.cache')
  return {
    npm_config_cache: cacheSource(root, '.npm'),
    XDG_CACHE_HOME: cache,
    UV_CACHE_DIR: path.join(cache, 'uv'),
    PIP_CACHE_DIR: path.join(cache, 'pip'),
  }
}

/** An empty read-only file in the data dir: what a hidden file reads as. Falls back to /dev/null. */
function emptyFile(dataDir: string): string {
  const file = path.join(dataDir, 'sandbox-empty')
  try {
    if (fs.statSync(file).size === 0) return file
  } catch {
    // create it below
  }
  try {
    fs.mkdirSync(dataDir, { recursive: true })
    fs.writeFileSync(file, '', { mode: 0o444 })
    return file
  } catch {
    return '/dev/null'
  }
}
