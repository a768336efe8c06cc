// Sign-in that never dead-ends, from outside: real `toolgate serve` in front of
// OAuth-protected MCP servers that behave as real ones do and as hostile ones might
// (test/fixtures/servers/oauth-mcp-server.mjs), driven over the control API, the loopback callback
// and MCP as an agent.
// - A server that lets `initialize` through and asks for a token only later: Sign in starts from
//   the challenge the connection got (no 409 no_sign_in).
// - A server waiting for sign-in answers the sign-in sentence for every tool name, listed or not.
// - A scope step-up (403 insufficient_scope): the next sign-in asks for both scopes, once, and the
//   call goes through. A server that refuses the scope it already has is not signed in again in a
//   loop: state error, with why, and no more requests.
// - A server naming another server as its resource, and authorization servers sending the browser
//   to a plain-http page or to another origin without the iss promise (mix-up): refused, state
//   error with why, no retries, no authorization request.
// - The client_credentials grant (machine to machine): no browser, the secret from the secret
//   store, a new grant before the token expires; refused credentials stop with why, no retry loop.
// - The same sign-in and step-up with a server of the 2026-07-28 era (SDK v2 server package: no
//   session, no initialize; server/discover is let through, tools/list asks for a token).
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { apiRequest, assertBuilt, startServe, tempDir, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, textOf, type McpHandle } from '../helpers/mcp-client'
import { followAuthorization, startOAuthFixture, type OAuthFixture } from '../helpers/oauth-fixture'

const SENTENCE = (s: string) =>
  `Server "${s}" needs the user to sign in in Toolgate: ask the user to click Sign in on ${s} in the Toolgate window (or run \`toolgate auth login ${s}\`).`

let lazy: OAuthFixture // lets initialize through, asks for a token later
let stepUp: OAuthFixture // tools/call needs mcp:admin too
let loop: OAuthFixture // answers 403 insufficient_scope for the scope it granted, forever
let target: OAuthFixture // an honest server ...
let poser: OAuthFixture // ... and one naming it as its resource
let plainPage: OAuthFixture // its authorization page is plain http on another machine
let elsewhere: OAuthFixture // its authorization page is on another origin, without the iss promise
let machine: OAuthFixture // grants client_credentials to svc:CC_SECRET
let modern: OAuthFixture // 2026-07-28 era, server/discover open, tools/call needs mcp:admin too
let serve: Serve
let dataDir: string
const CC_SECRET = 'cc_MachineSecret_4f9d2a7c1b'
let agent: McpHandle

type Row = { state: string; last_error: string | null }
async function row(name: string): Promise<Row> {
  const r = await apiRequest(serve, 'GET', `/api/v1/servers/${name}`)
  expect(r.status, r.text).toBe(200)
  return r.json.server
}

async function signIn(server: string): Promise<URL> {
  const start = await apiRequest(serve, 'POST', `/api/v1/servers/${server}/auth/login`)
  expect(start.status, start.text).toBe(200)
  const page = new URL(start.json.authorization_url)
  const res = await fetch(await followAuthorization(page.href))
  expect(res.status, await res.text()).toBe(200)
  return page
}

const call = async (name: string, args: Record<string, unknown> = {}) => textOf(await agent.call('call_tool_read', { name, args }))

/** The counters of `fx` do not move for `ms`: nothing is retried in the background. */
async function quiet(fx: OAuthFixture, ms = 1500): Promise<void> {
  const before = (await fx.state()).counts
  await new Promise((r) => setTimeout(r, ms))
  expect((await fx.state()).counts).toEqual(before)
}

beforeAll(async () => {
  assertBuilt()
  ;[lazy, stepUp, loop, target, plainPage, elsewhere, machine, modern] = await Promise.all([
    startOAuthFixture(['--open-initialize']),
    startOAuthFixture(['--call-scope', 'mcp:admin']),
    startOAuthFixture(['--always-insufficient']),
    startOAuthFixture(),
    startOAuthFixture(['--authorize-endpoint', 'http://login.example.com/authorize']),
    startOAuthFixture(['--no-iss', '--authorize-endpoint', 'https://login.example.com/authorize']),
    startOAuthFixture(['--client-credentials', `svc:${CC_SECRET}`, '--access-ttl', '3']),
    startOAuthFixture(['--modern', '--open-initialize', '--call-scope', 'mcp:admin']),
  ])
  poser = await startOAuthFixture(['--claim-resource', target.url])
  dataDir = tempDir('toolgate-oauth-dead-ends-')
  const cc = (secret: string) => ({ ...entry(machine), oauth: { grant_type: 'client_credentials', client_id: 'svc', client_secret: `\${secret:${secret}}` } })
  const entry = (fx: OAuthFixture) => ({ url: fx.url, quarantined: false })
  const configPath = writeJson(path.join(dataDir, 'mcp_config.json'), {
    mcpServers: {
      lazy: entry(lazy),
      stepup: entry(stepUp),
      loop: entry(loop),
      poser: entry(poser),
      plainpage: entry(plainPage),
      elsewhere: entry(elsewhere),
      locked: { ...entry(target), enabled: false },
      machine: cc('SVC_SECRET'),
      wrongsecret: cc('SVC_WRONG'),
      modern: entry(modern),
    },
  })
  serve = await startServe({ configPath, dataDir, env: { TOOLGATE_SECRET_STORE: 'file' } })
  agent = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
}, 60_000)

