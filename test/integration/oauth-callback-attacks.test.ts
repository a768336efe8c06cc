// Attacks on the sign-in's redirect (/oauth/callback), against real authorization servers (two
// OAuth fixtures): a forged state, a replayed redirect, a code of one server delivered with the
// state of another (mix-up), a wrong or missing `iss` (RFC 9207), a URL changed mid-sign-in, a
// refusal by the user. None of them gets a token; the real sign-in still works afterwards.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { randomBytes } from 'node:crypto'
import { silentLogger } from '../../src/main/core/log'
import { OAuthService } from '../../src/main/core/oauth/service'
import type { ServerConfig } from '../../src/shared/config-schema'
import { cleanupProcesses } from '../helpers/cli'
import { followAuthorization, MemorySlots, startOAuthFixture, type OAuthFixture } from '../helpers/oauth-fixture'

let a: OAuthFixture
let b: OAuthFixture
let oauth: OAuthService
const configs = new Map<string, ServerConfig>()
const entry = (name: string, url: string): ServerConfig => ({ name, url, protocol: 'auto', enabled: true, trust: 'manual' })

beforeAll(async () => {
  ;[a, b] = await Promise.all([startOAuthFixture(), startOAuthFixture()])
  configs.set('a', entry('a', a.url))
  configs.set('b', entry('b', b.url))
  oauth = new OAuthService({
    slots: new MemorySlots(),
    storedIn: () => 'memory (test)',
    logger: silentLogger(),
    listenerUrl: () => 'http://127.0.0.1:9',
    serverConfig: (name) => configs.get(name) ?? null,
  })
})

afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()])
  await cleanupProcesses()
})

const cfg = (name: string) => configs.get(name) as ServerConfig
const tokensOf = (name: string) => oauth.records.read(name, cfg(name).url as string)?.tokens

describe('the sign-in callback refuses', () => {
  it('a forged state, without exchanging anything', async () => {
    const started = await oauth.start(cfg('a'))
    const real = await followAuthorization(started.authorization_url)
    const forged = new URLSearchParams(real.searchParams)
    forged.set('state', randomBytes(32).toString('base64url'))
    const before = (await a.state()).counts.token_code
    expect(await oauth.callback(forged)).toMatchObject({ status: 400, message: expect.stringMatching(/unknown, already used or expired/) })
    expect((await a.state()).counts.token_code).toBe(before)
    expect(tokensOf('a')).toBeUndefined()
    // the real redirect still works: the forged one did not consume it
    expect(await oauth.callback(real.searchParams)).toMatchObject({ status: 200 })
    expect(tokensOf('a')).toBeDefined()
  })

  it('a replayed redirect (the state is used once)', async () => {
    const started = await oauth.start(cfg('a'))
    const redirect = await followAuthorization(started.authorization_url)
    expect((await oauth.callback(redirect.searchParams)).status).toBe(200)
    const exchanged = (await a.state()).counts.token_code
    const again = await oauth.callback(redirect.searchParams)
    expect(again).toMatchObject({ status: 400, message: expect.stringMatching(/already used/) })
    expect((await a.state()).counts.token_code).toBe(exchanged)
  })

  it("server b's code with server a's state (mix-up): the answer names another issuer and is refused", async () => {
    const startA = await oauth.start(cfg('a'))
    const startB = await oauth.start(cfg('b'))
    const redirectB = await followAuthorization(startB.authorization_url)
    const mixed = new URLSearchParams(redirectB.searchParams)
    mixed.set('state', new URL(startA.authorization_url).searchParams.get('state') as string)
    const before = [(await a.state()).counts.token_code, (await b.state()).counts.token_code]
    const answer = await oauth.callback(mixed)
    expect(answer).toMatchObject({ status: 400, message: expect.stringMatching(/another authorization server/) })
    // no token request anywhere: not to a (the wrong server for this code), not to b
    expect([(await a.state()).counts.token_code, (await b.state()).counts.token_code]).toEqual(before)
    // a's state was consumed by the attempt: a's sign-in must start again
    expect(oauth.status(cfg('a')).status).not.toBe('signing_in')
  })

  it('a redirect without the iss its authorization server promises (RFC 9207)', async () => {
    const started = await oauth.start(cfg('b'))
    const redirect = await followAuthorization(started.authorization_url)
    const stripped = new URLSearchParams(redirect.searchParams)
    stripped.delete('iss')
    expect(await oauth.callback(stripped)).toMatchObject({ status: 400, message: expect.stringMatching(/lacks the iss/) })
    expect(tokensOf('b')).toBeUndefined()
  })

  it("a redirect for a server whose URL changed during the sign-in (the tokens would go to the new URL's server)", async () => {
    const started = await oauth.start(cfg('b'))
    const redirect = await followAuthorization(started.authorization_url)
    configs.set('b', entry('b', a.url)) // the operator (or an attacker with the config) points b elsewhere
    try {
      expect(await oauth.callback(redirect.searchParams)).toMatchObject({ status: 400, message: expect.stringMatching(/URL changed/) })
    } finally {
      configs.set('b', entry('b', b.url))
    }
    expect(tokensOf('b')).toBeUndefined()
  })

  it('a refusal at the authorization server ends the sign-in with its reason', async () => {
    await b.control('deny')
    const started = await oauth.start(cfg('b'))
    const redirect = await followAuthorization(started.authorization_url)
    expect(redirect.searchParams.get('error')).toBe('access_denied')
    expect(await oauth.callback(redirect.searchParams)).toMatchObject({ status: 400, message: expect.stringMatching(/access_denied \(the user said no\)/) })
    await new Promise((r) => setImmediate(r))
    expect(oauth.status(cfg('b'))).toMatchObject({ status: 'not_signed_in', last_attempt: { ok: false, message: expect.stringMatching(/access_denied/) } })
  })

  it('tokens stored for one URL are never handed out for another', async () => {
    expect(tokensOf('a')).toBeDefined()
    expect(oauth.records.read('a', b.url)).toBeNull()
    await expect(Promise.resolve(oauth.sessionFor(entry('a', b.url))?.provider.tokens())).resolves.toBeUndefined()
  })
})
