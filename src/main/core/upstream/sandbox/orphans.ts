// Linux: the pasta helpers an earlier run of this data dir left behind, and those of any pasta
// self-test, killed at start. pasta's namespace child waits for pasta's go-ahead before it runs
// bwrap and has no parent-death signal: if Toolgate was SIGKILLed during a pasta's setup (setpriv
// then kills pasta), it waits for ever, reparented to init. Toolgate's own stop paths and its end
// kill it (process-group.ts); only a SIGKILL of Toolgate itself leaves one, and the next start
// on the same data dir (any start, for a self-test's) ends it.
import fs from 'node:fs'
import path from 'node:path'

/** A process's state, parent pid, group and session from /proc, or null when it is gone. */
function statOf(pid: number): { state: string; ppid: number; pgrp: number; session: number } | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return { state: rest[0] ?? '', ppid: Number(rest[1]), pgrp: Number(rest[2]), session: Number(rest[3]) }
  } catch {
    return null
  }
}

/**
 * Orphaned: reparented to init, or (where a subreaper takes orphans instead of pid 1: systemd
 * --user in a desktop session, a container's or pid namespace's init) a member of a session whose
 * leader is gone. pasta runs as the leader of its own session and group (setsid), so its namespace
 * child's session leader is pasta itself; a session's id cannot go to a new process while a
 * member lives, so a missing leader means pasta is gone.
 */
function orphaned(pid: number, st: { ppid: number; pgrp: number; session: number }): boolean {
  if (st.ppid === 1) return true
  return st.session > 0 && st.session !== pid && st.pgrp === st.session && !fs.existsSync(`/proc/${st.session}`)
}

function hasChildren(pid: number): boolean {
  try {
    return fs.readdirSync(`/proc/${pid}/task`).some((t) => fs.readFileSync(`/proc/${pid}/task/${t}/children`, 'utf8').trim() !== '')
  } catch {
    return false
  }
}

/**
 * Kills (SIGKILL) every pasta process that is orphaned (`orphaned`), has no children, and runs a
 * sandbox of this data dir (its command line binds the data dir's server caches) or is a pasta
 * self-test's (its command after `--` is `selfTestInner`, network.ts: a self-test names no data
 * dir, and any start may end one; a user's own differs by its user flags). A running Toolgate's
 * pastas are its children, so another instance's are never touched. Returns the pids.
 */
export function sweepOrphanedPasta(dataDir: string, selfTestInner: readonly string[] | null = null): number[] {
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
      if (argv.at(-1) === '') argv.pop() // (NUL-terminated)
    } catch {
      continue
    }
    if (path.basename(argv[0] ?? '') !== 'pasta') continue
    if (!argv.some((a) => a.startsWith(marker)) && !(selfTestInner && isSelfTest(argv, selfTestInner))) continue
    const st = statOf(pid)
    if (!st || st.state === 'Z' || !orphaned(pid, st) || hasChildren(pid)) continue
    // (the pid is checked and killed microseconds apart; for another process to get this kill, this
    // pasta must die in between and Linux's cyclic pid allocation wrap round the whole pid space:
    // Node has no pidfd to make it exact, see killGroup in process-group.ts)
    try {
      process.kill(pid, 'SIGKILL')
      killed.push(pid)
    } catch {
      // gone meanwhile, or not ours to signal
    }
  }
  return killed
}

/** pasta's command line runs `inner` after its first `--` (pasta rewrites some of its own options in place, never the command it runs). */
function isSelfTest(argv: readonly string[], inner: readonly string[]): boolean {
  const at = argv.indexOf('--')
  return at > 0 && argv.length - at - 1 === inner.length && inner.every((a, i) => argv[at + 1 + i] === a)
}
