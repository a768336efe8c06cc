// Upstream against the real @modelcontextprotocol/server-everything: over stdio, over
// Streamable HTTP, and over SSE via the `auto` fallback; plus HTTP supervision (server goes away
// and comes back).
import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { ServerConfig } from '../../src/shared/config-schema'
import { silentLogger } from '../../src/main/core/log'
import { Upstream, inspectUpstream } from '../../src/main/core/upstream'
import type { UpstreamOptions } from '../../src/main/core/upstream'
import { pidAlive, waitFor } from '../helpers/wait'
import { freePort } from '../helpers/cli'

const EVERYTHING = path.resolve(__dirname, '../../node_modules/@modelcontextprotocol/server-everything/dist/index.js')
const LIMITS = { maxTools: 1000, maxDescriptionChars: 8000, maxResultBytes: 4 * 1024 * 1024 }
// trigger-elicitation-request and trigger-url-elicitation are offered because Toolgate declares
// elicitation; trigger-sampling-request and get-roots-list are not: sampling and
// roots are offered only where a server's config says so
const EVERYTHING_TOOLS = [
  'echo',
  'get-annotated-message',
  'get-env',
  'get-resource-links',
  'get-resource-reference',
  'get-structured-content',
  'get-sum',
  'get-tiny-image',
  'gzip-file-as-resource',
  'simulate-research-query',
  'toggle-simulated-logging',
  'toggle-subscriber-updates',
  'trigger-elicitation-request',
  'trigger-long-running-operation',
  'trigger-url-elicitation',
]

const live: Upstream[] = []
const servers: ChildProcess[] = []

afterEach(async () => {
  await Promise.all(live.splice(0).map((u) => u.stop()))
  await Promise.all(servers.splice(0).map(killServer))
})

function upstream(config: ServerConfig, opts: Partial<UpstreamOptions> = {}): Upstream {
  const up = new Upstream(config, { logger: silentLogger(), limits: LIMITS, connectTimeoutMs: 15_000, ...opts })
  live.push(up)
  return up
}

function base(name: string): Omit<ServerConfig, 'protocol'> & { protocol: ServerConfig['protocol'] } {
  return { name, protocol: 'auto', enabled: true, trust: 'manual' }
}

/** Start server-everything in an HTTP mode; resolves once it accepts connections. */
async function startHttpServer(mode: 'streamableHttp' | 'sse', port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, [EVERYTHING, mode], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] })
  servers.push(child)
  let exited = false
  child.once('exit', () => (exited = true))
  child.stderr?.resume()
  await waitFor(
    () => {
      if (exited) throw new Error(`server-everything ${mode} exited`)
      return new Promise<boolean>((resolve) => {
        const s = net.connect(port, '127.0.0.1', () => {
          s.destroy()
          resolve(true)
        })
        s.once('error', () => resolve(false))
      })
    },
    15_000,
    `server-everything ${mode} on port ${port}`,
  )
  return child
}

async function killServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const gone = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGKILL')
  await gone
}

function firstText(result: { content: unknown[] }): string {
  return (result.content[0] as { text?: string }).text ?? ''
}

