// Linux: the pasta helpers an earlier run of this data dir left behind, killed at start. pasta's
// namespace child waits for pasta's go-ahead before it runs bwrap and has no parent-death signal:
// if Toolgate was SIGKILLed during a pasta's setup (setpriv then kills pasta), it waits for ever,
// reparented to init. Toolgate's own stop paths kill it (process-group.ts); only a kill of Toolgate
// itself leaves one, and the next start on the same data dir ends it.
import fs from 'node:fs'
import path from 'node:path'

/** A process's parent pid and state from /proc, or null when it is gone. */
function statOf(pid: number): { ppid: number; state: string } | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { state: rest[0] ?? '', ppid: Number(rest[1]) }
  } catch {
    return null
  }
}

function hasChildren(pid: number): boolean {
  try {
    return fs.readdirSync(`/proc/${pid}/task`).some((t) => fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim() !== '')
  } catch {
    return false
  }
}

/**
 * Kills (SIGKILL) every pasta process that is orphaned (parent pid 1), has no children, and runs a
 * sandbox of this data dir (its command line binds the data dir's server caches). A running
 * Toolgate's pastas are its children, so another instance's are never touched. Returns the pids.
 */
export function sweepOrphanedPasta(dataDir: string): number[] {
  if (process.platform !== 'linux') return []
  const marker = `${path.join(dataDir, 'sandbox-caches')}/`
  const killed: number[] = []
  let entries: string[] = []
  try {
    entries = fs.readdirSync('/proc')
  } catch {
    return []
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue
    const pid = Number(entry)
    let argv: string[]
    try {
      argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
    } catch {
      continue
    }
    if (path.basename(argv[0] ?? '') !== 'pasta' || !argv.some((a) => a.startsWith(marker))) continue
    const st = statOf(pid)
    if (!st || st.ppid !== 1 || st.state === 'Z' || hasChildren(pid)) continue
    try {
      process.kill(pid, 'SIGKILL')
      killed.push(pid)
    } catch {
      // gone meanwhile, or not ours to signal
    }
  }
  return killed
}
