// Servers and clients of both eras behind one Toolgate at once. A server written
// with the SDK v2 server package (test/fixtures/servers/v2-server.mjs: 2026-07-28) and the
// reference server-everything (SDK 1.x: 2025-11-25), over stdio and over HTTP, behind one
// `toolgate serve`, used at the same time by a 2025 client (SDK 1.x) and a 2026-07-28 client
// (SDK 2.x). Each server view says which protocol it speaks.
import { spawn } from 'node:child_process'
import net from 'node:net'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EVERYTHING, ROOT, assertBuilt, freePort, startServe, tempDir, track, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, jsonOf, textOf } from '../helpers/mcp-client'
import { connectHttpV2 } from '../helpers/mcp-v2-client'

const V2 = path.join(ROOT, 'test/fixtures/servers/v2-server.mjs')

useCleanup()

async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.destroy()
      resolve(true)
    })
    s.once('error', () => resolve(false))
  })
}

describe('servers and clients of both eras behind one Toolgate', () => {
  let serve: Serve

  beforeAll(async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-mixed-')
    const [v2Port, oldPort] = [await freePort(), await freePort()]
    const v2Http = spawn(process.execPath, [V2, 'http', String(v2Port)], { stdio: ['ignore', 'ignore', 'ignore'] })
    const oldHttp = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
      env: { ...process.env, PORT: String(oldPort) },
      stdio: ['ignore', 'ignore', 'ignore'],
    })
    track(v2Http.pid)
    track(oldHttp.pid)
    await waitFor(async () => (await listening(v2Port)) && (await listening(oldPort)), 20_000, 'both HTTP servers listening')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {
        new_stdio: { command: process.execPath, args: [V2], quarantined: false },
        old_stdio: { command: process.execPath, args: [EVERYTHING, 'stdio'], quarantined: false },
        new_http: { url: `http://127.0.0.1:${v2Port}/mcp`, quarantined: false },
        old_http: { url: `http://127.0.0.1:${oldPort}/mcp`, quarantined: false },
      },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    for (const s of ['new_stdio', 'old_stdio', 'new_http', 'old_http']) await waitForServerState(serve, s, 'connected', 40_000)
  }, 90_000)

  afterAll(() => stopServe(serve))

  it('each server view says the protocol the server speaks: the API and upstream_servers', async () => {
    const servers = (await serve.api<{ servers: Array<{ name: string; protocol_version: string | null }> }>('GET', '/api/v1/servers')).json.servers
    const by = Object.fromEntries(servers.map((s) => [s.name, s.protocol_version]))
    expect(by).toEqual({ new_stdio: '2026-07-28', new_http: '2026-07-28', old_stdio: '2025-11-25', old_http: '2025-11-25' })
    const agent = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` }, 'modern')
    const listed = jsonOf<{ servers: Array<{ name: string; protocol_version: string }> }>(await agent.call('upstream_servers', { operation: 'list' })).servers
    expect(Object.fromEntries(listed.map((s) => [s.name, s.protocol_version]))).toEqual(by)
    await agent.close()
  })

  it('a 2025 client and a 2026-07-28 client, at the same time, call servers of both eras over stdio and HTTP', async () => {
    const old = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
    const modern = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` }, 'modern')
    const calls = (c: typeof old | typeof modern, who: string) =>
      Promise.all([
        c.call('call_tool_read', { name: 'new_stdio:echo', args: { text: who } }),
        c.call('call_tool_read', { name: 'new_http:echo', args: { text: who } }),
        c.call('call_tool_destructive', { name: 'old_stdio:echo', args: { message: who } }),
        c.call('call_tool_destructive', { name: 'old_http:echo', args: { message: who } }),
      ])
    const [a, b] = await Promise.all([calls(old, 'old client'), calls(modern, 'new client')])
    expect(a.map(textOf)).toEqual(['echo (modern): old client', 'echo (modern): old client', 'Echo: old client', 'Echo: old client'])
    expect(b.map(textOf)).toEqual(['echo (modern): new client', 'echo (modern): new client', 'Echo: new client', 'Echo: new client'])
    // the same search, the same answer, whichever era asks
    const q = { query: 'echo the text back' }
    expect(textOf(await modern.call('retrieve_tools', q))).toBe(textOf(await old.call('retrieve_tools', q)))
    await old.close()
    await modern.close()
  })
})
