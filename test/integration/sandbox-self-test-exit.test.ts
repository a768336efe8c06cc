// A `toolgate serve` that ends while pasta's self-test still runs in the background (a signal
// during its start, or a start that fails) leaves nothing of the self-test's process group behind:
// pasta's namespace child waits for pasta's go-ahead for ever and has no parent-death signal. A
// fake pasta (TOOLGATE_PASTA, started by the real setsid and setpriv as pasta is) puts a long sleep
// in its group (the namespace child's stand-in) and then waits for the test's go-ahead, so the
// test acts while the self-test is certainly running.
import fs from 'node:fs'
import path from 'node:path'
import { spawn, type ChildProcess } from 'node:child_process'
import { afterAll, afterEach, expect, it } from 'vitest'
import { which } from '../../src/main/core/upstream/sandbox/detect'
import { BIN, ROOT, TEST_KEY, assertBuilt, cleanupProcesses, cleanupTemp, cliEnv, cmdline, freePort, groupPids, lockFile, tempDir, track } from '../helpers/cli'
import { waitFor } from '../helpers/wait'

const groups: number[] = []
const owners: ChildProcess[] = []

afterEach(async () => {
  // what a failing run left (the test's own serve and fakes only)
  await cleanupProcesses()
  for (const g of groups.splice(0)) {
    try {
      process.kill(-g, 'SIGKILL')
    } catch {
      // nothing left
    }
  }
  for (const o of owners.splice(0)) o.kill('SIGKILL')
})
afterAll(() => cleanupTemp())

interface Run {
  serve: ChildProcess
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** pasta's group (its pid: setsid made it the leader), once the fake is running */
  group: () => Promise<number>
  /** lets the fake pasta end (it fails its self-test) */
  go: () => void
  stderr: () => string
  /** the command line of the fake's long sleep */
  sleeper: string
}

/** `toolgate serve` on a fresh data dir with a fake pasta that holds its self-test open until `go()`. */
async function serveWithSlowPasta(prepare: (dataDir: string) => void = () => undefined): Promise<Run> {
  assertBuilt()
  expect(which('setsid'), 'util-linux setsid must be installed').toBeTruthy()
  expect(which('bwrap'), 'bubblewrap must be installed').toBeTruthy()
  const dir = tempDir('toolgate-self-test-exit-')
  const seconds = (600 + Math.random() * 1000).toFixed(3)
  const fake = path.join(dir, 'pasta')
  const leader = path.join(dir, 'leader.pid')
  const goFile = path.join(dir, 'go')
  fs.writeFileSync(
    fake,
    [
      '#!/bin/sh',
      `sleep ${seconds} </dev/null >/dev/null 2>&1 &`,
      `echo $$ > ${leader}.tmp && mv ${leader}.tmp ${leader}`,
      `while [ ! -e ${goFile} ]; do sleep 0.05; done`,
      `echo 'fake pasta: setup failed' >&2`,
      'exit 3',
      '',
    ].join('\n'),
    { mode: 0o755 },
  )
  const dataDir = path.join(dir, 'data')
  fs.mkdirSync(dataDir, { mode: 0o700 })
  prepare(dataDir)
  const config = path.join(dir, 'mcp_config.json')
  fs.writeFileSync(config, JSON.stringify({ mcpServers: {} }))
  const port = await freePort()
  const serve = spawn(process.execPath, [BIN, 'serve', '--config', config, '--data-dir', dataDir, '--listen', `127.0.0.1:${port}`], {
    env: cliEnv({ TOOLGATE_API_KEY: TEST_KEY, TOOLGATE_PASTA: fake }),
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  track(serve.pid)
  let err = ''
  serve.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    serve.once('exit', (code, signal) => resolve({ code, signal })),
  )
  const group = async (): Promise<number> => {
    const pid = await waitFor(() => (fs.existsSync(leader) ? Number(fs.readFileSync(leader, 'utf8')) : null), 20_000, 'the fake pasta to run')
    groups.push(pid)
    return pid
  }
  return { serve, exited, group, go: () => fs.writeFileSync(goFile, ''), stderr: () => err, sleeper: `sleep ${seconds}` }
}

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
  it(`${signal} to serve while pasta tests itself: serve ends by the signal and nothing of pasta's group is left`, async () => {
    const run = await serveWithSlowPasta()
    const g = await run.group()
    // the group is there to be found: the fake (its leader), its long sleep, its polling sleeps
    expect(groupPids(g)).toContain(g)
    await waitFor(() => groupPids(g).some((p) => cmdline(p).trim() === run.sleeper), 5000, 'the namespace child stand-in to run')
    run.serve.kill(signal)
    // not the graceful stop (it is not set up before the start ends): the signal's own end, as before
    expect(await run.exited).toEqual({ code: null, signal })
    await waitFor(() => groupPids(g).length === 0, 5000, `nothing of pasta's group ${g} to be left (left: ${groupPids(g).map(cmdline).join('; ')})`)
  }, 60_000)
}

it("a start that fails while pasta tests itself (a live owner holds the data dir) exits 1 with nothing of pasta's group left", async () => {
  const owner = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' })
  owners.push(owner)
  const run = await serveWithSlowPasta((dataDir) => fs.writeFileSync(lockFile(dataDir), String(owner.pid)))
  const g = await run.group()
  expect(groupPids(g)).toContain(g)
  // the refusal waits for the self-test (which cannot end before the go-ahead)
  expect(run.serve.exitCode).toBeNull()
  run.go()
  const end = await run.exited
  expect(end, run.stderr()).toEqual({ code: 1, signal: null })
  expect(run.stderr()).toMatch(/already owns/)
  await waitFor(() => groupPids(g).length === 0, 5000, `nothing of pasta's group ${g} to be left (left: ${groupPids(g).map(cmdline).join('; ')})`)
}, 60_000)
