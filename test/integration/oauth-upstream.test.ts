// OAuth for an HTTP upstream against a real OAuth-protected MCP server (the SDK's server auth
// pieces, test/fixtures/servers/oauth-mcp-server.mjs): 401 → needs_auth at once, sign-in through
// discovery, registration, PKCE and the resource parameter, renewal before expiry and on 401, a
// refused renewal → needs_auth with the reason, Inspect only after sign-in, and no token in the log.
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../src/main/core/log'
import { OAuthService } from '../../src/main/core/oauth/service'
import { Upstream, UpstreamCallError, type UpstreamState } from '../../src/main/core/upstream/upstream'
import { inspectUpstream } from '../../src/main/core/upstream/inspect'
import { NeedsSignInError } from '../../src/main/core/oauth/errors'
import type { ServerConfig } from '../../src/shared/config-schema'
import { tempDir } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { followAuthorization, MemorySlots, startOAuthFixture, type OAuthFixture } from '../helpers/oauth-fixture'
import { waitFor } from '../helpers/wait'

const limits = { maxTools: 100, maxDescriptionChars: 8000, maxResultBytes: 1024 * 1024 }

/** Stands in for the secret store's "oauth" namespace (the store itself is tested on its own). */
let fx: OAuthFixture
let dir: string
let logFile: string
const slots = new MemorySlots()
let oauth: OAuthService
let config: ServerConfig
const running: Upstream[] = []

function upstream(): { up: Upstream; states: UpstreamState[] } {
  const logger = createLogger({ dataDir: dir, stderr: false, level: 'debug' })
  const up = new Upstream(config, { logger, limits, oauth, pingIntervalMs: 0 })
  const states: UpstreamState[] = []
  up.on('state', () => states.push(up.state))
  running.push(up)
  return { up, states }
}

async function signIn(): Promise<void> {
  const started = await oauth.start(config)
  const callback = await followAuthorization(started.authorization_url)
  const answer = await oauth.callback(callback.searchParams)
  expect(answer, answer.message).toMatchObject({ status: 200 })
}

const call = (up: Upstream, text: string) => up.callTool('echo', { text }, { timeoutMs: 10_000 })

beforeAll(async () => {
  fx = await startOAuthFixture(['--access-ttl', '3'])
  dir = tempDir('toolgate-oauth-')
  logFile = path.join(dir, 'logs', 'toolgate.log')
  config = { name: 'remote', url: fx.url, protocol: 'auto', enabled: true, trust: 'manual' }
  oauth = new OAuthService({
    slots,
    storedIn: () => 'memory (test)',
    logger: createLogger({ dataDir: dir, stderr: false, level: 'debug' }),
    // the browser's redirect is delivered by the test (followAuthorization): nothing listens here
    listenerUrl: () => 'http://127.0.0.1:9',
    serverConfig: (name) => (name === config.name ? config : null),
  })
})

useCleanup(async () => {
  await Promise.all(running.map((u) => u.stop()))
  await fx?.stop()
})

