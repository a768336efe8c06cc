// The MCP protocol passed through whole: progress notifications of an upstream reach
// the agent over stdio, over HTTP (the answer streams as SSE) and through the stdio bridge; a
// client without a key gets 401 with WWW-Authenticate: Bearer, /.well-known/* answers 404 JSON;
// one long-lived session does not grow the heap (SDK 1.32.2 leaked one entry per JSON answer).
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ROOT,
  assertBuilt,
  everythingEntry,
  rawRequest,
  readInstance,
  startServe,
  tempDir,
  waitFor,
  waitForServerState,
  writeJson,
  type Serve,
} from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, connectStdio, textOf, waitForUpstreams, type McpHandle } from '../helpers/mcp-client'

const GC_HOOK = path.join(ROOT, 'bench/lib/gc-hook.cjs')

useCleanup()

/**
 * Calls the long-running operation (3 steps) with a progress token and returns the progress
 * notifications that reached the client's transport. (Read at the transport: the SDK client's
 * `onprogress` misses a last notification that arrives in the same chunk as the result, because
 * it handles notifications a microtask later than responses.)
 */
async function progressOf(c: McpHandle): Promise<Array<{ progress: number; total?: number }>> {
  const seen: Array<{ progress: number; total?: number }> = []
  const transport = c.client.transport as NonNullable<typeof c.client.transport>
  const inner = transport.onmessage
  transport.onmessage = (m, extra) => {
    if ('method' in m && m.method === 'notifications/progress') {
      const p = m.params as { progress: number; total?: number }
      seen.push({ progress: p.progress, total: p.total })
    }
    inner?.(m, extra)
  }
  const r = await c.client
    .callTool({ name: 'call_tool_read', arguments: { name: 'everything:trigger-long-running-operation', args: { duration: 0.6, steps: 3 } } }, undefined, {
      timeout: 30_000,
      onprogress: () => {},
    })
    .finally(() => (transport.onmessage = inner))
  expect(r.isError, JSON.stringify(r)).toBeFalsy()
  expect(textOf(r as never)).toMatch(/Long running operation completed/)
  return seen
}

/** Heap used after two full GCs in a process started with --expose-gc --require gc-hook.cjs. */
async function heapOf(pid: number, memFile: string): Promise<number> {
  const before = Date.now()
  process.kill(pid, 'SIGUSR2')
  const m = await waitFor(
    () => {
      try {
        const j = JSON.parse(fs.readFileSync(memFile, 'utf8')) as { heapUsed: number; at: number }
        return j.at >= before ? j : undefined
      } catch {
        return undefined
      }
    },
    15_000,
    `a memory reading from pid ${pid}`,
  )
  return m.heapUsed
}

