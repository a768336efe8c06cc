// How a 2025 session's POST is answered, against a real `toolgate serve` and raw HTTP: a call whose
// only message is its result comes back as one plain JSON body with its Content-Length (a client
// reads it whole, without an SSE parser or chunked encoding); a call that gets messages before its
// result (the upstream's progress, asked for with a progressToken) comes back as an SSE stream with
// them in order. Either way, the call's activity record is on disk before the first byte of the
// answer reaches the agent, and what the upstream put in it is masked in both framings.
import http from 'node:http'
import path from 'node:path'
import fs from 'node:fs'
import { createHmac, randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, startServe, tempDir, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { activityFiles } from '../helpers/notes-world'
import { ARGS_KEY_FILE } from '../../src/main/core/state/data-keys'

const LEAKY = path.join(ROOT, 'test/fixtures/servers/leaky-server.mjs')
const TOKEN = `lk_${randomBytes(16).toString('hex')}`

interface Answer {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
  /** the activity files as they were when the answer's first bytes (status and headers) arrived */
  activityAtFirstByte: string
}

useCleanup()

describe('the answer to a call over a 2025 session', () => {
  let serve: Serve
  let session = ''

  /** One POST to /mcp; the activity files are read the moment the answer starts to arrive. */
  const post = (body: unknown, headers: Record<string, string> = {}): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const u = new URL(`${serve.url}/mcp`)
      const req = http.request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: 'POST',
          agent: false,
          headers: {
            authorization: `Bearer ${serve.key}`,
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' } : {}),
            ...headers,
          },
        },
        (res) => {
          const activityAtFirstByte = activityFiles(serve.dataDir)
          let text = ''
          res.setEncoding('utf8')
          res.on('data', (d: string) => (text += d))
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, activityAtFirstByte }))
          res.on('error', reject)
        },
      )
      req.on('error', reject)
      req.end(JSON.stringify(body))
    })

  /** The SSE `message` events of a body, parsed. */
  const events = (body: string): Array<{ method?: string; id?: number; params?: { message?: string }; result?: unknown }> =>
    body
      .split('\n\n')
      .filter((e) => e.trim() !== '')
      .map((e) => {
        const lines = e.split('\n')
        expect(lines).toContain('event: message')
        return JSON.parse(lines.find((l) => l.startsWith('data: '))?.slice(6) ?? 'null') as { method?: string; id?: number }
      })

  /** The call records of leaky:leak whose argument preview holds `note`. */
  const callLines = (activity: string, note: string): Array<{ outcome: string }> =>
    activity
      .split('\n')
      .filter((l) => l.includes('"kind":"call"') && l.includes('leaky:leak') && l.includes(note))
      .map((l) => JSON.parse(l) as { outcome: string })

  beforeAll(async () => {
    const tmp = tempDir('toolgate-call-framing-')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { leaky: { command: process.execPath, args: [LEAKY], env: { LEAK_TOKEN: TOKEN }, quarantined: false, sandbox: false, lifecycle: 'always' } },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'leaky', 'connected')
    const init = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw-framing', version: '1' } },
    })
    // the initialize answer is plain JSON too, and carries the session id
    expect(init.status).toBe(200)
    expect(init.headers['content-type']).toBe('application/json')
    session = String(init.headers['mcp-session-id'])
    expect(session).toMatch(/^[0-9a-f-]{36}$/)
    expect((JSON.parse(init.body) as { result: { protocolVersion: string } }).result.protocolVersion).toBe('2025-11-25')
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202)
  }, 60_000)

  afterAll(() => stopServe(serve))

  it('a call answered by its result alone: one JSON body with its length, the record written before it', async () => {
    const a = await post({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'call_tool_read', arguments: { name: 'leaky:leak', args: { note: 'plain-1' } } },
    })
    expect(a.status).toBe(200)
    expect(a.headers['content-type']).toBe('application/json')
    expect(a.headers['transfer-encoding']).toBeUndefined()
    expect(Number(a.headers['content-length'])).toBe(Buffer.byteLength(a.body))
    expect(a.headers['mcp-session-id']).toBe(session)
    const answer = JSON.parse(a.body) as { id: number; result: { content: Array<{ text?: string }> } }
    expect(answer.id).toBe(2)
    expect(answer.result.content[0].text).toBe('your token is ***')
    expect(a.body).not.toContain(TOKEN)
    // the agent holds nothing of the result before its record is on disk
    const records = callLines(a.activityAtFirstByte, 'plain-1')
    expect(records).toHaveLength(1)
    expect(records[0].outcome).toBe('ok')
    expect(a.activityAtFirstByte).not.toContain(TOKEN)
  })

  it('the record of a call that went through: masked preview and keyed digest, made while the upstream worked', async () => {
    const args = { note: `secret-1 ${TOKEN}` }
    const a = await post({ jsonrpc: '2.0', id: 6, method: 'tools/call', params: { name: 'call_tool_read', arguments: { name: 'leaky:leak', args } } })
    expect(a.headers['content-type']).toBe('application/json')
    const [record] = a.activityAtFirstByte
      .split('\n')
      .filter((l) => l.includes('secret-1'))
      .map((l) => JSON.parse(l) as { outcome: string; args_preview: string; args_hmac: string; result_bytes: number })
    expect(record).toMatchObject({ outcome: 'ok', args_preview: '{"note":"secret-1 ***"}' })
    expect(record.result_bytes).toBeGreaterThan(100)
    // HMAC-SHA256 of the canonical JSON, keyed by <data-dir>/args.key: computed here independently
    const key = Buffer.from(fs.readFileSync(path.join(serve.dataDir, ARGS_KEY_FILE), 'utf8').trim(), 'base64')
    expect(record.args_hmac).toBe(createHmac('sha256', key).update(JSON.stringify(args)).digest('hex'))
    expect(a.activityAtFirstByte).not.toContain(TOKEN)
  })

  it('a call with messages before its result: an SSE stream, progress first, the record written before it', async () => {
    const a = await post({
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: { name: 'call_tool_read', arguments: { name: 'leaky:leak', args: { note: 'progress-1' } }, _meta: { progressToken: 'p-1' } },
    })
    expect(a.status).toBe(200)
    expect(a.headers['content-type']).toBe('text/event-stream')
    expect(a.headers['mcp-session-id']).toBe(session)
    const got = events(a.body)
    expect(got.map((m) => m.method ?? m.id)).toEqual(['notifications/progress', 3])
    expect(got[0].params?.message).toBe('using ***')
    expect(a.body).not.toContain(TOKEN)
    // the progress came first, but the result's record still precedes the result: it is written
    // before the last event, and the stream's first bytes held only the progress
    const final = await post({ jsonrpc: '2.0', id: 4, method: 'ping' })
    expect(final.headers['content-type']).toBe('application/json')
    expect(callLines(final.activityAtFirstByte, 'progress-1')).toHaveLength(1)
  })

  it('a refused call: its error result goes as JSON too, recorded before it', async () => {
    const a = await post({
      jsonrpc: '2.0',
      id: 5,
      method: 'tools/call',
      params: { name: 'call_tool_read', arguments: { name: 'leaky:no_such_tool', args: { note: 'wrong-1' } } },
    })
    expect(a.headers['content-type']).toBe('application/json')
    const answer = JSON.parse(a.body) as { id: number; result: { isError: boolean } }
    expect(answer.id).toBe(5)
    expect(answer.result.isError, a.body).toBe(true)
    const records = a.activityAtFirstByte
      .split('\n')
      .filter((l) => l.includes('wrong-1'))
      .map((l) => JSON.parse(l) as { outcome: string; tool: string })
    expect(records).toEqual([expect.objectContaining({ outcome: 'error', tool: 'leaky:no_such_tool' })])
  })
})
