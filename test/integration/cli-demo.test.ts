// `npm run demo`: the banner comes first (logs go to the log file), a taken port
// falls back to a free one, and the temp dir is removed on every way out (SIGINT, SIGTERM, an
// error). TMPDIR points at a test folder, so what the demo leaves behind can be counted.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
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

  it('an error at start-up removes the temp dir too', async () => {
    const tmp = tempDir('toolgate-demo-err-')
    // a documentation address (TEST-NET-1) is not on this machine: binding it fails at once, no traffic
    const r = await runCli(['demo', '--listen', '192.0.2.1:8719'], { env: { TMPDIR: tmp }, timeoutMs: 60_000 })
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/EADDRNOTAVAIL|address not available/i)
    expect(leftovers(tmp)).toEqual([])
  }, 90_000)
})
