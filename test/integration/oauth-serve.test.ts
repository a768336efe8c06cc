// OAuth sign-in end to end, from outside: real `toolgate serve` in front of real OAuth-protected
// MCP servers (test/fixtures/servers/oauth-mcp-server.mjs), driven over the control API, the
// loopback callback, the CLI (`toolgate auth login|status|logout`) and MCP as an agent. Attacks:
// forged and replayed state, an authorization code injected into another sign-in (PKCE), a
// signed-in request redirected to another origin, a server posing as another's resource, tokens
// of one server shown to another, and an agent that must learn nothing but the one sentence.
// Finally no token, code or client secret in the data dir, the log, stderr or any answer.
import { createHash, randomBytes } from 'node:crypto'
import path from 'node:path'
import { beforeAll, describe, expect, it, vi } from 'vitest'
import { ControlClient } from '../../src/shared/control-client'
import type { ApiEvent } from '../../src/shared/api'
import { allFiles, apiRequest, assertBuilt, runCli, startServe, tempDir, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, jsonOf, textOf, type McpHandle, type ToolResult } from '../helpers/mcp-client'
import { followAuthorization, startAuthLogin, startOAuthFixture, type OAuthFixture } from '../helpers/oauth-fixture'

const CLIENT_SECRET = 'cs_PreRegisteredSecret_7f3a9c1e5b'
const SENTENCE = (s: string) =>
  `Server "${s}" needs the user to sign in in Toolgate: ask the user to click Sign in on ${s} in the Toolgate window (or run \`toolgate auth login ${s}\`).`

let a: OAuthFixture // "remote" and "unreviewed"
let b: OAuthFixture // "other"
let c: OAuthFixture // "poser": claims to be a's resource
let d: OAuthFixture // "preregistered": no DCR, a confidential client from the config
let serve: Serve
let agent: McpHandle
let dataDir: string
/** every answer Toolgate gave to the tests (API, MCP, callback pages, CLI output) */
const answers: string[] = []

async function api(method: string, p: string, body?: unknown) {
  const r = await apiRequest(serve, method, p, body)
  answers.push(r.text)
  return r
}

async function tool(name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const r = await agent.call(name, args)
  answers.push(JSON.stringify(r))
  return r
}

async function serverRow(name: string): Promise<{ state: string; last_error: string | null; auth?: { status: string; reason?: string } }> {
  return (await api('GET', '/api/v1/servers')).json.servers.find((x: { name: string }) => x.name === name)
}

/** The browser's part: open the page, follow the authorization server's redirect to Toolgate's callback. */
async function browser(authorizationUrl: string): Promise<{ status: number; text: string; callback: URL }> {
  const callback = await followAuthorization(authorizationUrl)
  const res = await fetch(callback)
  const text = await res.text()
  answers.push(text)
  return { status: res.status, text, callback }
}

async function signInViaApi(server: string): Promise<URL> {
  const start = await api('POST', `/api/v1/servers/${server}/auth/login`)
  expect(start.status, start.text).toBe(200)
  const page = await browser(start.json.authorization_url)
  expect(page.status, page.text).toBe(200)
  return page.callback
}

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url')
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') }
}

beforeAll(async () => {
  assertBuilt()
  ;[a, b, d] = await Promise.all([
    startOAuthFixture(),
    startOAuthFixture(),
    startOAuthFixture(['--no-dcr', '--client-id', 'toolgate-pre', '--client-secret', CLIENT_SECRET]),
  ])
  c = await startOAuthFixture(['--claim-resource', a.url])
  dataDir = tempDir('toolgate-oauth-serve-')
  const configPath = writeJson(path.join(dataDir, 'mcp_config.json'), {
    mcpServers: {
      remote: { url: a.url, quarantined: false },
      other: { url: b.url, quarantined: false },
      poser: { url: c.url, quarantined: false },
      preregistered: { url: d.url, quarantined: false, oauth: { client_id: 'toolgate-pre', client_secret: '${secret:PRE_SECRET}' } },
      unreviewed: { url: a.url },
    },
  })
  serve = await startServe({ configPath, dataDir, env: { TOOLGATE_SECRET_STORE: 'file' } })
  agent = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
}, 60_000)

