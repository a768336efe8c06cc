// The start's sweep of orphaned pasta helpers (orphans.ts) where orphans are not reparented to pid 1:
// a desktop session's systemd --user (a subreaper), a container's init. A pid namespace's init
// (bwrap --unshare-pid) stands in for the subreaper. The fake helpers are node under the name
// `pasta` with a data dir's cache path in their command line, shaped like pasta's namespace child.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { sandboxSupport } from '../../src/main/core/upstream/sandbox'
import { sweepOrphanedPasta } from '../../src/main/core/upstream/sandbox/orphans'
import { cleanupTemp, cmdline, parentPid, processRunning, tempDir } from '../helpers/cli'
import { waitFor } from '../helpers/wait'

const KEEP = 'setInterval(() => {}, 1e9)'
const started: ChildProcess[] = []

afterAll(() => {
  for (const c of started) {
    try {
      if (c.pid) process.kill(-c.pid, 'SIGKILL')
    } catch {
      try {
        c.kill('SIGKILL')
      } catch {
        // gone
      }
    }
  }
  cleanupTemp()
})

/** pids whose command line is `pasta … <arg>` */
function fakes(arg: string): number[] {
  return fs
    .readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .map(Number)
    .filter((pid) => cmdline(pid).trim() === `pasta -e ${KEEP} ${arg}`)
}

/** A session whose leader starts the fake helper in the background and exits, inside a pid namespace. */
function orphanInNamespace(bwrap: string, arg: string): void {
  const inner = `setsid bash -c 'exec -a pasta "$1" -e "$2" "$3" & exit 0' _ "$1" "$2" "$3"; exec sleep 600`
  const c = spawn(bwrap, ['--dev-bind', '/', '/', '--unshare-pid', '--die-with-parent', '--', 'bash', '-c', inner, '_', process.execPath, KEEP, arg], {
    stdio: 'ignore',
    detached: true,
  })
  started.push(c)
}

/** A live session: its leader is the fake helper itself, or a bash that waits for it. */
function liveSession(arg: string, leaderWaits: boolean): void {
  const script = leaderWaits ? `exec -a pasta "$1" -e "$2" "$3" & wait` : `exec -a pasta "$1" -e "$2" "$3"`
  // not detached: setsid would fork (a group leader cannot start a session), leaving its parent
  const c = spawn('setsid', ['bash', '-c', script, '_', process.execPath, KEEP, arg], { stdio: 'ignore' })
  started.push(c)
}

it('kills an orphaned helper of this data dir that a subreaper took, and nothing else', async () => {
  const support = sandboxSupport()
  expect(support.available && support.mechanism === 'bwrap', `bwrap must work on this machine: ${support.reason}`).toBe(true)
  const tmp = fs.realpathSync(tempDir('toolgate-subreaper-'))
  const dataDir = path.join(tmp, 'data')
  const ours = path.join(dataDir, 'sandbox-caches', 'srv@1')
  const prefixed = path.join(`${dataDir}2`, 'sandbox-caches', 'srv@1') // another data dir whose name starts with ours
  orphanInNamespace(support.binary as string, ours)
  orphanInNamespace(support.binary as string, prefixed)
  liveSession(ours, false)
  liveSession(`${ours}-w`, true)
  await waitFor(() => fakes(ours).length === 2 && fakes(prefixed).length === 1 && fakes(`${ours}-w`).length === 1, 10_000, 'the fake helpers')
  const orphan = fakes(ours).find((p) => {
    const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8')
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return rest[3] !== String(p) // not its session's leader
  })
  expect(orphan, 'the orphan in the namespace').toBeDefined()
  // what this test is about: its parent is the namespace's init, not pid 1
  expect(parentPid(orphan as number)).not.toBe(1)
  const spared = [...fakes(ours).filter((p) => p !== orphan), ...fakes(prefixed), ...fakes(`${ours}-w`)]
  expect(spared).toHaveLength(3)

  const killed = sweepOrphanedPasta(dataDir)
  expect(killed).toEqual([orphan])
  await waitFor(() => !processRunning(orphan as number), 5000, 'the orphan to be gone')
  for (const p of spared) expect(processRunning(p), `${p} (${cmdline(p)}) must live`).toBe(true)
}, 30_000)
