// Graceful shutdown: SIGTERM / SIGINT to `toolgate serve`, and SIGTERM or a closed stdin to an
// embedded `toolgate stdio` owner, exit 0, stop every upstream process they started, and release
// the data dir (lock file and instance.json removed).
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  NOISY,
  assertBuilt,
  childPids,
  cmdline,
  everythingEntry,
  fixtureEntry,
  lockFile,
  processRunning,
  readInstance,
  startServe,
  tempDir,
  waitFor,
  waitForServerState,
  writeJson,
} from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { connectStdio, waitForUpstreams } from '../helpers/mcp-client'

useCleanup()

function setup(): { configPath: string; dataDir: string; pidFile: string } {
  assertBuilt()
  const tmp = tempDir('toolgate-shutdown-')
  const pidFile = path.join(tmp, 'noisy.pid')
  const tools = writeJson(path.join(tmp, 'tools.json'), [{ name: 'ping_it', description: 'Ping it', annotations: { readOnlyHint: true } }])
  const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
    mcpServers: {
      everything: everythingEntry({ quarantined: false }),
      fixture: fixtureEntry(tools, path.join(tmp, 'calls.log'), { quarantined: false }),
      // unsandboxed: the test compares the pid it writes with the host's processes (inside the
      // sandbox's PID namespace it would see another pid); sandbox-attacks.test.ts covers sandboxed shutdown
      noisy: { command: process.execPath, args: [NOISY, '--pid-file', pidFile], quarantined: false, sandbox: false },
    },
  })
  return { configPath, dataDir: path.join(tmp, 'data'), pidFile }
}

/** The upstream processes an owner runs: its children whose command line names one of our servers. */
function upstreamsOf(pid: number): number[] {
  return childPids(pid).filter((c) => /server-everything|fixture-server|noisy-server/.test(cmdline(c)))
}

describe('graceful shutdown', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`${signal} to \`toolgate serve\` exits 0, stops every upstream process and removes the lock and instance.json`, async () => {
      const { configPath, dataDir, pidFile } = setup()
      const serve = await startServe({ configPath, dataDir })
      for (const name of ['everything', 'fixture', 'noisy']) await waitForServerState(serve, name, 'connected')
      const upstreams = upstreamsOf(serve.pid)
      expect(upstreams).toHaveLength(3)
      expect(upstreams).toContain(Number(fs.readFileSync(pidFile, 'utf8')))
      expect(fs.existsSync(lockFile(dataDir))).toBe(true)
      expect(readInstance(dataDir)?.pid).toBe(serve.pid)

      const started = Date.now()
      serve.child.kill(signal)
      const exit = await serve.exited
      const ms = Date.now() - started
      expect(exit).toEqual({ code: 0, signal: null })
      // gone by the time the owner has exited, not merely orphaned
      expect(upstreams.filter(processRunning)).toEqual([])
      expect(fs.existsSync(lockFile(dataDir))).toBe(false)
      expect(fs.existsSync(path.join(dataDir, 'instance.json'))).toBe(false)
      expect(ms).toBeLessThan(8000)
    })
  }

  it('SIGTERM to an embedded `toolgate stdio` owner exits 0, stops its upstreams and releases the data dir', async () => {
    const { configPath, dataDir } = setup()
    const c = await connectStdio(['--config', configPath, '--data-dir', dataDir])
    try {
      await waitForUpstreams(c, ['everything', 'fixture', 'noisy'])
      const pid = c.pid as number
      expect(readInstance(dataDir)).toMatchObject({ pid, kind: 'stdio' })
      const upstreams = upstreamsOf(pid)
      expect(upstreams).toHaveLength(3)
      process.kill(pid, 'SIGTERM')
      await waitFor(() => !processRunning(pid), 10_000, 'toolgate stdio to exit')
      expect(upstreams.filter(processRunning)).toEqual([])
      expect(fs.existsSync(lockFile(dataDir))).toBe(false)
      expect(fs.existsSync(path.join(dataDir, 'instance.json'))).toBe(false)
    } finally {
      await c.close().catch(() => {})
    }
  })

  it('closing stdin of an embedded `toolgate stdio` owner stops its upstreams and releases the data dir', async () => {
    const { configPath, dataDir } = setup()
    const c = await connectStdio(['--config', configPath, '--data-dir', dataDir])
    await waitForUpstreams(c, ['everything', 'fixture', 'noisy'])
    const pid = c.pid as number
    const upstreams = upstreamsOf(pid)
    expect(upstreams).toHaveLength(3)
    await c.close() // ends stdin; the SDK escalates to signals only after a grace period
    await waitFor(() => !processRunning(pid), 10_000, 'toolgate stdio to exit')
    expect(upstreams.filter(processRunning)).toEqual([])
    expect(fs.existsSync(lockFile(dataDir))).toBe(false)
    expect(fs.existsSync(path.join(dataDir, 'instance.json'))).toBe(false)
  })
})
