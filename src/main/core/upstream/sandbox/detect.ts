// Which sandbox this machine has, found once per process by running it (not only by looking
// for the binary): Linux bubblewrap, macOS sandbox-exec; with the reason when there is none.
import fs from 'node:fs'
import path from 'node:path'
import { BWRAP_BASE_FLAGS } from './bwrap'
import { cachedProbe, type ProbePlan, type ProbeRun } from './probe-run'

export interface SandboxSupport {
  available: boolean
  mechanism: 'bwrap' | 'sandbox-exec' | null
  /** the sandbox binary (absolute) */
  binary: string | null
  /** why there is none: shown on every surface as "not isolated: <reason>" */
  reason: string | null
}

const PROBE_TIMEOUT_MS = 10_000
const SANDBOX_EXEC = '/usr/bin/sandbox-exec'

/** The first executable `name` on PATH. */
export function which(name: string, envPath = process.env.PATH ?? ''): string | null {
  for (const dir of envPath.split(path.delimiter)) {
    if (!dir || !path.isAbsolute(dir)) continue // a relative PATH entry would depend on the cwd
    const p = path.join(dir, name)
    try {
      fs.accessSync(p, fs.constants.X_OK)
      if (fs.statSync(p).isFile()) return p
    } catch {
      // not here
    }
  }
  return null
}

function readSysctl(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8').trim()
  } catch {
    return null
  }
}

/** bwrap's failure, explained: user namespaces switched off is the usual cause. */
export function explainBwrapFailure(stderr: string, sysctl: (file: string) => string | null = readSysctl): string {
  const msg = stderr.trim().split('\n').filter(Boolean).slice(-1)[0] ?? 'no output'
  const off: string[] = []
  if (sysctl('/proc/sys/kernel/unprivileged_userns_clone') === '0') off.push('kernel.unprivileged_userns_clone=0')
  if (sysctl('/proc/sys/user/max_user_namespaces') === '0') off.push('user.max_user_namespaces=0')
  if (sysctl('/proc/sys/kernel/apparmor_restrict_unprivileged_userns') === '1') off.push('kernel.apparmor_restrict_unprivileged_userns=1')
  if (off.length > 0 || /namespace|Operation not permitted|setting up uid map|No permissions/i.test(msg)) {
    return `user namespaces are not available to this user${off.length ? ` (${off.join(', ')})` : ''}, so bubblewrap cannot build a sandbox: ${msg}`
  }
  return `bubblewrap failed its self-test: ${msg}`
}

/** bubblewrap's self-test: a sandbox with its own network namespace, running `true`. */
function bwrapProbeArgs(): string[] {
  return ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', ...BWRAP_BASE_FLAGS, '--unshare-net', '--', 'true']
}

function bwrapVerdict(binary: string, r: ProbeRun): SandboxSupport {
  if (r.error) return none(`bubblewrap (${binary}) could not run: ${r.error.message}`)
  if (r.status !== 0) return none(explainBwrapFailure(r.stderr))
  return { available: true, mechanism: 'bwrap', binary, reason: null }
}

function sandboxExecVerdict(r: ProbeRun): SandboxSupport {
  if (r.error) return none(`sandbox-exec could not run: ${r.error.message}`)
  if (r.status !== 0) return none(`sandbox-exec failed its self-test: ${r.stderr.trim() || `exit code ${r.status}`}`)
  return { available: true, mechanism: 'sandbox-exec', binary: SANDBOX_EXEC, reason: null }
}

function none(reason: string): SandboxSupport {
  return { available: false, mechanism: null, binary: null, reason }
}

/**
 * The self-test of this machine's sandbox (run once, then cached). `TOOLGATE_BWRAP` names the bwrap
 * binary to use instead of the one on PATH (an unusual install, or tests).
 */
const probe = cachedProbe(
  (platform: NodeJS.Platform) => `${platform}\u0000${process.env.TOOLGATE_BWRAP ?? ''}`,
  (platform: NodeJS.Platform): ProbePlan<SandboxSupport> => {
    const b = platform === 'linux' ? bwrapBinary() : null
    if (b && 'binary' in b) return { argv: [b.binary, ...bwrapProbeArgs()], ownGroup: false, verdict: (r) => bwrapVerdict(b.binary, r) }
    if (b) return { answer: none(b.missing) }
    if (platform === 'darwin') {
      if (!fs.existsSync(SANDBOX_EXEC)) return { answer: none('sandbox-exec is missing from /usr/bin') }
      return { argv: [SANDBOX_EXEC, '-p', '(version 1)(allow default)', '/usr/bin/true'], ownGroup: false, verdict: sandboxExecVerdict }
    }
    if (platform === 'win32') return { answer: none('Windows has no sandbox Toolgate can use yet') }
    return { answer: none(`no sandbox is supported on ${platform}`) }
  },
  PROBE_TIMEOUT_MS,
)

/** The sandbox of this machine (its self-test run now if it has not run yet). */
export function sandboxSupport(platform: NodeJS.Platform = process.platform): SandboxSupport {
  return probe.now(platform)
}

/**
 * The same answer, with bubblewrap's self-test run in the background (the start runs it beside
 * pasta's, network.ts networkSupportSoon); sandboxSupport() answers from the cache afterwards.
 */
export function sandboxSupportSoon(platform: NodeJS.Platform = process.platform): Promise<SandboxSupport> {
  return probe.soon(platform)
}

/** Linux: the bwrap binary to test (`TOOLGATE_BWRAP`, else the one on PATH), or why there is none. */
export function bwrapBinary(): { binary: string } | { missing: string } {
  const override = process.env.TOOLGATE_BWRAP
  const binary = override ? path.resolve(override) : which('bwrap')
  if (binary && fs.existsSync(binary)) return { binary }
  return {
    missing: override
      ? `bubblewrap was not found at ${override} (TOOLGATE_BWRAP)`
      : 'bubblewrap (bwrap) is not installed: install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install bubblewrap) and restart Toolgate',
  }
}
