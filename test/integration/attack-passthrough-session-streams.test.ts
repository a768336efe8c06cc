// Attacks by a second agent on another agent's 2025 session over HTTP (the own session transport,
// src/main/core/http/session-transport.ts), from outside with raw HTTP: opening the session's GET
// stream (where its list_changed, resource updates and log messages go), answering a request the
// session's server sent to its client (an elicitation meant for that client's person), and ending
// it. Each is refused 403 for any credential but the one that opened the session; the owner keeps
// one GET stream (a second is 409) and its session.
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rawRequest, startServe, tempDir, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'

useCleanup()

const JSON_ACCEPT = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-11-25',
}

describe("attack: a second agent reaches into another agent's 2025 session", () => {
  let serve: Serve
  let owner: string
  let other: string

  beforeAll(async () => {
    const tmp = tempDir('toolgate-attack-session-streams-')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {},
      agents: [
        { name: 'owner', servers: '*', permissions: ['read'] },
        { name: 'other', servers: '*', permissions: ['read'] },
      ],
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    owner = (await serve.api<{ token: string }>('POST', '/api/v1/agents/owner/token')).json.token
    other = (await serve.api<{ token: string }>('POST', '/api/v1/agents/other/token')).json.token
  }, 60_000)

  afterAll(() => stopServe(serve))

  /** Opens the session's GET stream with these headers: its status, and a close for a stream that stays open. */
  async function openGet(headers: Record<string, string>): Promise<{ status: number; close: () => void }> {
    const abort = new AbortController()
    const r = await fetch(`${serve.url}/mcp`, {
      headers: {
        accept: 'text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        ...headers,
      },
      signal: abort.signal,
    })
    if (r.status !== 200) await r.text()
    return { status: r.status, close: () => abort.abort() }
  }

  it('another credential opens no GET stream of it, answers none of its requests and ends nothing', async () => {
    const init = await rawRequest(`${serve.url}/mcp`, {
      method: 'POST',
      headers: { ...JSON_ACCEPT, authorization: `Bearer ${owner}` },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-11-25',
          capabilities: { elicitation: {} },
          clientInfo: { name: 'owner', version: '1' },
        },
      }),
    })
    const sid = String(init.headers['mcp-session-id'])
    expect(init.status, init.body).toBe(200)
    const initialized = await rawRequest(`${serve.url}/mcp`, {
      method: 'POST',
      headers: {
        ...JSON_ACCEPT,
        authorization: `Bearer ${owner}`,
        'mcp-session-id': sid,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/initialized',
      }),
    })
    expect(initialized.status).toBe(202)
    const strangers = [
      ['the other agent', { authorization: `Bearer ${other}` }],
      ['the admin key as the other agent', { authorization: `Bearer ${serve.key}`, 'x-toolgate-agent': 'other' }],
      ['the admin key as itself', { authorization: `Bearer ${serve.key}` }],
    ] as const
    const tryAll = async (): Promise<void> => {
      for (const [who, auth] of strangers) {
        const get = await openGet({ ...auth, 'mcp-session-id': sid })
        get.close()
        expect(get.status, `${who}: GET stream`).toBe(403)
        // an answer to a request the session's server sent its client (an elicitation's id is a small number)
        for (const id of [0, 1, 2]) {
          const answer = await rawRequest(`${serve.url}/mcp`, {
            method: 'POST',
            headers: { ...JSON_ACCEPT, ...auth, 'mcp-session-id': sid },
            body: JSON.stringify({
              jsonrpc: '2.0',
              id,
              result: { action: 'accept', content: { ok: true } },
            }),
          })
          expect(answer.status, `${who}: answer ${id}`).toBe(403)
        }
        const end = await rawRequest(`${serve.url}/mcp`, {
          method: 'DELETE',
          headers: {
            ...auth,
            'mcp-protocol-version': '2025-11-25',
            'mcp-session-id': sid,
          },
        })
        expect(end.status, `${who}: DELETE`).toBe(403)
      }
    }
    await tryAll()
    // the owner's GET stream: one at a time, and strangers still get none of it
    const mine = await openGet({
      authorization: `Bearer ${owner}`,
      'mcp-session-id': sid,
    })
    expect(mine.status).toBe(200)
    const second = await openGet({
      authorization: `Bearer ${owner}`,
      'mcp-session-id': sid,
    })
    expect(second.status).toBe(409)
    await tryAll()
    mine.close()
    // the session still serves its owner
    const list = await rawRequest(`${serve.url}/mcp`, {
      method: 'POST',
      headers: {
        ...JSON_ACCEPT,
        authorization: `Bearer ${owner}`,
        'mcp-session-id': sid,
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/list',
        params: {},
      }),
    })
    expect(list.status, list.body).toBe(200)
    expect(list.body).toContain('retrieve_tools')
  })
})
