// Linux: the bubblewrap (bwrap) command line for a sandbox plan. The view is the host's
// filesystem read-only, with private temp dirs, the granted binds, the server's own caches, the
// folders that hold hidden files re-created without them, and hidden folders covered; own
// PID/IPC/UTS namespaces, no capabilities, a new session (no terminal injection), killed with
// Toolgate. Its network namespace is bwrap's own (no network) or pasta's (network.ts).
import path from 'node:path'
import { depth, real, type SandboxPlan } from './plan'

/** Flags every sandbox gets; the availability probe runs with exactly these. */
export const BWRAP_BASE_FLAGS = [
  '--unshare-pid',
  '--unshare-ipc',
  '--unshare-uts',
  '--unshare-cgroup-try',
  '--new-session',
  '--die-with-parent',
  '--cap-drop',
  'ALL',
] as const

interface Layer {
  at: string
  /** at the same path: a grant's bind first, then what re-creates or covers it */
  order: number
  args: string[]
}

export interface BwrapOptions {
  /** an empty regular file bound over a hidden file covered where it lies (reads as empty) */
  emptyFile?: string
  /**
   * new: a network namespace of bwrap's own (loopback only, nothing else); inherit: the one bwrap
   * runs in (pasta's, or the host's where there is no pasta)
   */
  netns: 'new' | 'inherit'
  /** extra flags for bwrap's user namespace (inside pasta's, as a user) */
  userFlags?: string[]
  /** bound over /etc/resolv.conf (DNS through pasta) */
  resolvConf?: string | null
}

export function bwrapArgs(plan: SandboxPlan, command: string, args: readonly string[], opts: BwrapOptions): string[] {
  const emptyFile = opts.emptyFile ?? '/dev/null'
  const out: string[] = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc']
  for (const d of plan.privateDirs) out.push('--tmpfs', d)
  // bound where /etc/resolv.conf leads (systemd: into /run, which is private: bwrap makes the path)
  if (opts.resolvConf) out.push('--ro-bind', opts.resolvConf, real('/etc/resolv.conf'))
  const layers: Layer[] = []
  for (const m of plan.mounts) layers.push({ at: m.path, order: 0, args: [m.write ? '--bind' : '--ro-bind', m.source, m.path] })
  const readOnly: string[] = []
  for (const folder of plan.masked) {
    const args = ['--tmpfs', folder.path]
    for (const e of folder.entries) {
      const full = path.join(folder.path, e.name)
      // -try: an entry removed since the plan was made is simply not there
      if (e.symlink !== undefined) args.push('--symlink', e.symlink, full)
      else args.push('--ro-bind-try', full, full)
    }
    layers.push({ at: folder.path, order: 1, args })
    readOnly.push(folder.path)
  }
  for (const h of plan.hidden) {
    layers.push({ at: h.path, order: 2, args: h.dir ? ['--tmpfs', h.path] : ['--ro-bind', emptyFile, h.path] })
    if (h.dir) readOnly.push(h.path)
  }
  // Parents before children: what is granted inside a re-created or covered folder goes on top.
  layers.sort((a, b) => depth(a.at) - depth(b.at) || a.order - b.order)
  for (const l of layers) out.push(...l.args)
  // Re-created folders and covers are read-only too (after the grants inside them were made).
  for (const p of readOnly) out.push('--remount-ro', p)
  out.push(...BWRAP_BASE_FLAGS, ...(opts.userFlags ?? []))
  if (opts.netns === 'new') out.push('--unshare-net')
  if (plan.cwd) out.push('--chdir', plan.cwd)
  out.push('--', command, ...args)
  return out
}
