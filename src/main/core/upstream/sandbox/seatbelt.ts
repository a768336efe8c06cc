// macOS: the sandbox-exec (Seatbelt) profile for a sandbox plan. macOS has no mount namespaces,
// so the same view is made of rules (the last matching rule wins): everything readable, nothing
// writable but the server's own temp dir, the caches and its grants; the temp dirs, hidden paths,
// local agent sockets and other processes' information denied; the network open, none, or only
// Toolgate's egress proxy (an allowlist); the host's loopback only on granted ports.
import { isInside, type SandboxPlan } from './plan'

/** Writable device files every program expects. */
const DEVICES = ['/dev/null', '/dev/zero', '/dev/random', '/dev/urandom', '/dev/stdout', '/dev/stderr', '/dev/dtracehelper']
/** DNS on macOS goes through this socket; every other Unix socket (agents, docker) is denied. */
const DNS_SOCKET = '/private/var/run/mDNSResponder'

/** An SBPL string literal. Control characters other than \n \r \t are refused (no path needs them). */
export function sbplString(s: string): string {
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(s)) throw new Error(`path contains a control character: ${JSON.stringify(s)}`)
  return `"${s.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n').replace(/\r/g, '\\r').replace(/\t/g, '\\t')}"`
}

const subpath = (p: string): string => `(subpath ${sbplString(p)})`
const literal = (p: string): string => `(literal ${sbplString(p)})`

/**
 * A path rule for the copies and variants of a hidden file (hidden.ts, isVariantName): its path
 * and then `.`, `~` or `-`, existing or not. An SBPL regex literal (`#"…"`) is raw: the path's
 * regex characters are escaped with a backslash; a path with a quote, a backslash or a control character gets
 * no such rule (its existing variants are still denied one by one).
 */
export function variantRule(p: string): string | null {
  if (/["\\\u0000-\u001f\u007f]/.test(p)) return null
  return `(regex #"^${p.replace(/[.*+?^${}()|[\]]/g, '\\$&')}[.~-]")`
}

/**
 * `tmpDir`: the server's private temp dir (canonical path; it also gets TMPDIR); `proxyPort`:
 * Toolgate's egress proxy, the one way out of a server with an allowlist.
 */
export function seatbeltProfile(plan: SandboxPlan, tmpDir: string, opts: { proxyPort?: number | null } = {}): string {
  const rules: string[] = ['(version 1)', '(allow default)']
  rules.push('(deny file-write*)')
  rules.push(`(allow file-write* ${DEVICES.map(literal).join(' ')} (regex #"^/dev/fd/"))`)
  if (plan.privateDirs.length) rules.push(`(deny file-read* file-write* ${plan.privateDirs.map(subpath).join(' ')})`)
  rules.push(`(allow file-read* file-write* ${subpath(tmpDir)})`)
  // Path rules hold whatever happens to the file later (a rename over it, a file created after
  // the start), so every hidden path is denied, existing or not. A server's own caches live in
  // the data dir (denied) and are opened again after it; the launchers are pointed there by env.
  const insideHidden = (p: string): boolean => plan.secrets.some((h) => h.kind === 'dir' && isInside(p, h.path) && p !== h.path)
  const mount = (m: SandboxPlan['mounts'][number]): void => {
    if (m.write) rules.push(`(allow file-read* file-write* ${subpath(m.source)})`)
    else rules.push(`(allow file-read* ${subpath(m.source)})`, `(deny file-write* ${subpath(m.source)})`)
  }
  for (const m of plan.mounts) if (!insideHidden(m.source)) mount(m)
  if (plan.secrets.length) {
    const variants = plan.secrets.filter((h) => h.kind === 'file').map((h) => variantRule(h.path))
    const all = [...plan.secrets.map((h) => (h.kind === 'dir' ? subpath(h.path) : literal(h.path))), ...variants.filter((r): r is string => r !== null)]
    rules.push(`(deny file-read* file-write* ${all.join(' ')})`)
  }
  for (const m of plan.mounts) if (insideHidden(m.source)) mount(m)
  rules.push('(deny network-outbound (remote unix-socket))', `(allow network-outbound (remote unix-socket (path-literal ${sbplString(DNS_SOCKET)})))`)
  // none, and an allowlist: no network but the proxy (not even DNS: the proxy resolves names)
  if (plan.network !== 'open') rules.push('(deny network*)')
  // No namespaces here: the host's loopback (Toolgate's port, local services) is denied by rule,
  // the server's own connections to itself on localhost with it; granted ports are let through.
  else rules.push('(deny network-outbound (remote ip "localhost:*"))')
  const ports = [...(plan.network === 'allow' && opts.proxyPort ? [opts.proxyPort] : []), ...plan.loopback]
  for (const port of ports) rules.push(`(allow network-outbound (remote ip "localhost:${port}"))`)
  rules.push('(deny process-info*)', '(allow process-info* (target self))')
  rules.push('(deny mach-lookup (global-name "com.apple.SecurityServer") (global-name "com.apple.securityd.xpc"))')
  return rules.join('\n') + '\n'
}
