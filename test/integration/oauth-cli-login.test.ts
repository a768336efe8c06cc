// `toolgate auth login` with no Toolgate running: the command's own core listens on the
// configured address for the browser's redirect, the tokens land in the secret store, and a
// later `toolgate serve` connects with them at once (no sign-in again); `auth status` reads them
// with nothing running, never printing a token.
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  assertBuilt,
  BIN,
  cleanupProcesses,
  cleanupTemp,
  cliEnv,
  freePort,
  killTree,
  ROOT,
  runCli,
  startServe,
  stopProcess,
  tempDir,
  track,
  waitFor,
  waitForServerState,
  writeJson,
} from '../helpers/cli'
import { followAuthorization, startOAuthFixture, type OAuthFixture } from '../helpers/oauth-fixture'

let fx: OAuthFixture
let dataDir: string
let configPath: string
let port: number
const env = { TOOLGATE_SECRET_STORE: 'file' }

beforeAll(async () => {
  assertBuilt()
  fx = await startOAuthFixture()
  dataDir = tempDir('toolgate-oauth-cli-')
  port = await freePort()
  configPath = writeJson(path.join(dataDir, 'mcp_config.json'), {
    listen: `127.0.0.1:${port}`,
    mcpServers: { remote: { url: fx.url, quarantined: false } },
  })
})

afterAll(async () => {
  await fx?.stop()
  await cleanupProcesses()
  cleanupTemp()
})

describe('toolgate auth login with nothing running', () => {
  it('listens on the configured address for the redirect, signs in, and exits', async () => {
    const flags = ['--config', configPath, '--data-dir', dataDir]
    const child = spawn(process.execPath, [BIN, 'auth', 'login', 'remote', ...flags], { env: cliEnv(env), cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    track(child.pid)
    let out = ''
    let err = ''
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s))
    child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s))
    const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)))
    try {
      await waitFor(() => /https?:\/\/\S+authorize\S*/.test(out), 30_000, `the authorization URL on stdout (stderr: ${err})`)
      const page = new URL((/https?:\/\/\S+authorize\S*/.exec(out) as RegExpExecArray)[0])
      expect(page.searchParams.get('redirect_uri')).toBe(`http://127.0.0.1:${port}/oauth/callback`)
      const callback = await followAuthorization(page.href)
      const res = await fetch(callback)
      expect(res.status).toBe(200)
      expect(await res.text()).toContain('Signed in to remote')
      expect(await exited).toBe(0)
    } finally {
      if (child.exitCode === null) await killTree(child.pid as number)
    }
    expect(out).toContain('Signed in to remote.')
  })

  it('auth status reads the sign-in with nothing running, without a token', async () => {
    const r = await runCli(['auth', 'status', 'remote', '--json', '--config', configPath, '--data-dir', dataDir], { env })
    expect(r.code, r.stderr).toBe(0)
    expect(JSON.parse(r.stdout)).toMatchObject({ server: 'remote', status: 'signed_in', client: 'registered', refreshable: true })
    for (const t of [...(await fx.state()).issued.access, ...(await fx.state()).issued.refresh]) expect(r.stdout + r.stderr).not.toContain(t)
  })

  it('a later serve connects with the stored tokens, without another sign-in', async () => {
    const before = await fx.state()
    const serve = await startServe({ configPath, dataDir, env, port: await freePort() })
    try {
      await waitForServerState(serve, 'remote', 'connected', 15_000)
      const after = await fx.state()
      expect(after.counts.authorize).toBe(before.counts.authorize)
      expect(after.counts.mcp_ok).toBeGreaterThan(before.counts.mcp_ok)
    } finally {
      await stopProcess(serve.child)
    }
    const s = await fx.state()
    const secrets = [...s.issued.access, ...s.issued.refresh, ...s.issued.codes]
    for (const f of ['mcp_config.json', 'state.json', 'secrets.json', path.join('logs', 'toolgate.log')]) {
      const p = path.join(dataDir, f)
      if (!fs.existsSync(p)) continue
      const text = fs.readFileSync(p, 'utf8')
      for (const t of secrets) expect(text, f).not.toContain(t)
    }
  })
})