describe('the MCP protocol through Toolgate', () => {
  let tmp: string
  let serve: Serve
  let configPath: string
  let dataDir: string
  const memServe = () => path.join(tmp, 'mem-serve.json')
  const clients: McpHandle[] = []

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-proto-')
    dataDir = path.join(tmp, 'data')
    configPath = writeJson(path.join(tmp, 'mcp_config.json'), { mcpServers: { everything: everythingEntry({ quarantined: false }) } })
    serve = await startServe({
      configPath,
      dataDir,
      key: null,
      nodeArgs: ['--expose-gc', '--require', GC_HOOK],
      env: { TOOLGATE_BENCH_MEM_FILE: memServe() },
    })
    await waitForServerState(serve, 'everything', 'connected')
  }, 90_000)

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {})
    await stopServe(serve)
  })

  it('a client without a key gets 401 with WWW-Authenticate: Bearer, on /mcp and on the control API', async () => {
    for (const [method, p] of [
      ['POST', '/mcp'],
      ['GET', '/api/v1/status'],
    ]) {
      const r = await rawRequest(serve.url + p, {
        method,
        headers: { host: `127.0.0.1:${serve.port}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: method === 'POST' ? '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}' : undefined,
      })
      expect(r.status, p).toBe(401)
      expect(r.headers['www-authenticate'], p).toMatch(/^Bearer\b/)
      expect(JSON.parse(r.body).error.code).toBe('unauthorized')
    }
  })

  it('/.well-known/* answers 404 JSON, not the web UI', async () => {
    for (const p of [
      '/.well-known/oauth-protected-resource',
      '/.well-known/oauth-authorization-server',
      '/.well-known/openid-configuration',
      '/.well-known/x',
    ]) {
      const r = await rawRequest(serve.url + p, { headers: { host: `127.0.0.1:${serve.port}` } })
      expect(r.status, p).toBe(404)
      expect(r.headers['content-type'], p).toMatch(/application\/json/)
      expect(JSON.parse(r.body).error.code, p).toBe('not_found')
    }
  })

  it('progress notifications reach an HTTP client (the answer streams as SSE)', async () => {
    const c = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
    clients.push(c)
    const seen = await progressOf(c)
    expect(seen).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ])
  })

  it('progress notifications reach a client of a bridged `toolgate stdio`', async () => {
    const c = await connectStdio(['--config', configPath, '--data-dir', dataDir])
    clients.push(c)
    expect(readInstance(dataDir)?.pid).toBe(serve.pid)
    const seen = await progressOf(c)
    expect(seen.map((s) => s.progress)).toEqual([1, 2, 3])
  })

  it('a call without a progress token gets no progress notifications, and the plain answer', async () => {
    const c = clients[0]
    const notes: unknown[] = []
    c.client.fallbackNotificationHandler = async (n) => void notes.push(n)
    const r = await c.call('call_tool_read', { name: 'everything:trigger-long-running-operation', args: { duration: 0.3, steps: 3 } })
    expect(textOf(r)).toMatch(/completed/)
    expect(notes).toEqual([])
  })

  it('the heap of the owner stays flat over 3,000 requests on one HTTP session', async () => {
    const c = clients[0]
    const burst = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i++) {
        if (i % 2) await c.call('call_tool_read', { name: 'everything:echo', args: { message: `m${i}` } })
        else await c.call('retrieve_tools', { query: 'echo a message' })
      }
    }
    await burst(300)
    const h0 = await heapOf(serve.pid, memServe())
    await burst(3000)
    const h1 = await heapOf(serve.pid, memServe())
    expect((h1 - h0) / 1e6).toBeLessThan(4)
  }, 240_000)

  it('the heap of the owner and of the bridge stay flat over 3,000 requests through the bridge', async () => {
    const memBridge = path.join(tmp, 'mem-bridge.json')
    const c = await connectStdio(['--config', configPath, '--data-dir', dataDir], { TOOLGATE_BENCH_MEM_FILE: memBridge }, ['--expose-gc', '--require', GC_HOOK])
    clients.push(c)
    await waitForUpstreams(c, ['everything'])
    const burst = async (n: number): Promise<void> => {
      for (let i = 0; i < n; i++) {
        if (i % 2) await c.call('call_tool_read', { name: 'everything:echo', args: { message: `m${i}` } })
        else await c.call('retrieve_tools', { query: 'echo a message' })
      }
    }
    await burst(300)
    const o0 = await heapOf(serve.pid, memServe())
    const b0 = await heapOf(c.pid as number, memBridge)
    await burst(3000)
    const o1 = await heapOf(serve.pid, memServe())
    const b1 = await heapOf(c.pid as number, memBridge)
    expect((o1 - o0) / 1e6).toBeLessThan(4)
    expect((b1 - b0) / 1e6).toBeLessThan(4)
  }, 240_000)
})

describe('progress through an embedded `toolgate stdio` owner', () => {
  it('reaches the stdio client', async () => {
    const tmp = tempDir('toolgate-proto-stdio-')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), { mcpServers: { everything: everythingEntry({ quarantined: false }) } })
    const c = await connectStdio(['--config', configPath, '--data-dir', path.join(tmp, 'data')])
    try {
      expect(readInstance(path.join(tmp, 'data'))?.pid).toBe(c.pid)
      await waitForUpstreams(c, ['everything'])
      const seen = await progressOf(c)
      expect(seen.map((s) => s.progress)).toEqual([1, 2, 3])
    } finally {
      await c.close()
    }
  }, 90_000)
})
