// The fetch every OAuth exchange of an upstream goes through (src/main/core/oauth/fetch.ts): https
// anywhere, plain http only on this machine, and nothing on this machine for a server that is not
// on it, whatever its metadata or challenge names (a remote server cannot point Toolgate at local
// services); refused token requests (refresh, client credentials) are reported with the server's reason.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { InsecureUrlError, LocalTargetError, oauthFetch, type TokenFailure } from '../../src/main/core/oauth/fetch'
import { refusal } from '../../src/main/core/oauth/errors'

let local: http.Server
let base: string
let hits = 0

beforeAll(async () => {
  local = http.createServer((req, res) => {
    hits++
    if (req.url === '/token') {
      res.writeHead(400, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: 'invalid_client', error_description: 'unknown client' }))
      return
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end('{}')
  })
  await new Promise<void>((r) => local.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(local.address() as AddressInfo).port}`
})

afterAll(() => new Promise<void>((r) => local.close(() => r())))

describe('the OAuth fetch of an upstream', () => {
  it('refuses anything on this machine for a server that is not on it, before sending', async () => {
    const f = oauthFetch(fetch, { serverUrl: 'https://mcp.example.com/mcp' })
    const before = hits
    for (const target of [`${base}/.well-known/oauth-protected-resource`, 'http://localhost:1/token', 'https://127.0.0.1/x', 'https://[::1]/x']) {
      const err = await f(target).catch((e: unknown) => e)
      expect(err, target).toBeInstanceOf(LocalTargetError)
      expect(refusal(err), target).toBe(err) // no retry helps: the server goes to state error
      expect((err as Error).message).toMatch(/on this machine for server https:\/\/mcp\.example\.com, which is not on it/)
    }
    expect(hits).toBe(before)
  })

  it('lets a server on this machine use OAuth on this machine', async () => {
    const f = oauthFetch(fetch, { serverUrl: `${base}/mcp` })
    expect((await f(`${base}/.well-known/oauth-authorization-server`)).status).toBe(200)
  })

  it('refuses plain http to another machine, for any server', async () => {
    const f = oauthFetch(fetch, { serverUrl: `${base}/mcp` })
    const err = await f('http://auth.example.com/token').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(InsecureUrlError)
  })

  it('reports a refused client-credentials grant with the server reason', async () => {
    const failures: TokenFailure[] = []
    const f = oauthFetch(fetch, { serverUrl: `${base}/mcp`, onTokenFailure: (x) => failures.push(x) })
    const body = new URLSearchParams({ grant_type: 'client_credentials', scope: 'read' })
    const res = await f(`${base}/token`, { method: 'POST', body })
    expect(res.status).toBe(400)
    expect(failures).toEqual([{ grant: 'client_credentials', text: 'invalid_client: unknown client', refused: true }])
    await f(`${base}/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'authorization_code', code: 'x' }) })
    expect(failures).toHaveLength(1) // a code exchange is the sign-in's business, not reported here
  })
})