useCleanup(async () => {
  await agent?.close().catch(() => undefined)
  await stopServe(serve)
  await Promise.all([a, b, c, d].map((f) => f?.stop()))
})

describe('OAuth sign-in through toolgate serve', () => {
  it('a server that asks for a token is in needs_auth at once, after one request and without retries', async () => {
    const t0 = Date.now()
    await waitForServerState(serve, 'remote', 'needs_auth', 10_000)
    await waitForServerState(serve, 'other', 'needs_auth', 10_000)
    console.log(`serve ready → remote needs_auth in ${Date.now() - t0} ms`)
    const row = await serverRow('remote')
    expect(row.auth).toMatchObject({ status: 'needs_sign_in' })
    const status = await api('GET', '/api/v1/status')
    expect(status.status).toBe(200)
    // no background retries, no background client registration: the server was asked once per transport at most
    await new Promise((r) => setTimeout(r, 1500))
    const s = await a.state()
    expect(s.counts.mcp_401).toBeLessThanOrEqual(2)
    expect(s.counts.register).toBe(0)
    expect(await serverRow('remote')).toMatchObject({ state: 'needs_auth' })
  })

  it('refuses a forged state and a made-up code at the callback, without asking any authorization server', async () => {
    const before = (await a.state()).counts.token_code
    for (const q of [`state=${randomBytes(32).toString('base64url')}&code=x&iss=${encodeURIComponent(a.issuer)}`, 'code=abc', '']) {
      const res = await fetch(`${serve.url}/oauth/callback?${q}`)
      const text = await res.text()
      answers.push(text)
      expect(res.status).toBe(400)
      expect(text).toMatch(/Sign-in refused/)
      expect(res.headers.get('location')).toBeNull()
      expect(res.headers.get('content-security-policy')).toMatch(/default-src 'none'/)
      expect(res.headers.get('cache-control')).toBe('no-store')
      expect(res.headers.get('referrer-policy')).toBe('no-referrer')
      expect(text).not.toMatch(/<script/i)
    }
    expect((await a.state()).counts.token_code).toBe(before)
    expect((await fetch(`${serve.url}/oauth/callback`, { method: 'POST' })).status).toBe(405)
  })

  it('an authorization code injected into the sign-in (a code the attacker got for his own PKCE challenge) is refused', async () => {
    const start = await api('POST', '/api/v1/servers/remote/auth/login')
    const victim = new URL(start.json.authorization_url)
    // the attacker asks the same authorization server for a code: same client, same redirect, his own PKCE and state
    const evil = new URL(victim)
    const attacker = pkce()
    evil.searchParams.set('code_challenge', attacker.challenge)
    evil.searchParams.set('state', 'attacker-state')
    const evilRedirect = await followAuthorization(evil.href)
    const code = evilRedirect.searchParams.get('code') as string
    expect(code).toBeTruthy()
    // ...and delivers it to Toolgate's callback with the victim's live state
    const injected = new URL(`${serve.url}/oauth/callback`)
    injected.searchParams.set('code', code)
    injected.searchParams.set('state', victim.searchParams.get('state') as string)
    injected.searchParams.set('iss', a.issuer)
    const res = await fetch(injected)
    const text = await res.text()
    answers.push(text)
    expect(res.status).toBe(400)
    expect(text).toMatch(/did not accept the code/)
    expect((await a.state()).issued.access).toEqual([]) // PKCE: the exchange failed, nothing was issued
    const status = await api('GET', '/api/v1/servers/remote/auth')
    expect(status.json).toMatchObject({ status: 'needs_sign_in', last_attempt: { ok: false } })
    expect((await serverRow('remote')).state).toBe('needs_auth')
  })

  it('a server whose metadata claims another server as its resource gets no sign-in (its tokens would be that server’s)', async () => {
    const before = [(await a.state()).counts.authorize, (await c.state()).counts.authorize]
    const r = await api('POST', '/api/v1/servers/poser/auth/login')
    expect(r.status).toBe(502)
    expect(r.json.error.message).toMatch(/could not start the sign-in of server "poser"/)
    expect(r.json.error.message).toMatch(/resource/i)
    expect([(await a.state()).counts.authorize, (await c.state()).counts.authorize]).toEqual(before)
  })

  it('signs in through the API and the loopback callback: PKCE S256, resource, redirect to this listener; then connected and callable', async () => {
    // the window learns of the sign-in from the event stream (it does not refresh after its click)
    const events = new ControlClient({ key: serve.key, baseUrl: serve.url })
    const seen: ApiEvent[] = []
    const stopEvents = events.subscribe((e) => seen.push(e))
    await vi.waitFor(async () => {
      await api('PUT', '/api/v1/secrets/STREAM_PROBE', { value: 'x' })
      expect(seen.some((e) => e.type === 'secrets.changed')).toBe(true)
    })
    const start = await api('POST', '/api/v1/servers/remote/auth/login')
    await vi.waitFor(() => expect(seen).toContainEqual({ type: 'servers.changed', data: { servers: ['remote'] } }))
    stopEvents()
    await api('DELETE', '/api/v1/secrets/STREAM_PROBE')
    const page = new URL(start.json.authorization_url)
    expect(page.origin).toBe(new URL(a.issuer).origin)
    expect(page.searchParams.get('redirect_uri')).toBe(`${serve.url}/oauth/callback`)
    expect(page.searchParams.get('code_challenge_method')).toBe('S256')
    expect(page.searchParams.get('resource')).toBe(a.url)
    expect((await serverRow('remote')).auth).toMatchObject({ status: 'signing_in' })
    const done = await browser(start.json.authorization_url)
    expect(done.status).toBe(200)
    expect(done.text).toMatch(/Signed in to remote/)
    expect(done.text).not.toMatch(/<script/i)
    await waitForServerState(serve, 'remote', 'connected', 15_000)
    expect(textOf(await tool('call_tool_read', { name: 'remote:echo', args: { text: 'hi' } }))).toBe('echo: hi')
    expect(textOf(await tool('call_tool_read', { name: 'remote:whoami', args: {} }))).toContain(`for ${a.url}`)
    // the redirect is used once
    const replay = await fetch(done.callback)
    answers.push(await replay.text())
    expect(replay.status).toBe(400)
    expect((await api('GET', '/api/v1/servers/remote/auth')).json).toMatchObject({ status: 'signed_in', client: 'registered', refreshable: true })
  })

  it('an expired access token is renewed without the agent noticing', async () => {
    const before = (await a.state()).counts.token_refresh
    await a.control('expire-access')
    expect(textOf(await tool('call_tool_read', { name: 'remote:echo', args: { text: 'later' } }))).toBe('echo: later')
    expect((await a.state()).counts.token_refresh).toBe(before + 1)
    expect((await serverRow('remote')).state).toBe('connected')
  })

  it('toolgate auth login prints the page, waits for the browser and signs in; status and logout from the CLI', async () => {
    const login = await startAuthLogin('other', serve.flags)
    try {
      expect((await browser(login.page.href)).status).toBe(200)
      expect(await login.exited).toBe(0)
    } finally {
      await login.kill()
    }
    answers.push(login.stdout(), login.stderr())
    expect(login.stdout()).toContain('Signed in to other.')
    await waitForServerState(serve, 'other', 'connected', 15_000)
    expect(textOf(await tool('call_tool_read', { name: 'other:whoami', args: {} }))).toContain(`for ${b.url}`)

    const status = await runCli(['auth', 'status', 'other', ...serve.flags])
    answers.push(status.stdout, status.stderr)
    expect(status.code, status.stderr).toBe(0)
    expect(status.stdout).toMatch(/^other: signed in/)
    expect(status.stdout).toContain(`authorization server: ${b.issuer}`)
    expect(status.stdout).toMatch(/tokens are kept in the secret store \(a key file/)
    const json = await runCli(['auth', 'status', 'other', '--json', ...serve.flags])
    answers.push(json.stdout)
    expect(JSON.parse(json.stdout)).toMatchObject({ server: 'other', status: 'signed_in', refreshable: true })
  })

  it('a token of one server is never shown to another', async () => {
    const [sa, sb] = [await a.state(), await b.state()]
    expect(sa.seen.length).toBeGreaterThan(0)
    expect(sb.seen.length).toBeGreaterThan(0)
    for (const t of sb.seen) expect(sa.issued.access).not.toContain(t)
    for (const t of sa.seen) expect(sb.issued.access).not.toContain(t)
    for (const t of sb.seen) expect(sb.issued.access).toContain(t)
  })

  it('a signed-in request redirected to another origin is not followed: the token stays with its server', async () => {
    const atB = await b.state()
    const seenAtB = atB.seen.length
    const requestsAtB = atB.counts.mcp_401 + atB.counts.mcp_ok
    await a.control(`redirect?to=${encodeURIComponent(b.url)}`)
    try {
      const r = await tool('call_tool_read', { name: 'remote:echo', args: { text: 'x' } })
      expect(r.isError).toBe(true)
      expect(textOf(r)).toMatch(/Redirect to .* not followed/)
      const sb = await b.state()
      // b got nothing from this call: not the token, not even the request
      expect(sb.seen.length).toBe(seenAtB)
      expect(sb.counts.mcp_401 + sb.counts.mcp_ok).toBe(requestsAtB)
      for (const t of (await a.state()).issued.access) expect(sb.seen).not.toContain(t)
    } finally {
      await a.control('redirect?to=')
    }
  })

  it('a refused renewal: needs_auth with the reason for the user; the agent gets one sentence and learns nothing else', async () => {
    await waitForServerState(serve, 'remote', 'connected', 30_000).catch(async () => {
      await api('POST', '/api/v1/servers/remote/restart')
      await waitForServerState(serve, 'remote', 'connected', 30_000)
    })
    await a.control('revoke-refresh')
    await a.control('expire-access')
    const r = await tool('call_tool_read', { name: 'remote:echo', args: { text: 'x' } })
    expect(r.isError).toBe(true)
    expect(r.content).toEqual([{ type: 'text', text: SENTENCE('remote') }])
    await waitForServerState(serve, 'remote', 'needs_auth', 10_000)
    const row = await serverRow('remote')
    expect(row.last_error).toMatch(/refused to renew the sign-in \(invalid_grant/)
    // the agent: the state and the sentence; not the reason, not the authorization server, not a URL to open
    const got = await tool('upstream_servers', { operation: 'get', name: 'remote' })
    const entry = jsonOf<{ server: Record<string, unknown> }>(got).server
    expect(entry).toMatchObject({ name: 'remote', state: 'needs_auth', last_error: SENTENCE('remote') })
    const listed = jsonOf<{ servers: Array<{ name: string }> }>(await tool('upstream_servers', { operation: 'list' })).servers.find((x) => x.name === 'remote')
    expect(listed).toEqual(entry)
    const agentText = JSON.stringify([r, got, listed])
    for (const leak of ['invalid_grant', a.issuer, new URL(a.issuer).host, '/authorize', 'code_challenge', 'state=']) expect(agentText).not.toContain(leak)
    // its known tools stay discoverable
    const found = jsonOf<{ tools: Array<{ name: string }> }>(await tool('retrieve_tools', { query: 'echo text back' }))
    expect(found.tools.map((t) => t.name)).toContain('remote:echo')
    // and no MCP tool signs in: upstream_servers has no such operation
    const tried = await agent
      .call('upstream_servers', { operation: 'login', name: 'remote' })
      .catch((e: Error) => ({ isError: true, content: [{ type: 'text', text: e.message }] }))
    answers.push(JSON.stringify(tried))
    expect(tried.isError).toBe(true)
  })

  it('a confidential client from the config: no registration, its secret from the secret store, never echoed', async () => {
    expect((await api('PUT', '/api/v1/secrets/PRE_SECRET', { value: CLIENT_SECRET })).status).toBe(200)
    await waitForServerState(serve, 'preregistered', 'needs_auth', 15_000)
    await signInViaApi('preregistered')
    await waitForServerState(serve, 'preregistered', 'connected', 15_000)
    expect(textOf(await tool('call_tool_read', { name: 'preregistered:whoami', args: {} }))).toContain('client toolgate-pre')
    expect((await d.state()).counts.register).toBe(0)
    expect((await api('GET', '/api/v1/servers/preregistered/auth')).json).toMatchObject({ status: 'signed_in', client: 'configured' })
  })

  it('sign-in never bypasses quarantine: Inspect waits for the sign-in, the tools are listed for review after it, approval stays a human act', async () => {
    expect((await serverRow('unreviewed')).state).toBe('quarantined')
    const early = await api('POST', '/api/v1/servers/unreviewed/inspect')
    expect(early.status).toBe(409)
    expect(early.json.error.code).toBe('needs_auth')
    await signInViaApi('unreviewed')
    expect((await serverRow('unreviewed')).state).toBe('quarantined')
    const inspected = await api('POST', '/api/v1/servers/unreviewed/inspect')
    expect(inspected.status, inspected.text).toBe(200)
    const tools = (await api('GET', '/api/v1/servers/unreviewed/tools')).json.tools as Array<{ name: string; status: string }>
    expect(tools.map((t) => t.name).sort()).toEqual(['unreviewed:echo', 'unreviewed:whoami'])
    expect(tools.every((t) => t.status !== 'callable')).toBe(true)
    const blocked = await tool('call_tool_read', { name: 'unreviewed:echo', args: { text: 'x' } })
    expect(textOf(blocked)).toMatch(/^TOOL_BLOCKED \(server_quarantined\)/)
    expect((await api('POST', '/api/v1/servers/unreviewed/approve')).status).toBe(200)
    await waitForServerState(serve, 'unreviewed', 'connected', 15_000)
    expect(textOf(await tool('call_tool_read', { name: 'unreviewed:echo', args: { text: 'ok' } }))).toBe('echo: ok')
  })

  it('auth logout deletes and revokes the tokens; the server needs sign-in again', async () => {
    const revoked = (await b.state()).counts.revoke
    const out = await runCli(['auth', 'logout', 'other', ...serve.flags])
    answers.push(out.stdout, out.stderr)
    expect(out.code, out.stderr).toBe(0)
    expect(out.stdout).toContain('Signed out of other: its tokens were deleted and revoked at the authorization server.')
    expect((await b.state()).counts.revoke).toBe(revoked + 1)
    await waitForServerState(serve, 'other', 'needs_auth', 15_000)
    expect((await tool('call_tool_read', { name: 'other:whoami', args: {} })).content).toEqual([{ type: 'text', text: SENTENCE('other') }])
  })

  it('no token, code or client secret in the data dir, the log, stderr, or any answer; tokens are not among the user’s secrets', async () => {
    const secrets = await api('GET', '/api/v1/secrets')
    expect(secrets.json.secrets.map((x: { name: string }) => x.name)).toEqual(['PRE_SECRET'])
    expect(secrets.json.store.count).toBe(1)
    answers.push((await api('GET', '/api/v1/servers/preregistered/entry')).text)
    const issued = [a, b, c, d].map((f) => f.state())
    const all = (await Promise.all(issued)).flatMap((s) => [...s.issued.access, ...s.issued.refresh, ...s.issued.codes, ...s.issued.client_secrets])
    expect(all.length).toBeGreaterThan(10)
    const secretsAll = [...all, CLIENT_SECRET]
    const files = allFiles(dataDir)
    expect(files.map((f) => path.basename(f.file))).toEqual(expect.arrayContaining(['state.json', 'mcp_config.json', 'secrets.json', 'toolgate.log']))
    const places = [
      ...files.map((f) => ({ where: f.file, text: f.text })),
      { where: 'stderr', text: serve.stderr() },
      ...answers.map((t, i) => ({ where: `answer ${i}`, text: t })),
    ]
    for (const s of secretsAll) for (const p of places) if (p.text.includes(s)) throw new Error(`${s.slice(0, 6)}… found in ${p.where}`)
  })
})
