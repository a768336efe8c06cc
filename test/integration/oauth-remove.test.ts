// A removed server's sign-in ends, from outside: real `toolgate serve` in front of the OAuth
// fixture (test/fixtures/servers/oauth-mcp-server.mjs). Signed-in servers are removed through the
// control API (the window's Remove server), `toolgate servers remove`, an agent's
// `upstream_servers remove`, a hand edit of mcp_config.json, and while Toolgate was not running;
// each time the record is gone from the secret store (read as the product reads it), the refresh
// token Toolgate held was revoked at the authorization server, and the same server added again
// is not signed in (auth status says so, calls answer the sign-in sentence). A server that stays
// keeps its sign-in throughout.
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { SecretStore } from '../../src/main/core/secrets/store'
import { apiRequest, assertBuilt, runCli, startServe, stopProcess, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, jsonOf, textOf, type McpHandle } from '../helpers/mcp-client'
import { followAuthorization, startOAuthFixture, type OAuthFixture } from '../helpers/oauth-fixture'

const SENTENCE = (s: string) =>
  `Server "${s}" needs the user to sign in in Toolgate: ask the user to click Sign in on ${s} in the Toolgate window (or run \`toolgate auth login ${s}\`).`

let a: OAuthFixture
let serve: Serve
let agent: McpHandle
let dataDir: string
let configPath: string

/** The server's sign-in record as the product reads it: the secret store's "oauth" namespace. */
function record(server: string): { resource: string; tokens?: { refresh_token?: string; access_token: string } } | null {
  const raw = new SecretStore({ dataDir, keychain: null }).namespace('oauth').get(server)
  return raw === undefined ? null : JSON.parse(raw)
}

async function signIn(server: string): Promise<void> {
  const start = await apiRequest(serve, 'POST', `/api/v1/servers/${server}/auth/login`)
  expect(start.status, start.text).toBe(200)
  const res = await fetch(await followAuthorization(start.json.authorization_url))
  expect(res.status, await res.text()).toBe(200)
  await waitForServerState(serve, server, 'connected', 15_000)
  expect(textOf(await agent.call('call_tool_read', { name: `${server}:echo`, args: { text: 'in' } }))).toBe('echo: in')
}

/** The refresh token Toolgate holds for `server` (the one its removal must revoke). */
function heldRefreshToken(server: string): string {
  const token = record(server)?.tokens?.refresh_token
  expect(token, `a refresh token stored for ${server}`).toBeTruthy()
  return token as string
}

async function revokedTokens(): Promise<string[]> {
  return (await a.state()).revoked.map((r) => r.token)
}

/** After a removal: the record is gone and the token it held was revoked at the authorization server. */
async function expectSignInEnded(server: string, token: string): Promise<void> {
  await waitFor(async () => record(server) === null && (await revokedTokens()).includes(token), 10_000, `the sign-in of ${server} to end`)
  const r = (await a.state()).revoked.find((x) => x.token === token)
  expect(r?.hint).toBe('refresh_token')
}

async function authStatus(server: string): Promise<{ status: string; signed_in_at: string | null }> {
  const r = await apiRequest(serve, 'GET', `/api/v1/servers/${server}/auth`)
  expect(r.status, r.text).toBe(200)
  return r.json
}

function config(servers: Record<string, unknown>): void {
  writeJson(configPath, { allow_agent_server_changes: true, mcpServers: servers })
}

const trusted = () => ({ url: a.url, quarantined: false })

beforeAll(async () => {
  assertBuilt()
  a = await startOAuthFixture()
  dataDir = tempDir('toolgate-oauth-remove-')
  configPath = path.join(dataDir, 'mcp_config.json')
  config({ api: trusted(), cli: trusted(), file: trusted(), keep: trusted() })
  serve = await startServe({ configPath, dataDir, env: { TOOLGATE_SECRET_STORE: 'file' } })
  agent = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
  await signIn('keep')
}, 60_000)

useCleanup(async () => {
  await agent?.close().catch(() => undefined)
  await stopServe(serve)
  await a?.stop()
})

