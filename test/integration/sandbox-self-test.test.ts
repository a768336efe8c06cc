// The sandbox's self-tests at a start (upstream/sandbox/self-test.ts): bubblewrap's and pasta's run
// side by side in the background while the core is built. Their answers are the ones the
// one-at-a-time self-tests give (real bwrap and pasta), one run serves every caller, a failing
// pasta leaves nothing of its group behind, and a start that fails while pasta's self-test runs
// waits for it (pasta stopped during its setup would leave its namespace child waiting for ever).
import fs from 'node:fs'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { afterAll, afterEach, expect, it } from 'vitest'
import { probeSandbox } from '../../src/main/core/upstream/sandbox/self-test'
import { networkSupport } from '../../src/main/core/upstream/sandbox/network'
import { sandboxSupport, which } from '../../src/main/core/upstream/sandbox/detect'
import { DataDirLock } from '../../src/main/core/state/lock'
import { OwnerExistsError, startCore } from '../../src/main/core/core'
import { cleanupTemp, processRunning, sleepingFor, tempDir } from '../helpers/cli'
import { waitFor } from '../helpers/wait'

const env = { bwrap: process.env.TOOLGATE_BWRAP, pasta: process.env.TOOLGATE_PASTA }
let seconds = ''

const sleepers = (): number[] => sleepingFor(seconds)

function restore(name: 'TOOLGATE_BWRAP' | 'TOOLGATE_PASTA', value: string | undefined): void {
  if (value === undefined) delete process.env[name]
  else process.env[name] = value
}

afterEach(() => {
  for (const pid of sleepers()) process.kill(pid, 'SIGKILL')
  restore('TOOLGATE_BWRAP', env.bwrap)
  restore('TOOLGATE_PASTA', env.pasta)
})
afterAll(() => cleanupTemp())

/** A pasta that starts a long sleep in its group (its namespace child's stand-in), notes each run, waits `waitS` and fails. */
function fakePasta(dir: string, waitS: number): { file: string; runs: () => number; child: () => number } {
  seconds = `${600 + Math.floor(Math.random() * 1e6) / 1e3}`
  const file = path.join(dir, 'pasta')
  const runs = path.join(dir, 'runs')
  fs.writeFileSync(
    file,
    `#!/bin/sh\necho run >> ${runs}\nsleep ${seconds} </dev/null 2>/dev/null &\necho $! > ${path.join(dir, 'child.pid')}\nsleep ${waitS}\necho 'fake pasta: setup failed' >&2\nexit 3\n`,
    { mode: 0o755 },
  )
  return {
    file,
    runs: () => (fs.existsSync(runs) ? fs.readFileSync(runs, 'utf8').split('\n').filter(Boolean).length : 0),
    child: () => Number(fs.readFileSync(path.join(dir, 'child.pid'), 'utf8')),
  }
}

it('answers as the one-at-a-time self-tests do (real bwrap and pasta)', async () => {
  const bwrap = which('bwrap')
  const pasta = which('pasta')
  expect(bwrap && pasta, 'bwrap and pasta must be installed').toBeTruthy()
  // the background run first, under one name of the binaries; the one-at-a-time run under another (its own cache entry)
  delete process.env.TOOLGATE_BWRAP
  delete process.env.TOOLGATE_PASTA
  const soon = await probeSandbox()
  process.env.TOOLGATE_BWRAP = bwrap ?? ''
  process.env.TOOLGATE_PASTA = pasta ?? ''
  const sandbox = sandboxSupport()
  const net = networkSupport(sandbox.binary)
  expect(soon.sandbox).toEqual(sandbox)
  expect(soon.sandbox.available).toBe(true)
  expect(soon.net).toEqual(net)
  expect(soon.net?.available).toBe(true)
}, 60_000)

it('one run serves callers at once and after; a failing pasta is reported as before and nothing of its group is left', async () => {
  expect(which('setsid'), 'util-linux setsid must be installed').toBeTruthy()
  const dir = tempDir('toolgate-self-test-')
  const fake = fakePasta(dir, 0.3)
  process.env.TOOLGATE_PASTA = fake.file
  const [a, b] = await Promise.all([probeSandbox(), probeSandbox()])
  expect(a).toEqual(b)
  expect(a.net?.available).toBe(false)
  expect(a.net?.reason).toMatch(/^pasta failed its self-test \(fake pasta: setup failed\)/)
  // the sandbox itself is unaffected; the answers are kept: neither a later start nor a launch's networkSupport() runs pasta again
  expect(a.sandbox.available).toBe(true)
  expect((await probeSandbox()).net).toEqual(a.net)
  expect(networkSupport(a.sandbox.binary)).toEqual(a.net)
  expect(fake.runs()).toBe(1)
  expect(fake.child()).toBeGreaterThan(1)
  await waitFor(() => !processRunning(fake.child()) && sleepers().length === 0, 5000, 'the fake namespace child to be killed')
}, 30_000)

it('a start refused while pasta tests itself (the data dir has a live owner) ends after the self-test, with nothing of its group left', async () => {
  const dir = tempDir('toolgate-self-test-')
  const fake = fakePasta(dir, 1.5)
  process.env.TOOLGATE_PASTA = fake.file
  const dataDir = path.join(dir, 'data')
  fs.mkdirSync(dataDir, { mode: 0o700 })
  const owner = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' })
  try {
    fs.writeFileSync(DataDirLock.lockPath(dataDir), String(owner.pid))
    fs.writeFileSync(path.join(dir, 'mcp_config.json'), JSON.stringify({ mcpServers: {} }))
    const started = Date.now()
    await expect(startCore({ dataDir, configPath: path.join(dir, 'mcp_config.json'), serveHttp: false, logToStderr: false })).rejects.toBeInstanceOf(
      OwnerExistsError,
    )
    // the refusal waited for the self-test (the fake fails after 1.5 s), which then killed what was left of its group
    expect(fake.runs()).toBe(1)
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400)
    await waitFor(() => !processRunning(fake.child()) && sleepers().length === 0, 5000, 'the fake namespace child to be killed')
  } finally {
    owner.kill('SIGKILL')
  }
}, 30_000)
