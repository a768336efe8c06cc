// `toolgate serve` stopped (SIGTERM) at several moments while it launches sandboxed servers with
// network (pasta around bwrap): once it has exited, nothing it started may remain. Found from
// /proc: any live process whose command line names this test's temp dir (every server's argv
// does, and the sandbox's own processes carry that argv too).
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { BIN, cleanupProcesses, cleanupTemp, cliEnv, cmdline, freePort, processRunning, tempDir, track, waitFor, writeJson } from '../helpers/cli'

afterAll(async () => {
  await cleanupProcesses()
  cleanupTemp()
})

function leftovers(marker: string): number[] {
  const out: number[] = []
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    const pid = Number(entry)
    if (cmdline(pid).includes(marker) && processRunning(pid)) out.push(pid)
  }
  return out
}

it('serve stopped during the launch of sandboxed servers leaves none of their processes', async () => {
  const tmp = fs.realpathSync(tempDir('toolgate-stop-serve-'))
  fs.chmodSync(tmp, 0o755)
  const servers: Record<string, unknown> = {}
  for (let i = 0; i < 6; i++) {
    servers[`s${i}`] = { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1e9)', tmp], quarantined: false, sandbox: { network: true } }
  }
  const seen: number[] = []
  const configPath = writeJson(path.join(tmp, 'mcp_config.json'), { mcpServers: servers })
  for (const [round, delay] of [150, 300, 450, 600, 800, 1000, 1300, 1600].entries()) {
    const port = await freePort()
    const child = spawn(
      process.execPath,
      [BIN, 'serve', '--config', configPath, '--data-dir', path.join(tmp, `data-${round}`), '--listen', `127.0.0.1:${port}`],
      {
        env: cliEnv({ TOOLGATE_API_KEY: 'stop-serve-test-key' }),
        stdio: 'ignore',
      },
    )
    track(child.pid)
    const exited = new Promise((resolve) => child.once('exit', resolve))
    await new Promise((r) => setTimeout(r, delay))
    seen.push(leftovers(tmp).length)
    child.kill('SIGTERM')
    await exited
    await waitFor(() => leftovers(tmp).length === 0, 5000, 'the servers to be gone').catch(() => undefined)
    expect(
      leftovers(tmp).map((p) => `${p}: ${cmdline(p).slice(0, 100)}`),
      `round ${round} (SIGTERM ${delay} ms after the spawn)`,
    ).toEqual([])
  }
  // the rounds stopped serve while its servers' processes were there (else this tested nothing)
  expect(
    seen.some((n) => n > 0),
    `processes of the servers at each SIGTERM: ${seen.join(', ')}`,
  ).toBe(true)
}, 120_000)
