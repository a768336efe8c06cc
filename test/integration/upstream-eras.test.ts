// Upstreams of both protocol eras: a server written with the SDK v2 server
// package speaks 2026-07-28 over stdio and HTTP; the reference server-everything (SDK 1.x) speaks
// 2025-11-25. The era comes from what the server answers, never from the config; list changes
// arrive in both eras; a 2025 server that exits on the era probe is started again with initialize.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { ServerConfig } from '../../src/shared/config-schema'
import { silentLogger } from '../../src/main/core/log'
import { Upstream } from '../../src/main/core/upstream'
import { waitFor } from '../helpers/wait'
import { freePort } from '../helpers/cli'

const V2 = path.resolve(__dirname, '../fixtures/servers/v2-server.mjs')
const EVERYTHING = path.resolve(__dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js')
const LIMITS = { maxTools: 1000, maxDescriptionChars: 8000, maxResultBytes: 4 * 1024 * 1024 }

const live: Upstream[] = []
const children: ChildProcess[] = []
const dirs: string[] = []

afterEach(async () => {
  await Promise.all(live.splice(0).map((u) => u.stop()))
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true })
})

function upstream(config: Partial<ServerConfig> & { name: string }): Upstream {
  const up = new Upstream({ protocol: 'auto', enabled: true, trust: 'manual', ...config } as ServerConfig, {
    logger: silentLogger(),
    limits: LIMITS,
    connectTimeoutMs: 20_000,
  })
  live.push(up)
  up.start()
  return up
}

async function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => {
      s.destroy()
      resolve(true)
    })
    s.once('error', () => resolve(false))
  })
}

async function startV2Http(): Promise<string> {
  const port = await freePort()
  const child = spawn(process.execPath, [V2, 'http', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] })
  child.stderr?.resume()
  children.push(child)
  await waitFor(() => listening(port), 15_000, 'the v2 fixture listening')
  return `http://127.0.0.1:${port}/mcp`
}

const text = (r: { content: unknown[] }): string => (r.content[0] as { text?: string }).text ?? ''

describe('upstreams of both eras', () => {
  it('a v2 server over stdio speaks 2026-07-28: tools, calls, progress and list changes', async () => {
    const up = upstream({ name: 'v2', command: process.execPath, args: [V2] })
    await waitFor(() => up.state === 'connected', 20_000, 'connected')
    expect(up.protocolVersion).toBe('2026-07-28')
    expect(up.tools?.map((t) => t.name).sort()).toEqual(['add_tool', 'echo', 'slow_count'])
    const echoed = await up.callTool('echo', { text: 'hi' }, { timeoutMs: 5000 })
    expect(text(echoed)).toBe('echo (modern): hi')
    // the upstream's own envelope (its serverInfo) stays on its hop: agents talk to Toolgate
    expect(JSON.stringify(echoed)).not.toContain('io.modelcontextprotocol/')

    const seen: number[] = []
    const counted = await up.callTool('slow_count', { n: 3 }, { timeoutMs: 5000, onProgress: (p) => seen.push(p.progress) })
    expect(text(counted)).toBe('counted to 3')
    expect(seen).toEqual([1, 2, 3])

    await up.callTool('add_tool', { name: 'fresh_tool' }, { timeoutMs: 5000 })
    await waitFor(() => up.tools?.some((t) => t.name === 'fresh_tool') === true, 10_000, 'the new tool listed after list_changed')
  })

  it('a v2 server over Streamable HTTP speaks 2026-07-28 (no session), and list changes reach Toolgate', async () => {
    const url = await startV2Http()
    const up = upstream({ name: 'v2-http', url })
    await waitFor(() => up.state === 'connected', 20_000, 'connected')
    expect(up.protocolVersion).toBe('2026-07-28')
    expect(text(await up.callTool('echo', { text: 'over http' }, { timeoutMs: 5000 }))).toBe('echo (modern): over http')
    await up.callTool('add_tool', { name: 'http_tool' }, { timeoutMs: 5000 })
    await waitFor(() => up.tools?.some((t) => t.name === 'http_tool') === true, 10_000, 'the new tool listed after list_changed')
  })

  it('the reference server (SDK 1.x) speaks 2025-11-25 over stdio', async () => {
    const up = upstream({ name: 'everything', command: process.execPath, args: [EVERYTHING, 'stdio'] })
    await waitFor(() => up.state === 'connected', 20_000, 'connected')
    expect(up.protocolVersion).toBe('2025-11-25')
    expect(text(await up.callTool('echo', { message: 'old' }, { timeoutMs: 5000 }))).toBe('Echo: old')
  })

  it('a 2025 server that exits on any request before initialize is started again with initialize only', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tg-eras-'))
    dirs.push(dir)
    const starts = path.join(dir, 'starts')
    // like servers of SDKs that exit when the first request is not initialize (the era probe is server/discover)
    const script = path.join(dir, 'strict-server.mjs')
    fs.writeFileSync(
      script,
      `import fs from 'node:fs'
import readline from 'node:readline'
fs.appendFileSync(${JSON.stringify(starts)}, 'x')
let ready = false
const out = (m) => process.stdout.write(JSON.stringify(m) + '\\n')
readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const m = JSON.parse(line)
  if (!ready && m.method !== 'initialize') process.exit(3)
  if (m.method === 'initialize') { ready = true; return out({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'strict', version: '1' } } }) }
  if (m.method === 'tools/list') return out({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'hello', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }] } })
  if (m.method === 'tools/call') return out({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'hello back' }] } })
  if (m.id !== undefined) out({ jsonrpc: '2.0', id: m.id, result: {} })
})
`,
    )
    // unsandboxed: it writes how often it was started into the test's temp dir
    const up = upstream({ name: 'strict', command: process.execPath, args: [script], sandbox: false })
    await waitFor(() => up.state === 'connected', 20_000, 'connected')
    expect(up.protocolVersion).toBe('2025-06-18')
    expect(text(await up.callTool('hello', {}, { timeoutMs: 5000 }))).toBe('hello back')
    expect(fs.readFileSync(starts, 'utf8')).toBe('xx') // probed once (it exited), then initialize only
  })
})
