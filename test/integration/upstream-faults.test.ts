// Upstream supervision against real misbehaving processes: the shared fixture server
// (test/fixtures/bench/fixture-server.mjs) and test/fixtures/garbage-server.mjs.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import pino from 'pino'
import type { ServerConfig } from '../../src/shared/config-schema'
import { silentLogger } from '../../src/main/core/log'
import type { Logger } from '../../src/main/core/log'
import { Upstream, UpstreamCallError, inspectUpstream } from '../../src/main/core/upstream'
import { MESSAGE_FLOOR_BYTES } from '../../src/main/core/upstream/connection'
import type { UpstreamOptions, UpstreamState } from '../../src/main/core/upstream'
import type { ToolDefinition } from '../../src/shared/tool-definition'
import { pidAlive, waitFor } from '../helpers/wait'
import { processesMatching } from '../helpers/cli'

const ROOT = path.resolve(__dirname, '../..')
const FIXTURE = path.join(ROOT, 'test/fixtures/bench/fixture-server.mjs')
const GARBAGE = path.resolve(ROOT, 'test/fixtures/garbage-server.mjs')
const LIMITS = { maxTools: 100, maxDescriptionChars: 1000, maxResultBytes: 100_000 }

let tmp: string
const live: Upstream[] = []

beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-upstream-'))
})

afterEach(async () => {
  await Promise.all(live.splice(0).map((u) => u.stop()))
})

function server(name: string, args: string[], extra: Partial<ServerConfig> = {}): ServerConfig {
  return { name, command: process.execPath, args, protocol: 'auto', enabled: true, trust: 'manual', ...extra }
}

function upstream(config: ServerConfig, opts: Partial<UpstreamOptions> = {}): Upstream {
  const up = new Upstream(config, {
    logger: silentLogger(),
    limits: LIMITS,
    connectTimeoutMs: 10_000,
    backoff: { initialMs: 100, maxMs: 1000, maxAttempts: 5 },
    ...opts,
  })
  live.push(up)
  return up
}

function toolsFile(tools: Array<{ name: unknown; description?: string }>): string {
  const file = path.join(tmp, `tools-${Math.random().toString(36).slice(2)}.json`)
  fs.writeFileSync(file, JSON.stringify(tools))
  return file
}

/** A pino logger whose lines land in an array (to check what was logged). */
function captureLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = []
  const logger = pino({ level: 'debug' }, { write: (s: string) => void lines.push(JSON.parse(s) as Record<string, unknown>) })
  return { logger, lines }
}

function text(result: { content: unknown[] }): string {
  const first = result.content[0] as { type: string; text?: string }
  return first.text ?? ''
}

async function rejection(p: Promise<unknown>): Promise<UpstreamCallError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(UpstreamCallError)
  return err as UpstreamCallError
}