describe('upstream with server-everything', () => {
  it('stdio: connects, lists its 16 tools, calls echo, and stop() leaves no process', async () => {
    const up = upstream({ ...base('everything'), command: process.execPath, args: [EVERYTHING, 'stdio'] })
    up.start()
    await waitFor(() => up.state === 'connected', 15_000, 'connected')
    expect(up.transportKind).toBe('stdio')
    expect(up.tools?.map((t) => t.name).sort()).toEqual(EVERYTHING_TOOLS)
    const echo = up.tools?.find((t) => t.name === 'echo')
    expect(echo?.inputSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } } })

    const result = await up.callTool('echo', { message: 'hi' }, { timeoutMs: 5000 })
    expect(result.content).toEqual([{ type: 'text', text: 'Echo: hi' }])

    // non-text content passes through unchanged
    const image = await up.callTool('get-tiny-image', {}, { timeoutMs: 5000 })
    expect(image.content.some((c) => c.type === 'image')).toBe(true)

    // invalid arguments come back as an isError result, not a rejection
    const bad = await up.callTool('get-sum', { a: 'x', b: 1 }, { timeoutMs: 5000 })
    expect(bad.isError).toBe(true)

    const pid = up.pid as number
    await up.stop()
    expect(pidAlive(pid)).toBe(false)
  })

  it('Streamable HTTP: connects to /mcp, lists 16 tools, calls echo', async () => {
    const port = await freePort()
    await startHttpServer('streamableHttp', port)
    for (const protocol of ['http', 'auto'] as const) {
      const up = upstream({ ...base(`everything-${protocol}`), protocol, url: `http://127.0.0.1:${port}/mcp` })
      up.start()
      await waitFor(() => up.state === 'connected', 15_000, `connected (${protocol})`)
      expect(up.transportKind).toBe('streamable-http')
      expect(up.tools?.map((t) => t.name).sort()).toEqual(EVERYTHING_TOOLS)
      const result = await up.callTool('echo', { message: 'over http' }, { timeoutMs: 5000 })
      expect(firstText(result)).toBe('Echo: over http')
      await up.stop()
      expect(up.state).toBe('stopped')
    }
  })

  it('URL credentials become a Basic Authorization header (fetch refuses them in the URL)', async () => {
    const port = await freePort()
    await startHttpServer('streamableHttp', port)
    const up = upstream({ ...base('everything-creds'), url: `http://user:p%40ss@127.0.0.1:${port}/mcp` })
    up.start()
    await waitFor(() => up.state === 'connected', 15_000, 'connected')
    expect(firstText(await up.callTool('echo', { message: 'auth' }, { timeoutMs: 5000 }))).toBe('Echo: auth')
  })

  it('auto falls back to SSE when Streamable HTTP is not served', async () => {
    const port = await freePort()
    await startHttpServer('sse', port)
    const up = upstream({ ...base('everything-sse'), url: `http://127.0.0.1:${port}/sse` })
    up.start()
    await waitFor(() => up.state === 'connected', 15_000, 'connected')
    expect(up.transportKind).toBe('sse')
    expect(up.tools?.length).toBe(EVERYTHING_TOOLS.length)
    expect(firstText(await up.callTool('echo', { message: 'sse' }, { timeoutMs: 5000 }))).toBe('Echo: sse')
  })

  it('an HTTP upstream that goes away is noticed, and reconnects when it comes back', async () => {
    const port = await freePort()
    const first = await startHttpServer('streamableHttp', port)
    const up = upstream(
      { ...base('everything-http'), protocol: 'http', url: `http://127.0.0.1:${port}/mcp` },
      { pingIntervalMs: 100, backoff: { initialMs: 100, maxMs: 300, maxAttempts: 100 }, connectTimeoutMs: 3000 },
    )
    up.start()
    await waitFor(() => up.state === 'connected', 15_000, 'connected')

    await killServer(first)
    await waitFor(() => up.state === 'connecting' && up.attempt > 0, 5000, 'reconnecting after the server died')
    expect(up.lastError).toMatch(/health check failed|fetch failed|ECONNREFUSED/)
    const err = await up.callTool('echo', { message: 'x' }, { timeoutMs: 1000 }).catch((e: unknown) => e as Error)
    expect((err as Error).message).toMatch(/^server "everything-http" is not connected \(reconnecting, attempt \d+\)$/)
    expect(up.tools?.length).toBe(EVERYTHING_TOOLS.length) // last known tools are kept

    await startHttpServer('streamableHttp', port)
    await waitFor(() => up.state === 'connected', 15_000, 'reconnected')
    expect(firstText(await up.callTool('echo', { message: 'back' }, { timeoutMs: 5000 }))).toBe('Echo: back')
  })

  it('inspectUpstream lists the tools over stdio and stops the process', async () => {
    const tools = await inspectUpstream(
      { ...base('everything'), command: process.execPath, args: [EVERYTHING, 'stdio'] },
      { logger: silentLogger(), limits: LIMITS, timeoutMs: 15_000 },
    )
    expect(tools.map((t) => t.name).sort()).toEqual(EVERYTHING_TOOLS)
    expect(childProcessesRunning(EVERYTHING)).toEqual([])
  })
})

/** pids of this process's children whose command line mentions `needle` (Linux /proc). */
function childProcessesRunning(needle: string): number[] {
  const found: number[] = []
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      if (ppid !== process.pid) continue
      if (fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(needle)) found.push(Number(entry))
    } catch {
      // the process went away while we looked
    }
  }
  return found
}
