// A sign-in whose browser has come back while Toolgate is still exchanging the code at the token
// endpoint is still under way: the API says signing_in (not "needs sign-in"), and `toolgate auth
// login`, which polls that status, waits and ends with "Signed in" instead of failing. Before, the
// flow left the pending list when its redirect arrived, so a poll that fell into a slow exchange
// read needs_sign_in and the CLI exited 1 (oauth-serve's login test failed so under load).
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { apiRequest, assertBuilt, startServe, tempDir, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { followAuthorization, startAuthLogin, startOAuthFixture, type OAuthFixture } from '../helpers/oauth-fixture'
import { waitFor } from '../helpers/wait'

let a: OAuthFixture
let serve: Serve

beforeAll(async () => {
  assertBuilt()
  a = await startOAuthFixture()
  const dataDir = tempDir('toolgate-oauth-exchange-')
  const configPath = writeJson(path.join(dataDir, 'mcp_config.json'), { mcpServers: { remote: { url: a.url, quarantined: false } } })
  serve = await startServe({ configPath, dataDir, env: { TOOLGATE_SECRET_STORE: 'file' } })
  await waitForServerState(serve, 'remote', 'needs_auth', 15_000)
}, 60_000)

useCleanup(async () => {
  await a?.control('release-token').catch(() => undefined)
  await stopServe(serve)
  await a?.stop()
})

async function authStatus(): Promise<{ status: string; pending: unknown }> {
  const r = await apiRequest(serve, 'GET', '/api/v1/servers/remote/auth')
  expect(r.status, r.text).toBe(200)
  return r.json
}

describe('a sign-in whose code is being exchanged', () => {
  it('is still signing in, and auth login waits for it and signs in', async () => {
    const login = await startAuthLogin('remote', serve.flags)
    try {
      const before = (await a.state()).counts.token_code
      await a.control('hold-token')
      // the browser's part: the redirect reaches Toolgate's callback, whose exchange is now held
      const callback = await followAuthorization(login.page.href)
      const page = fetch(callback).then(async (r) => ({ status: r.status, text: await r.text() }))
      await waitFor(async () => (await a.state()).counts.token_code > before, 10_000, 'the code exchange to reach the token endpoint')
      // several looks while the exchange is held: each one says the sign-in is under way
      for (let i = 0; i < 3; i++) expect(await authStatus()).toMatchObject({ status: 'signing_in' })
      await a.control('release-token')
      expect((await page).status).toBe(200)
      expect(await login.exited, login.stderr()).toBe(0)
      expect(login.stdout()).toContain('Signed in to remote.')
      expect(await authStatus()).toMatchObject({ status: 'signed_in' })
    } finally {
      await login.kill()
    }
  })
})
