// The start's pasta self-test (network.ts probe) runs pasta in a group of its own (setsid): what
// pasta leaves of that group when it fails or times out during its setup (its namespace child,
// which waits for ever) is killed. A fake pasta (TOOLGATE_PASTA) starts a child in its group and
// fails, as a pasta that dies after its fork would.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, afterEach, expect, it } from 'vitest'
import { networkSupport } from '../../src/main/core/upstream/sandbox/network'
import { which } from '../../src/main/core/upstream/sandbox/detect'
import { cleanupTemp, processRunning, sleepingFor, tempDir } from '../helpers/cli'
import { waitFor } from '../helpers/wait'

const before = process.env.TOOLGATE_PASTA
let seconds = ''

const sleepers = (): number[] => sleepingFor(seconds)

afterEach(() => {
  for (const pid of sleepers()) process.kill(pid, 'SIGKILL')
  if (before === undefined) delete process.env.TOOLGATE_PASTA
  else process.env.TOOLGATE_PASTA = before
})
afterAll(() => cleanupTemp())

it("kills what a failing pasta left of its group during the self-test (its namespace child's stand-in)", async () => {
  expect(which('setsid'), 'util-linux setsid must be installed').toBeTruthy()
  const dir = tempDir('toolgate-probe-group-')
  seconds = `${600 + Math.floor(Math.random() * 1e6) / 1e3}`
  const fake = path.join(dir, 'pasta')
  fs.writeFileSync(
    fake,
    `#!/bin/sh\nsleep ${seconds} </dev/null 2>/dev/null &\necho $! > ${path.join(dir, 'child.pid')}\nsleep 0.3\necho 'fake pasta: setup failed' >&2\nexit 3\n`,
    { mode: 0o755 },
  )
  process.env.TOOLGATE_PASTA = fake
  const support = networkSupport(which('bwrap') ?? '/usr/bin/bwrap')
  expect(support.available).toBe(false)
  expect(support.reason).toMatch(/fake pasta: setup failed/)
  // the child the fake started (it sleeps for minutes) is gone
  const child = Number(fs.readFileSync(path.join(dir, 'child.pid'), 'utf8'))
  expect(child).toBeGreaterThan(1)
  await waitFor(() => !processRunning(child) && sleepers().length === 0, 5000, 'the fake namespace child to be killed')
}, 30_000)
