// `toolgate auth login` with no Toolgate running: the command's own core listens on the
// configured address for the browser's redirect, the tokens land in the secret store, and a
// later `toolgate serve` connects with them at once (no sign-in again); `auth status` reads them
// with nothing running, never printing a token.
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, freePort, runCli, startServe, stopProcess, tempDir, waitForServerState, writeJson } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { followAuthorization, startAuthLogin, startOAuthFixture, type OAuthFixture } from '../helpers/oauth-fixture'

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

useCleanup(async () => {
  await fx?.stop()
})

describe('toolgate auth login with nothing running', () => {
  it('listens on the configured address for the redirect, signs in, and exits', async () => {
    const login = await startAuthLogin('remote', ['--config', configPath, '--data-dir', dataDir], env)
    try {
      expect(login.page.searchParams.get('redirect_uri')).toBe(`http://127.0.0.1:${port}/oauth/callback`)
      const res = await fetch(await followAuthorization(login.page.href))
      expect(res.status).toBe(200)
      expect(await res.text()).toContain('Signed in to remote')
      expect(await login.exited).toBe(0)
    } finally {
      await login.kill()
    }
    expect(login.stdout()).toContain('Signed in to remote.')
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
