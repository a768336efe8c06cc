// `npm run demo`: the banner comes first (logs go to the log file), a taken port
// falls back to a free one, and the temp dir is removed on every way out (SIGINT, SIGTERM, an
// error). TMPDIR points at a test folder, so what the demo leaves behind can be counted.
import { execFile, spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { BIN, ROOT, cliEnv, controlApi, runCli, tempDir, track, waitFor } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'

useCleanup()

const leftovers = (tmp: string): string[] => fs.readdirSync(tmp).filter((f) => f.startsWith('toolgate-demo-'))

async function runDemo(tmp: string, listen: string, signal: NodeJS.Signals): Promise<void> {
  const child = spawn(process.execPath, [BIN, 'demo', '--listen', listen], { env: cliEnv({ TMPDIR: tmp }), cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  track(child.pid)
  let out = ''
  let err = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
  child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const url = await waitFor(() => /open the web UI: {2}(http:\/\/\S+)\/#key=(\S+)/.exec(out), 60_000, 'the demo banner')
  // the banner is the first thing printed; nothing came before it on either stream
  expect(out.trimStart().startsWith('Toolgate demo is running')).toBe(true)
  expect(err).toBe('')
  expect(url[1]).not.toBe(`http://${listen}`)
  expect(out).toMatch(/is in use, so the demo took a free port/)
  expect((await controlApi(url[1], url[2], 'GET', '/api/v1/status')).status).toBe(200)
  expect(leftovers(tmp)).toHaveLength(1)
  child.kill(signal)
  expect(await exited).toBe(0)
  expect(leftovers(tmp)).toEqual([])
}

describe('toolgate demo', () => {
  it('with 8719-style port taken: banner first, a free port, temp dir gone after SIGINT and after SIGTERM', async () => {
    const tmp = tempDir('toolgate-demo-test-')
    const blocker = net.createServer()
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()))
    const port = (blocker.address() as net.AddressInfo).port
    try {
      await runDemo(tmp, `127.0.0.1:${port}`, 'SIGINT')
      await runDemo(tmp, `127.0.0.1:${port}`, 'SIGTERM')
    } finally {
      blocker.close()
    }
  }, 180_000)

  it('the banner\'s "Try it from a shell" line runs as printed in a clone with no toolgate on PATH', async () => {
    const tmp = tempDir('toolgate-demo-shell-')
    // PATH as a fresh clone before `npm link` has it: node and the system, no toolgate
    const env = cliEnv({ TMPDIR: tmp, PATH: [path.dirname(process.execPath), '/usr/bin', '/bin'].join(path.delimiter) })
    const sh = promisify(execFile)
    const which = await sh('sh', ['-c', 'command -v toolgate || true'], { env })
    expect(which.stdout.trim(), 'no toolgate on this PATH').toBe('')
    const free = net.createServer()
    await new Promise<void>((r) => free.listen(0, '127.0.0.1', () => r()))
    const port = (free.address() as net.AddressInfo).port
    await new Promise<void>((r) => free.close(() => r()))
    const child = spawn(process.execPath, [BIN, 'demo', '--listen', `127.0.0.1:${port}`], { env, cwd: tmp, stdio: ['ignore', 'pipe', 'pipe'] })
    track(child.pid)
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    try {
      const line = await waitFor(() => /Try it from a shell: (.+)\n/.exec(out), 60_000, 'the banner line')
      // the write_file lock shows once filesystem has listed its tools
      const result = await waitFor(
        async () => {
          const r = await sh('sh', ['-c', line[1]], { env, cwd: tmp })
          const json = JSON.parse(r.stdout) as { disabled?: { name: string; status: string }[] }
          return json.disabled?.some((d) => d.name === 'filesystem:write_file' && d.status === 'disabled_by_config') ? json : undefined
        },
        60_000,
        'the printed search command to list filesystem:write_file as locked by config',
        500,
      )
      expect(result.disabled).toBeDefined()
    } finally {
      child.kill('SIGINT')
      await exited
    }
  }, 180_000)

  it('SIGINT or SIGTERM while the demo still starts (before its banner) removes the temp dir too', async () => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      const tmp = tempDir('toolgate-demo-early-')
      const free = net.createServer()
      await new Promise<void>((r) => free.listen(0, '127.0.0.1', () => r()))
      const port = (free.address() as net.AddressInfo).port
      await new Promise<void>((r) => free.close(() => r()))
      const child = spawn(process.execPath, [BIN, 'demo', '--listen', `127.0.0.1:${port}`], {
        env: cliEnv({ TMPDIR: tmp }),
        cwd: ROOT,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      track(child.pid)
      let out = ''
      child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d))
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        child.once('exit', (code, sig) => resolve({ code, signal: sig })),
      )
      // the temp dir is there and its config written: the demo is starting its core and servers
      await waitFor(() => leftovers(tmp).some((d) => fs.existsSync(path.join(tmp, d, 'data', 'mcp_config.json'))), 30_000, 'the demo to start', 5)
      // still starting: the banner comes once everything runs
      expect(out, signal).toBe('')
      child.kill(signal)
      expect(await exited, signal).toEqual({ code: 0, signal: null })
      expect(leftovers(tmp), signal).toEqual([])
    }
  }, 120_000)

  it('an error at start-up removes the temp dir too', async () => {
    const tmp = tempDir('toolgate-demo-err-')
    // a documentation address (TEST-NET-1) is not on this machine: binding it fails at once, no traffic
    const r = await runCli(['demo', '--listen', '192.0.2.1:8719'], { env: { TMPDIR: tmp }, timeoutMs: 60_000 })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/EADDRNOTAVAIL|address not available/i)
    expect(leftovers(tmp)).toEqual([])
  }, 90_000)
})
