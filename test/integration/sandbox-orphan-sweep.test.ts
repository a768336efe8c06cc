// `toolgate serve` SIGKILLed while it launches sandboxed servers with network: setpriv's
// parent-death signal kills each pasta, and a pasta killed during its setup leaves its namespace
// child behind (parent pid 1, waiting for ever; Toolgate is gone, so nothing of it can kill it).
// The next start on the same data dir must end those, and only those.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, expect, it } from 'vitest'
import {
  BIN,
  cleanupProcesses,
  cleanupTemp,
  cliEnv,
  cmdline,
  freePort,
  parentPid,
  processRunning,
  startServe,
  stopProcess,
  tempDir,
  track,
  waitFor,
  writeJson,
} from '../helpers/cli'

const marker: string[] = []

/** Orphaned pastas of this test (their command line names its temp dir). */
function orphans(): number[] {
  const out: number[] = []
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const pid = Number(entry)
    const line = cmdline(pid)
    if (marker[0] && line.includes(marker[0]) && path.basename(line.split(' ')[0]) === 'pasta' && parentPid(pid) === 1 && processRunning(pid)) out.push(pid)
  }
  return out
}

afterAll(async () => {
  for (const pid of orphans()) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // gone
    }
  }
  await cleanupProcesses()
  cleanupTemp()
})

it('the next start on the data dir kills the pasta helpers a SIGKILLed run left behind', async () => {
  const tmp = fs.realpathSync(tempDir('toolgate-orphans-'))
  fs.chmodSync(tmp, 0o755)
  marker.push(tmp)
  const dataDir = path.join(tmp, 'data')
  const servers: Record<string, unknown> = {}
  for (let i = 0; i < 8; i++) {
    servers[`s${i}`] = { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1e9)', tmp], quarantined: false, sandbox: { network: true } }
  }
  const configPath = writeJson(path.join(tmp, 'mcp_config.json'), { mcpServers: servers })
  // SIGKILL serve at moments of its servers' launch until some pasta was caught in its setup
  for (let round = 0; round < 12 && orphans().length === 0; round++) {
    const child = spawn(process.execPath, [BIN, 'serve', '--config', configPath, '--data-dir', dataDir, '--listen', `127.0.0.1:${await freePort()}`], {
      env: cliEnv({ TOOLGATE_API_KEY: 'orphan-sweep-key' }),
      stdio: 'ignore',
    })
    track(child.pid)
    const exited = new Promise((resolve) => child.once('exit', resolve))
    // from the first pasta on, a few ms at a time
    await waitFor(
      () => fs.readdirSync('/proc').some((p) => /^\d+$/.test(p) && parentPid(Number(p)) === child.pid && cmdline(Number(p)).includes(tmp)),
      20_000,
      'a server launch',
    )
    await new Promise((r) => setTimeout(r, round * 3))
    child.kill('SIGKILL')
    await exited
    await new Promise((r) => setTimeout(r, 300))
  }
  const left = orphans()
  expect(left.length, 'a SIGKILLed serve left orphaned pastas (what this test is about)').toBeGreaterThan(0)
  const s = await startServe({ configPath, dataDir })
  try {
    await waitFor(() => left.every((p) => !processRunning(p)), 10_000, `the orphaned pastas ${left.join(', ')} to be killed`)
    expect(s.stderr()).toMatch(/killed \d+ pasta helper\(s\) an earlier run left behind/)
  } finally {
    await stopProcess(s.child)
  }
}, 120_000)
