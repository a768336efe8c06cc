// Attacks on "removing a server ends its sign-in". The sign-in whose code is being exchanged when
// its server is removed (or removed and added again, or signed out): the product's OAuthService
// against the real OAuth fixture, whose token endpoint is held mid-exchange; the removal is what
// core applyConfig does (the entry leaves the config, endSignIn). The tokens that exchange brings
// must not be stored and must be revoked. From outside with real `toolgate serve`: a rename (remove
// A, add B with A's URL) does not carry A's sign-in to B, and the start-up clean-up keeps the
// sign-ins of servers still configured.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentLogger } from '../../src/main/core/log'
import { OAuthService, type CallbackAnswer } from '../../src/main/core/oauth/service'
import { SecretStore } from '../../src/main/core/secrets/store'
import type { ServerConfig } from '../../src/shared/config-schema'
import { apiRequest, assertBuilt, startServe, stopProcess, tempDir, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { followAuthorization, MemorySlots, startOAuthFixture, type OAuthFixture } from '../helpers/oauth-fixture'

let a: OAuthFixture
let oauth: OAuthService
let slots: MemorySlots
const configs = new Map<string, ServerConfig>()
const entry = (name: string): ServerConfig => ({ name, url: a.url, protocol: 'auto', enabled: true, trust: 'manual' })

beforeAll(async () => {
  assertBuilt()
  a = await startOAuthFixture()
  slots = new MemorySlots()
  oauth = new OAuthService({
    slots,
    storedIn: () => 'memory (test)',
    logger: silentLogger(),
    listenerUrl: () => 'http://127.0.0.1:9',
    serverConfig: (name) => configs.get(name) ?? null,
  })
}, 30_000)

useCleanup(async () => {
  await a?.control('release-token').catch(() => undefined)
  await oauth?.settle()
  await a?.stop()
})

/** A sign-in of `server` whose redirect came back and whose code exchange is held at the token endpoint. */
async function heldSignIn(server: string): Promise<{ answer: Promise<CallbackAnswer> }> {
  configs.set(server, entry(server))
  const started = await oauth.start(entry(server))
  const redirect = await followAuthorization(started.authorization_url)
  const before = (await a.state()).counts.token_code
  await a.control('hold-token')
  const answer = oauth.callback(redirect.searchParams)
  await waitFor(async () => (await a.state()).counts.token_code > before, 10_000, 'the code exchange to reach the token endpoint')
  // wrapped: an async function returning the promise itself would wait for it
  return { answer }
}

/** What core applyConfig does when the entry leaves mcp_config.json (whoever removed it). */
function remove(server: string): void {
  const last = configs.get(server) ?? null
  configs.delete(server)
  oauth.endSignIn(server, last)
}

async function lastIssuedRefresh(): Promise<string> {
  const issued = (await a.state()).issued.refresh
  expect(issued.length).toBeGreaterThan(0)
  return issued[issued.length - 1]
}

async function expectRevoked(token: string): Promise<void> {
  await waitFor(async () => (await a.state()).revoked.some((r) => r.token === token), 10_000, 'the tokens of the ended sign-in to be revoked')
}

describe('a sign-in whose code is being exchanged when its server goes', () => {
  it('removed meanwhile: the callback does not say signed in, nothing is stored, the tokens it got are revoked', async () => {
    const { answer } = await heldSignIn('gone')
    remove('gone')
    await a.control('release-token')
    const page = await answer
    expect(page.status, page.message).toBe(400)
    expect(page.message).toMatch(/removed/)
    expect(slots.get('gone')).toBeUndefined()
    await expectRevoked(await lastIssuedRefresh())
    expect(slots.get('gone')).toBeUndefined()
  })

  it('removed and added again (same name, same URL) before the exchange answers: the new server is not signed in', async () => {
    const { answer } = await heldSignIn('again')
    remove('again')
    configs.set('again', entry('again'))
    await a.control('release-token')
    expect((await answer).status).toBe(400)
    expect(oauth.records.read('again', a.url)?.tokens).toBeUndefined()
    expect(oauth.status(entry('again')).status).not.toBe('signed_in')
    await expectRevoked(await lastIssuedRefresh())
  })

  it('signed out meanwhile: it stays signed out', async () => {
    const { answer } = await heldSignIn('out')
    await oauth.signOut(entry('out'))
    await a.control('release-token')
    expect((await answer).status).toBe(400)
    expect(oauth.records.read('out', a.url)?.tokens).toBeUndefined()
    await expectRevoked(await lastIssuedRefresh())
  })

  it('a sign-in that nothing ended still completes (the defense does not break sign-in)', async () => {
    const { answer } = await heldSignIn('stays')
    await a.control('release-token')
    expect((await answer).status).toBe(200)
    expect(oauth.records.read('stays', a.url)?.tokens?.refresh_token).toBe(await lastIssuedRefresh())
  })
})

describe('from outside: what a removal must not carry over or touch', () => {
  let serve: Serve
  let dataDir: string
  let configPath: string
  const record = (server: string): { tokens?: { refresh_token?: string } } | null => {
    const raw = new SecretStore({ dataDir, keychain: null }).namespace('oauth').get(server)
    return raw === undefined ? null : JSON.parse(raw)
  }
  const signIn = async (server: string): Promise<void> => {
    const start = await apiRequest(serve, 'POST', `/api/v1/servers/${server}/auth/login`)
    expect(start.status, start.text).toBe(200)
    const res = await fetch(await followAuthorization(start.json.authorization_url))
    expect(res.status, await res.text()).toBe(200)
    await waitForServerState(serve, server, 'connected', 15_000)
  }

  afterAll(() => stopServe(serve))

  it('a rename (remove "old", add "new" with its URL) does not sign "new" in; a restart keeps the sign-in of a server still configured', async () => {
    dataDir = tempDir('toolgate-attack-oauth-')
    configPath = path.join(dataDir, 'mcp_config.json')
    // lifecycle "always": each server connects at once, as the test waits for
    writeJson(configPath, { mcpServers: { old: { url: a.url, quarantined: false, lifecycle: 'always' } } })
    serve = await startServe({ configPath, dataDir, env: { TOOLGATE_SECRET_STORE: 'file' } })
    await signIn('old')
    const held = record('old')?.tokens?.refresh_token
    expect(held).toBeTruthy()
    writeJson(configPath, { mcpServers: { new: { url: a.url, quarantined: false, lifecycle: 'always' } } })
    await waitFor(async () => (await apiRequest(serve, 'GET', '/api/v1/servers/new')).status === 200, 10_000, 'the server "new" to be added')
    await expectRevoked(held as string)
    expect(record('old')).toBeNull()
    expect(record('new')?.tokens).toBeUndefined()
    expect((await apiRequest(serve, 'GET', '/api/v1/servers/new/auth')).json.status).not.toBe('signed_in')
    // the start-up clean-up ends only the sign-ins of servers the config no longer has
    await signIn('new')
    const kept = record('new')?.tokens?.refresh_token
    expect(kept).toBeTruthy()
    await stopProcess(serve.child)
    serve = await startServe({ configPath, dataDir, env: { TOOLGATE_SECRET_STORE: 'file' } })
    await waitForServerState(serve, 'new', 'connected', 15_000)
    expect(record('new')?.tokens?.refresh_token).toBe(kept)
    expect((await a.state()).revoked.map((r) => r.token)).not.toContain(kept)
  }, 60_000)
})