describe('removing a server ends its OAuth sign-in', () => {
  it('Remove server (DELETE /api/v1/servers/:name): the record is deleted, the refresh token revoked, the answer says so', async () => {
    await signIn('api')
    const token = heldRefreshToken('api')
    const removed = await apiRequest(serve, 'DELETE', '/api/v1/servers/api')
    expect(removed.status, removed.text).toBe(200)
    expect(removed.json.message).toContain('Its sign-in ended: the tokens were deleted and revoked at the authorization server.')
    await expectSignInEnded('api', token)
    // nothing about it is shown any more
    expect((await apiRequest(serve, 'GET', '/api/v1/servers')).json.servers.map((s: { name: string }) => s.name)).not.toContain('api')
    expect((await apiRequest(serve, 'GET', '/api/v1/servers/api/auth')).status).toBe(404)
  })

  it('the same server added again (same name, same URL) is not signed in: status says so, calls answer the sign-in sentence', async () => {
    const added = await apiRequest(serve, 'POST', '/api/v1/servers', { name: 'api', url: a.url })
    expect(added.status, added.text).toBe(200)
    expect((await authStatus('api')).status).toMatch(/^(not_signed_in|needs_sign_in)$/)
    const approved = await apiRequest(serve, 'POST', '/api/v1/servers/api/approve')
    expect(approved.status, approved.text).toBe(200)
    await waitForServerState(serve, 'api', 'needs_auth', 15_000)
    expect(await authStatus('api')).toMatchObject({ status: 'needs_sign_in', signed_in_at: null })
    expect((await agent.call('call_tool_read', { name: 'api:echo', args: { text: 'x' } })).content).toEqual([{ type: 'text', text: SENTENCE('api') }])
    const cli = await runCli(['auth', 'status', 'api', ...serve.flags])
    expect(cli.code, cli.stderr).toBe(0)
    expect(cli.stdout).toMatch(/^api: needs sign in/)
  })

  it('toolgate servers remove: the sign-in ends and the command says so; added back by the CLI it is not signed in', async () => {
    await signIn('cli')
    const token = heldRefreshToken('cli')
    const out = await runCli(['servers', 'remove', 'cli', ...serve.flags])
    expect(out.code, out.stderr).toBe(0)
    expect(out.stdout).toContain('Its sign-in ended: the tokens were deleted and revoked at the authorization server.')
    await expectSignInEnded('cli', token)
    const add = await runCli(['servers', 'add', 'cli', '--url', a.url, ...serve.flags])
    expect(add.code, add.stderr).toBe(0)
    const status = await runCli(['auth', 'status', 'cli', '--json', ...serve.flags])
    expect(status.code, status.stderr).toBe(0)
    expect(JSON.parse(status.stdout)).toMatchObject({ server: 'cli', signed_in_at: null, refreshable: false })
    expect(JSON.parse(status.stdout).status).not.toBe('signed_in')
  })

  it("an agent's upstream_servers remove ends the sign-in of the server it had added", async () => {
    const added = await agent.call('upstream_servers', { operation: 'add', name: 'byagent', url: a.url })
    expect(added.isError, JSON.stringify(added)).toBeFalsy()
    expect((await apiRequest(serve, 'POST', '/api/v1/servers/byagent/approve')).status).toBe(200)
    await signIn('byagent')
    const token = heldRefreshToken('byagent')
    const removed = await agent.call('upstream_servers', { operation: 'remove', name: 'byagent' })
    expect(jsonOf(removed), JSON.stringify(removed)).toMatchObject({ removed: 'byagent' })
    await expectSignInEnded('byagent', token)
  })

  it('deleting the entry from mcp_config.json by hand ends the sign-in too (docs/remote-servers.md: use "enabled": false to pause a server)', async () => {
    await signIn('file')
    const token = heldRefreshToken('file')
    const current = JSON.parse(fs.readFileSync(configPath, 'utf8')) as { mcpServers: Record<string, unknown> }
    delete current.mcpServers.file
    writeJson(configPath, current)
    await expectSignInEnded('file', token)
    await waitFor(
      () => /removed server: its tokens were revoked/.test(fs.readFileSync(path.join(dataDir, 'logs', 'toolgate.log'), 'utf8')),
      10_000,
      'the log line',
    )
  })

  it('an unreachable authorization server does not hold the removal up: the tokens are deleted and the answer says the revocation failed', async () => {
    const b = await startOAuthFixture()
    try {
      config({
        ...(JSON.parse(fs.readFileSync(configPath, 'utf8')) as { mcpServers: Record<string, unknown> }).mcpServers,
        away: { url: b.url, quarantined: false },
      })
      await waitFor(async () => (await apiRequest(serve, 'GET', '/api/v1/servers/away')).status === 200, 10_000, 'the server "away" to be added')
      await signIn('away')
    } finally {
      await b.stop()
    }
    const removed = await apiRequest(serve, 'DELETE', '/api/v1/servers/away')
    expect(removed.status, removed.text).toBe(200)
    expect(removed.json.message).toMatch(
      /Its sign-in ended: the tokens were deleted, but revoking them at the authorization server failed \(.*could not be reached/,
    )
    expect(record('away')).toBeNull()
  })

  it('a server that stays keeps its sign-in through all of that', async () => {
    expect(await authStatus('keep')).toMatchObject({ status: 'signed_in', refreshable: true })
    expect(textOf(await agent.call('call_tool_read', { name: 'keep:echo', args: { text: 'still' } }))).toBe('echo: still')
    expect(await revokedTokens()).not.toContain(record('keep')?.tokens?.refresh_token)
  })

  it('a server removed from the file while Toolgate was not running: its sign-in ends at the next start', async () => {
    const token = heldRefreshToken('keep')
    await agent.close()
    await stopProcess(serve.child)
    const current = JSON.parse(fs.readFileSync(configPath, 'utf8')) as { mcpServers: Record<string, unknown> }
    delete current.mcpServers.keep
    writeJson(configPath, current)
    expect(record('keep')).not.toBeNull()
    serve = await startServe({ configPath, dataDir, env: { TOOLGATE_SECRET_STORE: 'file' } })
    agent = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
    await expectSignInEnded('keep', token)
  }, 60_000)
})