useCleanup(async () => {
  await agent?.close().catch(() => undefined)
  await stopServe(serve)
  await Promise.all([lazy, stepUp, loop, target, poser, plainPage, elsewhere, machine, modern].map((f) => f?.stop()))
})

describe('sign-in that never dead-ends', () => {
  it('a server waiting for sign-in answers the sign-in sentence for every tool name, listed or not; a locked server still answers its lock', async () => {
    await waitForServerState(serve, 'lazy', 'needs_auth', 15_000)
    // it has never listed a tool: any name gets the sentence, not "unknown tool"
    for (const name of ['lazy:echo', 'lazy:never_listed', 'lazy:x']) expect(await call(name, { text: 'a' })).toBe(SENTENCE('lazy'))
    const destructive = textOf(await agent.call('call_tool_destructive', { name: 'lazy:whatever', args: {} }))
    expect(destructive).toBe(SENTENCE('lazy'))
    // a server that is off answers its lock for any name, as before
    expect(await call('locked:anything')).toMatch(/^TOOL_BLOCKED \(server_disabled\)/)
    // and a server that does not exist is still an unknown server
    expect(await call('nosuch:echo')).toMatch(/unknown server "nosuch"/)
  })

  it('Sign in on a server that let initialize through uses the challenge the connection got (no 409 no_sign_in); then connected and callable', async () => {
    expect((await row('lazy')).state).toBe('needs_auth')
    const before = (await lazy.state()).counts.mcp_401
    expect(before).toBeGreaterThan(0)
    const page = await signIn('lazy')
    expect(page.origin).toBe(new URL(lazy.issuer).origin)
    await waitForServerState(serve, 'lazy', 'connected', 15_000)
    expect(await call('lazy:echo', { text: 'through' })).toBe('echo: through')
  })

  it('a scope step-up (403 insufficient_scope): the next sign-in asks for both scopes, once, and the call goes through', async () => {
    await waitForServerState(serve, 'stepup', 'needs_auth', 15_000)
    await signIn('stepup')
    await waitForServerState(serve, 'stepup', 'connected', 15_000)
    expect((await stepUp.state()).scopes_asked).toEqual(['mcp:tools'])
    // the call needs mcp:admin too: the agent hears the sign-in sentence, the user sees why
    expect(await call('stepup:echo', { text: 'more' })).toBe(SENTENCE('stepup'))
    // the user sees why: the server asks for more permissions
    const waiting = await row('stepup')
    expect(waiting.state).toBe('needs_auth')
    expect(waiting.last_error).toMatch(/more permissions \(scope "mcp:tools mcp:admin"\)/)
    const status = await apiRequest(serve, 'GET', '/api/v1/servers/stepup/auth')
    expect(status.json).toMatchObject({ status: 'needs_sign_in' })
    expect(status.json.reason).toMatch(/more permissions \(scope "mcp:tools mcp:admin"\)/)
    const page = await signIn('stepup')
    expect(page.searchParams.get('scope')).toBe('mcp:tools mcp:admin')
    await waitForServerState(serve, 'stepup', 'connected', 15_000)
    expect(await call('stepup:echo', { text: 'more' })).toBe('echo: more')
    expect((await stepUp.state()).scopes_asked).toEqual(['mcp:tools', 'mcp:tools mcp:admin'])
  })

  it('a server that refuses the scope it already granted is not signed in again in a loop: state error, with why, and nothing more is sent', async () => {
    await waitForServerState(serve, 'loop', 'needs_auth', 15_000)
    await signIn('loop')
    await waitForServerState(serve, 'loop', 'error', 15_000)
    const r = await row('loop')
    expect(r.last_error).toMatch(/403 insufficient_scope for scope "mcp:tools", which its sign-in already asked for/)
    expect(r.last_error).toMatch(/stopped trying/)
    const s = await loop.state()
    expect(s.counts.authorize).toBe(1)
    expect(s.counts.mcp_403).toBeLessThanOrEqual(2)
    await quiet(loop)
    // a call is answered without sending anything
    expect(await call('loop:echo', { text: 'x' })).not.toBe('echo: x')
    expect((await loop.state()).counts).toEqual(s.counts)
  })

  it('a server naming another server as its resource: refused at once with why, no retries, no sign-in page', async () => {
    await waitForServerState(serve, 'poser', 'error', 15_000)
    const r = await row('poser')
    expect(r.last_error).toContain(`names ${target.url} as the resource its tokens are for`)
    await quiet(poser)
    const login = await apiRequest(serve, 'POST', '/api/v1/servers/poser/auth/login')
    expect(login.status).toBe(502)
    expect(login.json.error.message).toMatch(/as the resource its tokens are for/)
    expect((await poser.state()).counts.authorize).toBe(0)
    expect((await target.state()).counts.authorize).toBe(0)
  })

  it('an authorization page over plain http on another machine, or on another origin without the iss promise (mix-up): refused with why', async () => {
    await waitForServerState(serve, 'plainpage', 'error', 15_000)
    expect((await row('plainpage')).last_error).toMatch(/would send the browser to a page that is not https \(http:\/\/login\.example\.com\/?\)/)
    await waitForServerState(serve, 'elsewhere', 'error', 15_000)
    expect((await row('elsewhere')).last_error).toMatch(
      /sends the browser to another origin \(https:\/\/login\.example\.com\/?\) and does not promise the iss parameter/,
    )
    for (const name of ['plainpage', 'elsewhere']) {
      const login = await apiRequest(serve, 'POST', `/api/v1/servers/${name}/auth/login`)
      expect(login.status, login.text).toBe(502)
    }
    await quiet(elsewhere)
    expect((await plainPage.state()).counts.authorize + (await elsewhere.state()).counts.authorize).toBe(0)
  })

  it('the client_credentials grant: no browser, the secret from the secret store, a new grant before the token expires', async () => {
    for (const [name, value] of [
      ['SVC_SECRET', CC_SECRET],
      ['SVC_WRONG', 'not-the-secret'],
    ]) {
      const put = await apiRequest(serve, 'PUT', `/api/v1/secrets/${name}`, { value })
      expect(put.status, put.text).toBe(200)
    }
    await waitForServerState(serve, 'machine', 'connected', 15_000)
    expect(await call('machine:whoami')).toBe(`signed in through client svc for ${machine.url}`)
    const s = await machine.state()
    expect(s.counts.token_cc).toBeGreaterThanOrEqual(1)
    expect(s.counts.authorize + s.counts.register + s.counts.token_code).toBe(0) // no browser, no registration
    expect(s.resources.at(-1)).toBe(machine.url) // RFC 8707 on the grant too
    const status = await apiRequest(serve, 'GET', '/api/v1/servers/machine/auth')
    expect(status.json).toMatchObject({ status: 'signed_in', client: 'configured' })
    // Sign in does not apply: there is no browser step
    const login = await apiRequest(serve, 'POST', '/api/v1/servers/machine/auth/login')
    expect(login.status).toBe(409)
    expect(login.json.error.message).toMatch(/signs in by itself with its client credentials/)
    // the token lives 3 s: inside its last fifth the next call gets a new one by a new grant, without a 401
    await new Promise((r) => setTimeout(r, 2600))
    const before = await machine.state()
    expect(await call('machine:echo', { text: 'later' })).toBe('echo: later')
    const after = await machine.state()
    expect(after.counts.token_cc).toBe(before.counts.token_cc + 1)
    expect(after.counts.mcp_401).toBe(before.counts.mcp_401)
  })

  it('refused client credentials: state error with the reason, no retry loop, the secret never shown', async () => {
    await waitForServerState(serve, 'wrongsecret', 'error', 15_000)
    const r = await row('wrongsecret')
    expect(r.last_error).toMatch(/refused Toolgate's client credentials for server "wrongsecret" \(invalid_client: unknown client or wrong secret\)/)
    const refused = (await machine.state()).counts.cc_refused
    expect(refused).toBeGreaterThanOrEqual(1)
    expect(refused).toBeLessThanOrEqual(2)
    await new Promise((res) => setTimeout(res, 1500))
    expect((await machine.state()).counts.cc_refused).toBe(refused)
    const log = fs.readFileSync(path.join(dataDir, 'logs', 'toolgate.log'), 'utf8')
    expect(log).toMatch(/client credentials/)
    for (const secret of [CC_SECRET, 'not-the-secret', ...(await machine.state()).issued.access]) expect(log).not.toContain(secret)
  })

  it('a 2026-07-28 server: Sign in from the challenge of a later request, then a step-up, once, and the call goes through', async () => {
    await waitForServerState(serve, 'modern', 'needs_auth', 15_000)
    expect(await call('modern:echo', { text: 'a' })).toBe(SENTENCE('modern'))
    await signIn('modern')
    await waitForServerState(serve, 'modern', 'connected', 15_000)
    const view = await apiRequest(serve, 'GET', '/api/v1/servers/modern')
    expect(view.json.server.protocol_version).toBe('2026-07-28')
    expect(await call('modern:echo', { text: 'more' })).toBe(SENTENCE('modern'))
    const page = await signIn('modern')
    expect(page.searchParams.get('scope')).toBe('mcp:tools mcp:admin')
    await waitForServerState(serve, 'modern', 'connected', 15_000)
    expect(await call('modern:echo', { text: 'more' })).toBe('echo: more')
    expect(await call('modern:whoami')).toMatch(/^signed in through client \S+ for .* \(modern\)$/)
    expect((await modern.state()).scopes_asked).toEqual(['mcp:tools', 'mcp:tools mcp:admin'])
  })
})
