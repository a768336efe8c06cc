// `toolgate serve` SIGKILLed while its pasta self-test sets up its namespace (nothing of Toolgate
// runs after a SIGKILL): setpriv's parent-death signal kills pasta, and its namespace child waits
// for ever, reparented to init. Its command line names no data dir, so the sweep of a data dir's
// own pastas never found it. Any later start ends it, and leaves a self-test whose Toolgate lives alone.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { which } from '../../src/main/core/upstream/sandbox/detect'
import { pastaCommand, selfTestInner } from '../../src/main/core/upstream/sandbox/network'
import {
  BIN,
  childPids,
  cleanupProcesses,
  cleanupTemp,
  cliEnv,
  cmdline,
  freePort,
  groupPids,
  parentPid,
  processRunning,
  readInstance,
  startServe,
  stopProcess,
  tempDir,
  track,
  waitFor,
  writeJson,
} from '../helpers/cli'

/** The process groups this test made (pasta's: its pid), killed whole at the end. */
const groups: number[] = []

const isPasta = (pid: number): boolean => path.basename(cmdline(pid).split(' ')[0] ?? '') === 'pasta'

afterAll(async () => {
  for (const g of groups) {
    try {
      process.kill(-g, 'SIGKILL')
    } catch {
      // nothing left
    }
  }
  await cleanupProcesses()
  cleanupTemp()
})

/** One serve SIGKILLed the moment its self-test's pasta has forked its namespace child; the orphans it left (pasta processes of that group). */
async function killDuringSelfTest(tmp: string, round: number): Promise<number[]> {
  const configPath = writeJson(path.join(tmp, `config-${round}.json`), { mcpServers: {} })
  const dataDir = path.join(tmp, `data-${round}`)
  const child = spawn(process.execPath, [BIN, 'serve', '--config', configPath, '--data-dir', dataDir, '--listen', `127.0.0.1:${await freePort()}`], {
    env: cliEnv({ TOOLGATE_API_KEY: 'orphan-self-test-key' }),
    stdio: 'ignore',
  })
  track(child.pid)
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const serve = child.pid as number
  // pasta (after setsid and setpriv exec'd it) with a child of its own: its namespace child, which
  // waits for pasta's go-ahead; or, under load, a self-test over before it was seen (serve listens)
  const caught = await waitFor(
    () => {
      if (child.exitCode !== null) throw new Error(`serve exited (${child.exitCode}) during its start`)
      const leader = childPids(serve).find((p) => isPasta(p) && childPids(p).some(isPasta))
      if (leader) return leader
      return readInstance(dataDir)?.pid === serve ? 'missed' : null
    },
    30_000,
    "the self-test's pasta to fork its namespace child",
    2,
  )
  child.kill('SIGKILL')
  await exited
  if (caught === 'missed') return []
  const leader = caught
  groups.push(leader)
  await waitFor(() => !processRunning(leader), 5000, "pasta to die with serve (setpriv's parent-death signal)")
  // each namespace child either had its go-ahead (it becomes bwrap, which ends) or waits for one nobody will send
  return stillWaiting(groupPids(leader).filter(isPasta))
}

/** Of pasta's namespace children, those that wait for a go-ahead (the others had it: they become bwrap, which ends). */
async function stillWaiting(children: number[]): Promise<number[]> {
  const settled = (p: number): boolean => !processRunning(p) || !isPasta(p) || waitsForGoAhead(p)
  await waitFor(() => children.every(settled), 5000, `pasta's namespace children ${children.join(', ')} to go on or wait (/proc/<pid>/wchan)`)
  return children.filter((p) => processRunning(p) && isPasta(p) && waitsForGoAhead(p))
}

/** Blocked in sigtimedwait: how pasta's namespace child waits for pasta's go-ahead. */
function waitsForGoAhead(pid: number): boolean {
  try {
    return fs.readFileSync(`/proc/${pid}/wchan`, 'utf8').includes('sigtimedwait')
  } catch {
    return false
  }
}

it("any start kills the namespace child of a SIGKILLed run's pasta self-test, and leaves a live one alone", async () => {
  const bwrap = which('bwrap')
  const pasta = which('pasta')
  const setsid = which('setsid')
  const setpriv = which('setpriv')
  if (!bwrap || !pasta || !setsid || !setpriv) throw new Error('bwrap, pasta, setsid and setpriv must be installed')
  const tmp = tempDir('toolgate-orphan-self-test-')

  // SIGKILL serves during their self-test until one's pasta was caught in its setup (go-ahead not given yet)
  let orphans: number[] = []
  for (let round = 0; round < 20 && orphans.length === 0; round++) orphans = await killDuringSelfTest(tmp, round)
  expect(orphans.length, 'a SIGKILLed serve left the namespace child of its self-test (what this test is about)').toBeGreaterThan(0)
  for (const p of orphans) expect(parentPid(p)).toBe(1)
  // its command line names no data dir: it runs bwrap running `true`
  expect(cmdline(orphans[0] ?? 0)).toMatch(/ -- \S*bwrap .* -- true $/)

  // a self-test whose Toolgate lives (here: this test's process): pasta stopped during its setup, so its namespace child waits
  const [cmd = '', ...args] = pastaCommand(
    { available: true, pasta, setpriv, setsid, reason: null },
    { outbound: true, forward: [] },
    process.getuid?.() ?? null,
    selfTestInner(bwrap),
  )
  const live = spawn(cmd, args, { stdio: 'ignore' })
  const liveLeader = live.pid as number
  groups.push(liveLeader)
  await waitFor(() => isPasta(liveLeader), 5000, 'the live self-test to run pasta', 2)
  process.kill(liveLeader, 'SIGSTOP')
  const liveOnes = [liveLeader, ...(await stillWaiting(groupPids(liveLeader).filter((p) => p !== liveLeader && isPasta(p))))]

  // a start on another data dir
  const s = await startServe({ configPath: writeJson(path.join(tmp, 'mcp_config.json'), { mcpServers: {} }), dataDir: path.join(tmp, 'data') })
  try {
    await waitFor(() => orphans.every((p) => !processRunning(p)), 10_000, `the orphaned self-test pastas ${orphans.join(', ')} to be killed`)
    expect(s.stderr()).toMatch(/killed \d+ pasta helper\(s\) an earlier run left behind/)
    // the live one was not touched
    for (const p of liveOnes) expect(processRunning(p), `live self-test pasta ${p}`).toBe(true)
  } finally {
    await stopProcess(s.child)
    process.kill(-liveLeader, 'SIGKILL')
  }
}, 300_000)
