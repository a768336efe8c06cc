// A sandboxed server with network (pasta around bwrap) stopped while pasta is still setting up
// its namespace: nothing Toolgate started may remain. pasta's namespace child waits for pasta's
// go-ahead before it runs bwrap and has no parent-death signal of its own, so pasta killed in
// that window left it waiting for ever (sigtimedwait), reparented to init. The test kills pasta
// at many moments of its launch, then looks in /proc for any process of the launch's process
// group or any process whose command line names this test's data dir.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { networkSupport, sandboxSupport } from '../../src/main/core/upstream/sandbox'
import { buildTransport } from '../../src/main/core/upstream/transport'
import { silentLogger } from '../../src/main/core/log'
import type { ServerConfig } from '../../src/shared/config-schema'
import { cmdline, waitFor } from '../helpers/cli'

const support = sandboxSupport()
let root: string
const started: number[] = []

beforeAll(() => {
  expect(support.available, `bwrap must work on this machine: ${support.reason}`).toBe(true)
  expect(networkSupport(support.binary).available, `pasta must work on this machine: ${networkSupport(support.binary).reason}`).toBe(true)
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'tg-stop-launch-')))
  fs.chmodSync(root, 0o755)
})

afterAll(() => {
  // what a failed run left: only processes of this test (their command line names its dir)
  for (const pid of leftovers()) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // gone meanwhile
    }
  }
  fs.rmSync(root, { recursive: true, force: true })
})

/** Process group of a live process, or null when it is gone. */
function pgidOf(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2])
  } catch {
    return null
  }
}

/** Live processes of the launches: in a launched process's group, or naming this test's dir. */
function leftovers(): number[] {
  const out: number[] = []
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    const pid = Number(entry)
    const pgid = pgidOf(pid)
    if (pgid === null) continue
    let state = ''
    try {
      state = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.[0] ?? ''
    } catch {
      continue
    }
    if (state === 'Z') continue // exited, only not reaped yet
    if (started.includes(pgid) || (root && cmdline(pid).includes(root))) out.push(pid)
  }
  return out
}

it('pasta killed at any moment of its setup leaves no process behind', async () => {
  const logger = silentLogger()
  const dataDir = path.join(root, 'data')
  fs.mkdirSync(dataDir)
  const ctx = { dataDir, configPath: path.join(dataDir, 'mcp_config.json') }
  // delays from right after the spawn through pasta's setup (a few ms to tens of ms here)
  const delays = [0, 0, 1, 1, 2, 2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 25, 30, 40, 60, 90]
  for (const [i, delay] of delays.entries()) {
    const config: ServerConfig = {
      name: `stop-${i}`,
      command: process.execPath,
      args: ['-e', 'setInterval(() => {}, 1e9)', root],
      sandbox: { network: true },
      protocol: 'stdio',
      enabled: true,
      trust: 'auto',
    }
    const t = buildTransport(config, 'stdio', { logger, maxMessageBytes: 1 << 20, redact: (s) => s, sandbox: { ctx, mode: 'run' } })
    await t.transport.start()
    const pid = t.pid
    expect(pid, 'the launch has a pid').not.toBeNull()
    if (pid === null) return
    started.push(pid)
    // pasta (setpriv execs it) is the launched process; killed as a crash or Toolgate's SIGKILL would
    if (delay) await new Promise((r) => setTimeout(r, delay))
    process.kill(pid, 'SIGKILL')
    await t.shutdown()
  }
  // what is still there a moment later (a process being torn down needs a few ms)
  await waitFor(() => leftovers().length === 0, 3000, 'the launched processes to be gone').catch(() => undefined)
  const left = leftovers().map((p) => `${p}: ${cmdline(p).slice(0, 120)}`)
  expect(left).toEqual([])
}, 60_000)
