// Linux: the bubblewrap (bwrap) command line for a sandbox plan. The view is the host's
// filesystem read-only, with private temp dirs, the granted binds, and the hidden paths
// covered; own PID/IPC/UTS namespaces, no capabilities, a new session (no terminal injection),
// killed with Toolgate, and no network unless the plan allows it.
import { isInside, type SandboxPlan } from './plan'

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

/**
 * `emptyFile`: an empty regular file bound over each hidden file, so `~/.npmrc` reads as empty
 * (what a user without one has) rather than failing.
 */
export function bwrapArgs(plan: SandboxPlan, command: string, args: readonly string[], emptyFile = '/dev/null'): string[] {
  const out: string[] = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc']
  for (const d of plan.privateDirs) out.push('--tmpfs', d)
  // Binds inside a hidden folder are explicit grants into it: they go on top of the cover.
  const insideHidden = (p: string): boolean => plan.hidden.some((h) => h.dir && isInside(p, h.path) && p !== h.path)
  const bind = (m: SandboxPlan['mounts'][number]): void => void out.push(m.write ? '--bind' : '--ro-bind', m.path, m.path)
  for (const m of plan.mounts) if (!insideHidden(m.path)) bind(m)
  for (const h of plan.hidden) {
    if (h.dir) out.push('--tmpfs', h.path)
    else out.push('--ro-bind', emptyFile, h.path)
  }
  for (const m of plan.mounts) if (insideHidden(m.path)) bind(m)
  // Covers are read-only too (remounted after the grants inside them were made).
  for (const h of plan.hidden) if (h.dir) out.push('--remount-ro', h.path)
  out.push(...BWRAP_BASE_FLAGS)
  if (!plan.network) out.push('--unshare-net')
  if (plan.cwd) out.push('--chdir', plan.cwd)
  out.push('--', command, ...args)
  return out
}
