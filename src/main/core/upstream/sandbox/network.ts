// Linux: the network of a sandboxed server. It always gets its own network namespace: with no
// network at all, only bwrap's (loopback of its own); otherwise pasta (from passt, a user-mode
// TCP/IP stack) creates the namespace and runs bwrap in it. Outbound connections then go out
// through pasta's sockets, but nothing reaches the host's loopback (Toolgate's port, local
// services: `-T none`, `--no-map-gw`) nor its abstract Unix sockets (they belong to a network
// namespace); the loopback ports granted in `sandbox.loopback` are forwarded one by one.
import fs from 'node:fs'
import path from 'node:path'
import { BWRAP_BASE_FLAGS } from './bwrap'
import { which } from './detect'
import { cachedProbe, type ProbePlan, type ProbeRun } from './probe-run'

export interface NetworkSupport {
  available: boolean
  /** the pasta binary (absolute) */
  pasta: string | null
  /** util-linux setpriv, to kill pasta (and so the sandbox) if Toolgate dies; null when missing */
  setpriv: string | null
  /**
   * util-linux setsid: pasta in a process group of its own, which Toolgate kills once pasta is
   * gone (process-group.ts); null when missing
   */
  setsid: string | null
  /** why a server with network on shares the host's network instead */
  reason: string | null
}

/** Where a sandboxed server sends DNS queries; pasta forwards them to the host's resolver. */
export const DNS_FORWARD = '169.254.0.53'

/** What the namespace gets from pasta. */
export interface PastaNet {
  /** an interface with an address and a default route (outbound connections, DNS) */
  outbound: boolean
  /** ports of the namespace's loopback forwarded to the same port on the host's loopback */
  forward: number[]
}