describe('upstream supervision (fixture server)', () => {
  it('connects, lists tools, calls one, and passes isError results through unchanged', async () => {
    const file = toolsFile([{ name: 'greet', description: 'Say hello' }, { name: 'other' }])
    const up = upstream(server('fx', [FIXTURE, '--tools', file]))
    expect(up.state).toBe('stopped')
    up.start()
    expect(up.state).toBe('connecting')
    await waitFor(() => up.state === 'connected', 10_000, 'connected')
    expect(up.attempt).toBe(0)
    expect(up.lastError).toBeNull()
    expect(up.tools?.map((t) => t.name)).toEqual(['greet', 'other'])

    const ok = await up.callTool('greet', { who: 'you' }, { timeoutMs: 5000 })
    expect(JSON.parse(text(ok))).toEqual({ tool: 'greet', arguments: { who: 'you' } })

    const failed = await up.callTool('greet', { fail: 'boom' }, { timeoutMs: 5000 })
    expect(failed.isError).toBe(true)
    expect(text(failed)).toBe('boom')
  })

  it('re-lists tools when the upstream sends notifications/tools/list_changed', async () => {
    const file = toolsFile([{ name: 'a', description: 'first' }])
    const up = upstream(server('fx', [FIXTURE, '--tools', file]))
    const lists: ToolDefinition[][] = []
    up.on('tools', (tools) => lists.push(tools))
    up.start()
    await waitFor(() => lists.length === 1, 10_000, 'first tools event')
    expect(lists[0].map((t) => t.name)).toEqual(['a'])

    fs.writeFileSync(
      file,
      JSON.stringify([
        { name: 'a', description: 'changed' },
        { name: 'b', description: 'new' },
      ]),
    )
    const latest = await waitFor(() => lists.find((l) => l.length === 2), 5000, 'tools event after the file changed')
    expect(latest).toEqual([
      { name: 'a', description: 'changed', inputSchema: { type: 'object', properties: {} } },
      { name: 'b', description: 'new', inputSchema: { type: 'object', properties: {} } },
    ])
    expect(up.tools).toEqual(latest)
    expect(up.state).toBe('connected')
  })

  it('a crash mid-call rejects that call clearly, then reconnects on its own', async () => {
    const file = toolsFile([{ name: 't' }])
    const up = upstream(server('crashy', [FIXTURE, '--tools', file]), { backoff: { initialMs: 300, maxMs: 1000, maxAttempts: 5 } })
    const seen: Array<{ state: UpstreamState; attempt: number; lastError: string | null }> = []
    up.on('state', () => seen.push({ state: up.state, attempt: up.attempt, lastError: up.lastError }))
    up.start()
    await waitFor(() => up.state === 'connected', 10_000, 'connected')
    const firstPid = up.pid
    expect(firstPid).toBeGreaterThan(0)

    const err = await rejection(up.callTool('t', { crash: true }, { timeoutMs: 5000 }))
    expect(err.code).toBe('disconnected')
    expect(err.message).toMatch(/^call to crashy:t failed: process exited with code 3/)

    // While reconnecting, calls fail fast with the attempt number.
    await waitFor(() => up.state === 'connecting' && up.attempt > 0, 2000, 'reconnecting state')
    const early = await rejection(up.callTool('t', {}, { timeoutMs: 5000 }))
    expect(early.code).toBe('not_connected')
    expect(early.message).toBe('server "crashy" is not connected (reconnecting, attempt 1)')
    expect(up.tools?.map((t) => t.name)).toEqual(['t']) // last known tools are kept

    await waitFor(() => up.state === 'connected', 10_000, 'reconnected')
    expect(seen.some((s) => s.state === 'connecting' && s.attempt === 1 && /exited with code 3/.test(s.lastError ?? ''))).toBe(true)
    expect(up.attempt).toBe(0)
    expect(up.lastError).toBeNull()
    expect(up.pid).not.toBe(firstPid)
    expect(pidAlive(firstPid as number)).toBe(false)
    const after = await up.callTool('t', { x: 1 }, { timeoutMs: 5000 })
    expect(JSON.parse(text(after))).toEqual({ tool: 't', arguments: { x: 1 } })
  })

  it('a crash loop trips the breaker: state error with the reason, no more retries', async () => {
    const { logger, lines } = captureLogger()
    const up = upstream(server('loop', ['-e', 'console.error("config file missing"); process.exit(1)']), {
      logger,
      backoff: { initialMs: 50, maxMs: 200, maxAttempts: 3 },
    })
    const states: string[] = []
    up.on('state', () => states.push(`${up.state}:${up.attempt}`))
    up.start()
    await waitFor(() => up.state === 'error', 10_000, 'error state')
    expect(states).toEqual(['connecting:0', 'connecting:1', 'connecting:2', 'error:0'])
    expect(up.lastError).toMatch(/process exited with code 1: config file missing/)
    expect(up.lastError).toMatch(/gave up after 3 consecutive failures/)
    // the child's stderr went to the log, tagged with the server
    expect(lines.some((l) => l.server === 'loop' && l.msg === 'config file missing')).toBe(true)

    const err = await rejection(up.callTool('x', {}, { timeoutMs: 1000 }))
    expect(err.message).toMatch(/^server "loop" is not connected \(state: error: process exited with code 1/)

    // restart() clears the breaker and tries again
    await up.restart()
    expect(['connecting', 'error']).toContain(up.state)
    await waitFor(() => up.state === 'error', 10_000, 'error state again')
  })

  it('a hung call times out (and is cancelled upstream) while a concurrent call succeeds', async () => {
    const log = path.join(tmp, 'hang.log')
    const up = upstream(server('g', [GARBAGE, '--log', log], { sandbox: { fs_write: [tmp] } }))
    up.start()
    await waitFor(() => up.state === 'connected', 10_000, 'connected')

    const started = Date.now()
    const hung = rejection(up.callTool('slow', { ms: 10_000 }, { timeoutMs: 300 }))
    const fast = await up.callTool('echo', { text: 'quick' }, { timeoutMs: 5000 })
    expect(text(fast)).toBe('echo: quick')
    const err = await hung
    expect(err.code).toBe('timeout')
    expect(err.message).toBe('call to g:slow timed out after 300 ms')
    expect(Date.now() - started).toBeLessThan(5000)

    const cancelled = await waitFor(
      () =>
        fs
          .readFileSync(log, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { method?: string; params?: { reason?: string } })
          .find((m) => m.method === 'notifications/cancelled'),
      3000,
      'notifications/cancelled upstream',
    )
    expect(cancelled.params?.reason).toMatch(/timed out/i)
    expect(up.state).toBe('connected')
  })

  it("forwards the caller's cancellation upstream", async () => {
    const log = path.join(tmp, 'cancel.log')
    const up = upstream(server('g', [GARBAGE, '--log', log], { sandbox: { fs_write: [tmp] } }))
    up.start()
    await waitFor(() => up.state === 'connected', 10_000, 'connected')
    const ac = new AbortController()
    const call = rejection(up.callTool('slow', { ms: 10_000 }, { timeoutMs: 60_000, signal: ac.signal }))
    await waitFor(() => fs.readFileSync(log, 'utf8').includes('"tools/call"'), 3000, 'call reached the upstream')
    ac.abort(new Error('agent went away'))
    const err = await call
    expect(err.code).toBe('cancelled')
    expect(err.message).toBe('call to g:slow was cancelled by the caller')
    await waitFor(() => fs.readFileSync(log, 'utf8').includes('notifications/cancelled'), 3000, 'notifications/cancelled upstream')
    // an already-aborted signal never reaches the upstream
    const pre = await rejection(up.callTool('echo', {}, { timeoutMs: 1000, signal: AbortSignal.abort() }))
    expect(pre.code).toBe('cancelled')
  })

  it('garbage on stdout is logged and skipped; calls keep working', async () => {
    const { logger, lines } = captureLogger()
    const up = upstream(server('g', [GARBAGE]), { logger })
    up.start()
    await waitFor(() => up.state === 'connected', 10_000, 'connected')
    expect(up.tools?.map((t) => t.name)).toEqual(['echo', 'slow'])
    const results = await Promise.all([1, 2, 3, 4, 5].map((i) => up.callTool('echo', { text: `n${i}` }, { timeoutMs: 5000 })))
    expect(results.map(text)).toEqual(['echo: n1', 'echo: n2', 'echo: n3', 'echo: n4', 'echo: n5'])
    expect(up.state).toBe('connected')
    expect(lines.some((l) => l.level === 40 && /upstream transport error/.test(String(l.msg)))).toBe(true)
    expect(lines.some((l) => l.msg === 'garbage-server: starting' && l.stream === 'stderr')).toBe(true)
  })

  it('rejects results over maxResultBytes with a clear error and stays connected', async () => {
    const file = toolsFile([{ name: 'big' }])
    const up = upstream(server('fx', [FIXTURE, '--tools', file]))
    up.start()
    await waitFor(() => up.state === 'connected', 10_000, 'connected')
    const err = await rejection(up.callTool('big', { big: 200_000 }, { timeoutMs: 5000 }))
    expect(err.code).toBe('result_too_large')
    expect(err.message).toMatch(/^result of fx:big is 2\d{5} bytes, over the limit of 100000 bytes \(limits\.max_result_bytes\)$/)
    const small = await up.callTool('big', { big: 10 }, { timeoutMs: 5000 })
    expect(text(small)).toBe('x'.repeat(10))
  })

  it('a result bigger than the stdio read buffer drops only that connection, which comes back', { timeout: 120_000 }, async () => {
    const file = toolsFile([{ name: 'big' }])
    const up = upstream(server('fx', [FIXTURE, '--tools', file]))
    up.start()
    await waitFor(() => up.state === 'connected', 10_000, 'connected')
    const err = await rejection(up.callTool('big', { big: MESSAGE_FLOOR_BYTES + 1024 * 1024 }, { timeoutMs: 60_000 }))
    expect(err.code).toBe('disconnected')
    expect(err.message).toMatch(
      new RegExp(`the upstream sent a message that is too large \\(ReadBuffer exceeded maximum size of ${MESSAGE_FLOOR_BYTES} bytes\\)`),
    )
    await waitFor(() => up.state === 'connected' && up.tools !== null, 20_000, 'reconnected')
    expect(text(await up.callTool('big', { big: 3 }, { timeoutMs: 5000 }))).toBe('xxx')
  })

  it('validates and caps the tool list, warning but staying connected', async () => {
    const file = toolsFile([{ name: 'ok', description: 'd'.repeat(50) }, { name: 42 }, { name: 'two' }, { name: 'three' }])
    const up = upstream(server('fx', [FIXTURE, '--tools', file]), { limits: { maxTools: 2, maxDescriptionChars: 20, maxResultBytes: 100_000 } })
    up.start()
    await waitFor(() => up.state === 'connected', 10_000, 'connected')
    expect(up.tools?.map((t) => t.name)).toEqual(['ok', 'two'])
    expect(up.tools?.[0].description).toBe(`${'d'.repeat(19)}…`)
    expect(up.lastError).toMatch(/^warning: /)
    expect(up.lastError).toMatch(/dropped 1 invalid tool/)
    expect(up.lastError).toMatch(/only the first 2 are used \(limits\.max_tools_per_server\)/)
  })

  it('stop() leaves no child process, and calls then fail fast', async () => {
    const file = toolsFile([{ name: 't' }])
    const up = upstream(server('fx', [FIXTURE, '--tools', file]))
    up.start()
    await waitFor(() => up.state === 'connected', 10_000, 'connected')
    const pid = up.pid as number
    expect(pidAlive(pid)).toBe(true)
    await up.stop()
    expect(up.state).toBe('stopped')
    expect(pidAlive(pid)).toBe(false)
    const err = await rejection(up.callTool('t', {}, { timeoutMs: 1000 }))
    expect(err.message).toBe('server "fx" is not connected (stopped)')
  })

  it('stop() kills a child that ignores stdin EOF and SIGTERM', async () => {
    // speaks just enough MCP to connect, then refuses to die politely
    const script = `
      process.on('SIGTERM', () => {}); setInterval(() => {}, 1000);
      require('readline').createInterface({ input: process.stdin }).on('line', (l) => {
        const m = JSON.parse(l); if (m.id === undefined) return;
        const result = m.method === 'initialize' ? { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 's', version: '1' } } : { tools: [] };
        process.stdout.write(JSON.stringify({ jsonrpc: '2.0', id: m.id, result }) + '\\n');
      });`
    const up = upstream(server('stubborn', ['-e', script]))
    up.start()
    await waitFor(() => up.state === 'connected', 10_000, 'connected')
    const pid = up.pid as number
    await up.stop()
    expect(pidAlive(pid)).toBe(false)
  })

  it('stop() during connecting kills the half-started process', async () => {
    // never answers initialize
    const up = upstream(server('mute', ['-e', 'setInterval(() => {}, 1000)']))
    up.start()
    const pid = await waitFor(() => up.pid, 5000, 'spawned')
    expect(up.state).toBe('connecting')
    await up.stop()
    expect(pidAlive(pid)).toBe(false)
    expect(up.state).toBe('stopped')
  })

  it("names the real reason of a Node crash, not the stack's last line", async () => {
    const up = upstream(server('missing-mod', ['-e', "require('nonexistent-module-xyz')"]), { backoff: { initialMs: 10, maxMs: 10, maxAttempts: 1 } })
    up.start()
    await waitFor(() => up.state === 'error', 5000, 'error state')
    expect(up.lastError).toMatch(/^process exited with code 1: Error: Cannot find module 'nonexistent-module-xyz'/)
  })

  it('a call in flight when stop() is called is rejected as closed by Toolgate', async () => {
    const up = upstream(server('g', [GARBAGE]))
    up.start()
    await waitFor(() => up.state === 'connected', 10_000, 'connected')
    const call = rejection(up.callTool('slow', { ms: 10_000 }, { timeoutMs: 60_000 }))
    await up.stop()
    const err = await call
    expect(err.code).toBe('disconnected')
    expect(err.message).toBe('call to g:slow failed: the connection was closed by Toolgate (server stopped or restarted)')
  })

  it('a slow initialize hits connectTimeoutMs and counts as a failure', async () => {
    const up = upstream(server('mute', ['-e', 'setInterval(() => {}, 1000)']), {
      connectTimeoutMs: 300,
      backoff: { initialMs: 10, maxMs: 10, maxAttempts: 2 },
    })
    up.start()
    await waitFor(() => up.state === 'error', 10_000, 'error state')
    expect(up.lastError).toMatch(/did not complete the MCP handshake within 300 ms \(stdio\)/)
  })

  it('a missing command or cwd gives a clear error', async () => {
    const up = upstream(server('nope', [], { command: '/nonexistent/bin/mcp' }), { backoff: { initialMs: 10, maxMs: 10, maxAttempts: 1 } })
    up.start()
    await waitFor(() => up.state === 'error', 5000, 'error state')
    expect(up.lastError).toMatch(/ENOENT/)
    const cwd = upstream(server('nocwd', [FIXTURE], { cwd: '/nonexistent/dir' }), { backoff: { initialMs: 10, maxMs: 10, maxAttempts: 1 } })
    cwd.start()
    await waitFor(() => cwd.state === 'error', 5000, 'error state')
    expect(cwd.lastError).toMatch(/working directory "\/nonexistent\/dir" does not exist/)
  })

  it('never puts secrets from env, URL or args into lastError or the log', async () => {
    const { logger, lines } = captureLogger()
    const stdio = upstream(
      server(
        'leaky',
        ['-e', 'console.error("using key " + process.env.API_KEY + " and " + process.argv[1]); process.exit(1)', 'tok_abcdefghijklmnopqrstuvwxyz123'],
        {
          env: { API_KEY: 'sk-test-abcdef123456' },
        },
      ),
      { logger, backoff: { initialMs: 10, maxMs: 10, maxAttempts: 1 } },
    )
    stdio.start()
    await waitFor(() => stdio.state === 'error', 5000, 'error state')
    expect(stdio.lastError).toMatch(/using key \*\*\* and \*\*\*/)

    const http = upstream(
      {
        name: 'leaky-http',
        url: 'http://admin:hunter22@127.0.0.1:9/mcp?api_key=supersecret123&x=1',
        protocol: 'auto',
        enabled: true,
        trust: 'manual',
        headers: { Authorization: 'Bearer abcdef-token' },
      },
      { logger, backoff: { initialMs: 10, maxMs: 10, maxAttempts: 1 } },
    )
    http.start()
    await waitFor(() => http.state === 'error', 5000, 'error state')
    expect(http.lastError).toMatch(/streamable-http: .*; sse: /)
    const everything = JSON.stringify(lines) + String(stdio.lastError) + String(http.lastError)
    for (const secret of ['sk-test-abcdef123456', 'tok_abcdefghijklmnopqrstuvwxyz123', 'hunter22', 'supersecret123', 'abcdef-token']) {
      expect(everything).not.toContain(secret)
    }
  })

  it('inspectUpstream lists the tools and leaves no process behind', async () => {
    // Inspect runs in the sandbox (its own PID namespace): find the process by a marker in its argv.
    const marker = `inspect-marker-${process.pid}-${Date.now()}`
    const file = toolsFile([{ name: 'x', description: 'an x' }])
    const tools = await inspectUpstream(server('insp', [FIXTURE, '--tools', file, '--name', marker]), {
      logger: silentLogger(),
      limits: LIMITS,
      timeoutMs: 10_000,
    })
    expect(tools).toEqual([{ name: 'x', description: 'an x', inputSchema: { type: 'object', properties: {} } }])
    expect(processesMatching(marker)).toEqual([])
  })

  it('inspectUpstream reports a server that cannot start', async () => {
    await expect(inspectUpstream(server('bad', ['-e', 'process.exit(7)']), { logger: silentLogger(), limits: LIMITS, timeoutMs: 5000 })).rejects.toThrow(
      /^inspecting server "bad" failed: process exited with code 7/,
    )
  })
})
