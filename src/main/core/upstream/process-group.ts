// The process groups of sandboxed upstreams and of pasta's self-test (pasta's, started by setsid):
// killed whole once their leader is gone, and when Toolgate ends. pasta's namespace child waits for
// pasta's go-ahead before it runs bwrap and has no parent-death signal: pasta stopped (or killed with
// Toolgate) during its setup would leave it waiting for ever, reparented to init.
import { onExit } from 'signal-exit'

const live = new Set<number>()
let hooked = false

/** Remember `pid`'s group (pid = pgid: it was started by setsid) until its leader is gone. */
export function trackGroup(pid: number): void {
  live.add(pid)
  killGroupsAtEnd()
}

/**
 * From now on, the groups still tracked are killed when Toolgate ends: on its exit (synchronous:
 * process.exit too, the graceful shutdown's timeout, an error), and on a signal that would end it
 * with nothing else listening (signal-exit; it ends the process by that signal afterwards, as
 * before): the CLI's start, before its graceful shutdown is set up (cli/shutdown.ts), and the
 * offline commands. Electron's main process quits on SIGINT, SIGTERM and SIGHUP by itself (its
 * quit stops the core, then exits): a listener there would replace that, so it keeps the exit alone.
 */
export function killGroupsAtEnd(): void {
  if (hooked) return
  hooked = true
  const killAll = (): void => {
    for (const g of live) killGroup(g)
  }
  if (process.versions.electron) process.once('exit', killAll)
  else onExit(killAll)
}

/**
 * SIGKILL to what is left of the group (call once the leader has exited). The group's id cannot
 * go to another process while a member lives; with no member left this finds nothing.
 *
 * The one window left (not closable from Node, which has no pidfd_open/pidfd_send_signal: a
 * signal goes to a number): with no member left, the leader's pid is free once Node reaped it,
 * and a new process that took that pid and made itself a group leader (setsid, setpgid) would get
 * this kill. The kill follows the reap in the same callback (microseconds), and Linux hands pids
 * out cyclically, so that needs the whole pid space (pid_max) used up in between. A check of
 * /proc/<pid>/stat first would not close it (the same race, one read earlier); a leader of our
 * own that kills its group from inside would, at one more process per server and pasta's exit
 * status lost.
 */
export function killGroup(pid: number): void {
  live.delete(pid)
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {
    // ESRCH: nothing left of it
  }
}