/** Lines pasta prints that say nothing about the server (as root it cannot map a user namespace it does not need). */
export const PASTA_NOISE =
  /^(Couldn't write to \/proc\/self\/uid_map|Couldn't configure user mappings|Couldn't write to \/proc\/sys\/net\/ipv4\/ping_group_range|Cannot set ping_group_range|Failed to send \d+ bytes to syslog)/

/** The command that runs `inner` (bwrap …) in a network namespace of its own, connected by pasta. */
export function pastaCommand(support: NetworkSupport, net: PastaNet, uid: number | null, inner: readonly string[]): string[] {
  if (!support.pasta) throw new Error('pasta is not available')
  const out: string[] = []
  // Its own group: pasta's namespace child waits for pasta's go-ahead (sigwaitinfo) before it
  // runs bwrap and has no parent-death signal, so pasta stopped or killed during its setup leaves
  // it behind for ever; the group is how Toolgate finds and kills it (process-group.ts).
  if (support.setsid) out.push(support.setsid, '--')
  if (support.setpriv) out.push(support.setpriv, '--pdeathsig', 'KILL', '--')
  // its log to nowhere (it tries syslog, which most machines lack); startup failures still show
  out.push(support.pasta, '--quiet', '--foreground', '--log-file', '/dev/null')
  // as root pasta would drop to nobody and build a user namespace it cannot map; bwrap needs none
  if (uid === 0) out.push('--runas', '0:0', '--netns-only')
  const ports = [...new Set(net.forward)].sort((a, b) => a - b)
  out.push('-t', 'none', '-u', 'none', '-U', 'none', '-T', ports.length ? ports.join(',') : 'none', '--no-map-gw')
  if (net.outbound) out.push('--config-net', '--dns-forward', DNS_FORWARD)
  out.push('--', ...inner)
  return out
}

/**
 * bwrap's flags inside pasta's namespace: as a user, pasta's user namespace makes the user root;
 * the server gets its own uid and gid back (and no capabilities, as always).
 */
export function innerUserFlags(uid: number | null, gid: number | null): string[] {
  if (uid === null || uid === 0 || gid === null) return []
  return ['--unshare-user', '--uid', String(uid), '--gid', String(gid)]
}

/**
 * The resolv.conf a server with outbound network sees: its queries go to pasta's DNS forwarder
 * (the host's resolver may listen on the host's loopback, 127.0.0.53, out of its reach), with
 * the host's search domains and options. Written into the data dir, bound over /etc/resolv.conf.
 */
export function sandboxResolvConf(dataDir: string, hostResolv = '/etc/resolv.conf'): string | null {
  let host = ''
  try {
    host = fs.readFileSync(hostResolv, 'utf8')
  } catch {
    return null // no resolv.conf on the host: nothing to bind over
  }
  const keep = host.split('\n').filter((l) => /^\s*(search|domain|options)\b/.test(l))
  const text = [`# written by Toolgate: DNS of a sandboxed server, forwarded by pasta to the host's resolver`, `nameserver ${DNS_FORWARD}`, ...keep, ''].join(
    '\n',
  )
  const file = path.join(dataDir, 'sandbox-resolv.conf')
  try {
    if (fs.readFileSync(file, 'utf8') === text) return file
  } catch {
    // write it below
  }
  try {
    fs.mkdirSync(dataDir, { recursive: true })
    const tmp = `${file}.${process.pid}.tmp`
    fs.writeFileSync(tmp, text, { mode: 0o644 })
    fs.renameSync(tmp, file)
    return file
  } catch {
    return null
  }
}

const PROBE_TIMEOUT_MS = 10_000

/**
 * pasta's self-test: pasta around bwrap running `true`, as a server's launch is built (run once
 * per process, then cached). `TOOLGATE_PASTA` names the binary to use instead of the one on PATH
 * (tests: a missing one, a fake).
 */
const probe = cachedProbe(
  (bwrap: string | null, uid: number | null, _gid: number | null) => `${bwrap ?? ''}\u0000${process.env.TOOLGATE_PASTA ?? ''}\u0000${uid}`,
  selfTest,
  PROBE_TIMEOUT_MS,
)

/** pasta on this machine (its self-test run now if it has not run yet). */
export function networkSupport(
  bwrap: string | null,
  uid: number | null = process.getuid?.() ?? null,
  gid: number | null = process.getgid?.() ?? null,
): NetworkSupport {
  return probe.now(bwrap, uid, gid)
}

/**
 * The same answer, with pasta's self-test run in the background (the start runs it beside
 * bubblewrap's while it builds the core); networkSupport() answers from the cache afterwards.
 */
export function networkSupportSoon(
  bwrap: string | null,
  uid: number | null = process.getuid?.() ?? null,
  gid: number | null = process.getgid?.() ?? null,
): Promise<NetworkSupport> {
  return probe.soon(bwrap, uid, gid)
}

const none = (reason: string): NetworkSupport => ({ available: false, pasta: null, setpriv: null, setsid: null, reason })

/** What pasta's self-test runs (pasta around bwrap running `true`, as a server's launch is built), or why there is none to run. */
function selfTest(bwrap: string | null, uid: number | null, gid: number | null): ProbePlan<NetworkSupport> {
  const override = process.env.TOOLGATE_PASTA
  if (process.platform !== 'linux') return { answer: none('network namespaces are a Linux feature') }
  if (!bwrap) return { answer: none('no bubblewrap') }
  const pasta = override ? path.resolve(override) : which('pasta')
  if (!pasta || !fs.existsSync(pasta)) {
    return {
      answer: none(
        override
          ? `pasta was not found at ${override} (TOOLGATE_PASTA)`
          : 'pasta is not installed, so a server with network on shares your network, loopback included: install it (Debian/Ubuntu: apt-get install passt; Fedora: dnf install passt) and restart Toolgate',
      ),
    }
  }
  const support: NetworkSupport = { available: true, pasta, setpriv: which('setpriv'), setsid: which('setsid'), reason: null }
  const inner = selfTestInner(bwrap, uid, gid)
  // in a group of its own (setsid): pasta killed by the timeout, or failing, during its setup leaves
  // its namespace child waiting for ever, and no data dir in its command line for the orphan sweep
  return { argv: pastaCommand(support, { outbound: true, forward: [] }, uid, inner), ownGroup: support.setsid !== null, verdict: (r) => verdict(support, r) }
}

/**
 * What pasta's self-test runs in its namespace: bwrap running `true`. A server's launch never runs
 * this (its bwrap binds and hides much more), so an orphaned pasta whose command ends so was a
 * self-test (orphans.ts sweeps those of any data dir).
 */
export function selfTestInner(bwrap: string, uid: number | null = process.getuid?.() ?? null, gid: number | null = process.getgid?.() ?? null): string[] {
  return [bwrap, '--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', ...BWRAP_BASE_FLAGS, ...innerUserFlags(uid, gid), '--', 'true']
}

function verdict(support: NetworkSupport, r: ProbeRun): NetworkSupport {
  if (r.error) return none(`pasta (${support.pasta}) could not run: ${r.error.message}; a server with network on shares your network, loopback included`)
  if (r.status !== 0) {
    const said = r.stderr
      .split('\n')
      .filter((l) => l.trim() && !PASTA_NOISE.test(l))
      .slice(-1)[0]
    return none(`pasta failed its self-test (${said ?? `exit code ${r.status}`}); a server with network on shares your network, loopback included`)
  }
  return support
}
