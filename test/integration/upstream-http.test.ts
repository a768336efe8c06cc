// HTTP upstream edge cases against a hand-written Streamable HTTP server (JSON responses, no
// standalone event stream): oversized answers are refused without reading them whole.
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentLogger } from '../../src/main/core/log'
import { Upstream, UpstreamCallError } from '../../src/main/core/upstream'
import { MESSAGE_FLOOR_BYTES } from '../../src/main/core/upstream/connection'
import { waitFor } from '../helpers/wait'

interface RpcMessage {
  jsonrpc: '2.0'
  id?: number | string
  method?: string
  params?: { name?: string; arguments?: { n?: number; chunked?: boolean; text?: string } }
}

let server: http.Server
let url: string
const seenHeaders: http.IncomingHttpHeaders[] = []

function reply(res: http.ServerResponse, id: RpcMessage['id'], result: unknown, chunked = false): void {
  const body = JSON.stringify({ jsonrpc: '2.0', id, result })
  res.setHeader('content-type', 'application/json')
  res.setHeader('mcp-session-id', 'session-1')
  if (!chunked) return void res.end(body)
  // no content-length: the size is only known while reading
  res.setHeader('transfer-encoding', 'chunked')
  for (let i = 0; i < body.length; i += 65536) res.write(body.slice(i, i + 65536))
  res.end()
}

beforeAll(async () => {
  server = http.createServer((req, res) => {
    seenHeaders.push(req.headers)
    if (req.method !== 'POST') {
      res.statusCode = req.method === 'DELETE' ? 200 : 405
      return void res.end()
    }
    let raw = ''
    req.on('data', (c: Buffer) => (raw += c.toString()))
    req.on('end', () => {
      const msg = JSON.parse(raw) as RpcMessage
      if (msg.id === undefined) {
        res.statusCode = 202
        return void res.end()
      }
      switch (msg.method) {
        case 'initialize':
          return reply(res, msg.id, { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'json', version: '1' } })
        case 'ping':
          return reply(res, msg.id, {})
        case 'tools/list':
          return reply(res, msg.id, {
            tools: [
              { name: 'big', inputSchema: { type: 'object' } },
              { name: 'echo', inputSchema: { type: 'object' } },
            ],
          })
        case 'tools/call': {
          const args = msg.params?.arguments ?? {}
          const text = msg.params?.name === 'big' ? 'x'.repeat(args.n ?? 0) : `echo: ${args.text ?? ''}`
          return reply(res, msg.id, { content: [{ type: 'text', text }] }, args.chunked === true)
        }
        default:
          res.setHeader('content-type', 'application/json')
          return void res.end(JSON.stringify({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'no such method' } }))
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})

describe('HTTP upstream limits', () => {
  it('refuses oversized answers (declared or streamed) and stays usable; sends config headers', async () => {
    const up = new Upstream(
      { name: 'json', url, protocol: 'http', enabled: true, trust: 'manual', headers: { 'X-Api-Key': 'k-123' } },
      { logger: silentLogger(), limits: { maxTools: 10, maxDescriptionChars: 100, maxResultBytes: 100_000 } },
    )
    try {
      up.start()
      await waitFor(() => up.state === 'connected', 10_000, 'connected')
      expect(up.tools?.map((t) => t.name)).toEqual(['big', 'echo'])
      expect(seenHeaders.every((h) => h['x-api-key'] === 'k-123')).toBe(true)

      const tooBig = (await up.callTool('big', { n: 200_000 }, { timeoutMs: 5000 }).catch((e: unknown) => e)) as UpstreamCallError
      expect(tooBig.code).toBe('result_too_large')

      for (const chunked of [false, true]) {
        const huge = (await up
          .callTool('big', { n: MESSAGE_FLOOR_BYTES + 1024 * 1024, chunked }, { timeoutMs: 30_000 })
          .catch((e: unknown) => e)) as UpstreamCallError
        expect(huge).toBeInstanceOf(UpstreamCallError)
        expect(huge.code).toBe('transport_error')
        expect(huge.message).toMatch(new RegExp(`^call to json:big failed: the upstream's response is over ${MESSAGE_FLOOR_BYTES} bytes`))
      }

      expect(up.state).toBe('connected')
      const ok = await up.callTool('echo', { text: 'still here' }, { timeoutMs: 5000 })
      expect(ok.content).toEqual([{ type: 'text', text: 'echo: still here' }])
    } finally {
      await up.stop()
    }
  })
})