describe('an OAuth-protected HTTP upstream', () => {
  it('goes to needs_auth at the first 401, without retrying, and calls answer the sign-in sentence', async () => {
    const { up, states } = upstream()
    const t0 = Date.now()
    up.start()
    await waitFor(() => up.state === 'needs_auth', 10_000, 'needs_auth')
    const ms = Date.now() - t0
    console.log(`401 → needs_auth in ${ms} ms`)
    expect(ms).toBeLessThan(5000)
    expect(states).toEqual(['connecting', 'needs_auth'])
    expect(up.lastError).toMatch(/sign/i)
    const err = await call(up, 'hi').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(UpstreamCallError)
    expect((err as UpstreamCallError).code).toBe('needs_auth')
    expect((err as Error).message).toBe(
      'Server "remote" needs the user to sign in in Toolgate: ask the user to click Sign in on remote in the Toolgate window (or run `toolgate auth login remote`).',
    )
    expect(oauth.status(config)).toMatchObject({ status: 'needs_sign_in' })
    // no client was registered in the background: registration is part of the user's sign-in
    expect((await fx.state()).counts.register).toBe(0)
    await up.stop()
  })

  it('Inspect of a server that needs sign-in fails with NeedsSignInError, not a transport error', async () => {
    const err = await inspectUpstream(config, { logger: createLogger({ stderr: false }), limits, oauth }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(NeedsSignInError)
  })

  it('signs in with PKCE S256 and the resource parameter, then connects and calls', async () => {
    const started = await oauth.start(config)
    const auth = new URL(started.authorization_url)
    expect(auth.origin + auth.pathname).toBe(new URL('/authorize', fx.issuer).href)
    expect(auth.searchParams.get('code_challenge_method')).toBe('S256')
    expect(auth.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(auth.searchParams.get('resource')).toBe(fx.url)
    expect(auth.searchParams.get('redirect_uri')).toBe('http://127.0.0.1:9/oauth/callback')
    expect(auth.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(oauth.status(config).status).toBe('signing_in')
    const callback = await followAuthorization(started.authorization_url)
    expect(callback.searchParams.get('state')).toBe(auth.searchParams.get('state'))
    const answer = await oauth.callback(callback.searchParams)
    expect(answer.status).toBe(200)
    const s = await fx.state()
    expect(s.counts.register).toBe(1) // RFC 7591, during the sign-in
    expect(s.counts.token_code).toBe(1)
    expect(s.resources).toEqual([fx.url]) // RFC 8707 on the token request too
    const status = oauth.status(config)
    expect(status).toMatchObject({ status: 'signed_in', client: 'registered', refreshable: true, authorization_server: fx.issuer })
    expect(JSON.stringify(status)).not.toContain(s.issued.access[0])

    const { up } = upstream()
    up.start()
    await waitFor(() => up.state === 'connected', 10_000, 'connected')
    expect(up.tools?.map((t) => t.name).sort()).toEqual(['echo', 'whoami'])
    expect((await call(up, 'hello')).content).toEqual([{ type: 'text', text: 'echo: hello' }])
    await up.stop()
  })

  it('Inspect lists the tools once signed in', async () => {
    const tools = await inspectUpstream(config, { logger: createLogger({ stderr: false }), limits, oauth })
    expect(tools.map((t) => t.name).sort()).toEqual(['echo', 'whoami'])
  })

  it('renews the access token before it expires, and again on a 401, without the caller noticing', async () => {
    const { up } = upstream()
    up.start()
    await waitFor(() => up.state === 'connected', 10_000, 'connected')
    const before = await fx.state()
    // the token lives 3 s and is renewed in its last fifth: wait until that window opens
    const record = oauth.records.read('remote', fx.url)
    await waitFor(() => Date.now() >= (record?.expires_at ?? 0) - 500, 10_000, 'the renewal window')
    expect((await call(up, 'after expiry')).content).toEqual([{ type: 'text', text: 'echo: after expiry' }])
    const renewed = await fx.state()
    expect(renewed.counts.token_refresh).toBe(before.counts.token_refresh + 1)
    expect(renewed.counts.mcp_401).toBe(before.counts.mcp_401) // renewed before, not after a refusal

    // the server forgets every access token: the next request gets 401 and the SDK renews then
    await fx.control('expire-access')
    expect((await call(up, 'after 401')).content).toEqual([{ type: 'text', text: 'echo: after 401' }])
    const after = await fx.state()
    expect(after.counts.mcp_401).toBeGreaterThan(renewed.counts.mcp_401)
    expect(after.counts.token_refresh).toBeGreaterThan(renewed.counts.token_refresh)
    expect(up.state).toBe('connected')
    await up.stop()
  })

  it('a refused renewal puts the server back in needs_auth with the reason, and calls answer the sign-in sentence', async () => {
    const { up } = upstream()
    up.start()
    await waitFor(() => up.state === 'connected', 10_000, 'connected')
    await fx.control('revoke-refresh')
    await fx.control('expire-access')
    const err = await call(up, 'x').catch((e: unknown) => e)
    expect((err as UpstreamCallError).code).toBe('needs_auth')
    expect((err as Error).message).toMatch(/^Server "remote" needs the user to sign in in Toolgate/)
    expect(up.state).toBe('needs_auth')
    expect(up.lastError).toMatch(/refused to renew the sign-in \(invalid_grant: refresh token is invalid, expired or revoked\)/)
    expect(oauth.status(config)).toMatchObject({ status: 'needs_sign_in', refreshable: false })
    expect(oauth.records.read('remote', fx.url)?.tokens).toBeUndefined()
    await up.stop()
  })

  it('never writes a token, a code or a client secret to the log', async () => {
    await signIn() // one more sign-in: its code and tokens go through the log's reach too
    const s = await fx.state()
    const log = fs.readFileSync(logFile, 'utf8')
    expect(log.length).toBeGreaterThan(0)
    const secrets = [...s.issued.access, ...s.issued.refresh, ...s.issued.codes, ...s.issued.client_secrets]
    expect(secrets.length).toBeGreaterThan(5)
    for (const t of secrets) expect(log).not.toContain(t)
  })
})
