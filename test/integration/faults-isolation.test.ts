// Timeouts, cancellation and isolation end to end, through the real `toolgate serve` (HTTP), a
// `toolgate stdio` bridge to it, and an embedded `toolgate stdio` owner: call_timeout_ms, a hung
// call that blocks nobody, a client's cancellation reaching the upstream, a 10 MB result, an
// upstream listing 5,000 tools, garbage on stdout and a slow initialize.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, everythingEntry, fixtureEntry, logLines, processRunning, startServe, tempDir, waitFor, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectStdio, jsonOf, textOf, type McpHandle, type ToolResult } from '../helpers/mcp-client'
import { agentServers, allText, jsonLines, logText, mcpOn, misbehavingEntry, waitForAgentServer } from '../helpers/faults'

useCleanup()

interface FixtureLog {
  pid: number
  dir?: string
  method?: string
  id?: number
  params?: { requestId?: number; name?: string; arguments?: Record<string, unknown> }
  event?: string
}

/** The JSON-RPC id of the first tools/call of `tool` with arguments matching `pred` in a misbehaving-server log. */
function callId(log: string, tool: string, pred: (a: Record<string, unknown>) => boolean = () => true): number | undefined {
  return jsonLines<FixtureLog>(log).find((l) => l.method === 'tools/call' && l.params?.name === tool && pred(l.params.arguments ?? {}))?.id
}

function settleFlag(p: Promise<unknown>): { done: boolean; error: unknown; value: unknown } {
  const flag = { done: false, error: undefined as unknown, value: undefined as unknown }
  p.then(
    (v) => Object.assign(flag, { done: true, value: v }),
    (e: unknown) => Object.assign(flag, { done: true, error: e }),
  )
  return flag
}

describe('isolation and cancellation (`toolgate serve` over HTTP)', () => {
  let tmp: string
  let serve: Serve
  let h: McpHandle
  let fxLog: string
  let cancelLog: string
  let gateFile: string
  const ALL_BUT_SLOW = ['fx', 'other', 'cancelme', 'many', 'garbage']

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-faults-iso-')
    fxLog = path.join(tmp, 'fx-calls.log')
    cancelLog = path.join(tmp, 'cancelme.log')
    gateFile = path.join(tmp, 'slowinit.go')
    const fxTools = writeJson(path.join(tmp, 'fx-tools.json'), [
      { name: 'sleepy', description: 'Sleep for a while', annotations: { readOnlyHint: true } },
      { name: 'quick', description: 'Answer at once', annotations: { readOnlyHint: true } },
      { name: 'bigdata', description: 'Return a lot of data', annotations: { readOnlyHint: true } },
    ])
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      limits: { max_tools_per_server: 100, max_result_bytes: 2_000_000 },
      mcpServers: {
        fx: fixtureEntry(fxTools, fxLog, { quarantined: false }),
        other: everythingEntry({ quarantined: false }),
        cancelme: misbehavingEntry(['--log', cancelLog, '--name', 'cancelme']),
        many: misbehavingEntry(['--tools-count', '5000']),
        garbage: misbehavingEntry(['--garbage']),
        slowinit: misbehavingEntry(['--init-gate', gateFile]),
      },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    h = await mcpOn(serve)
  }, 90_000)

  afterAll(async () => {
    fs.writeFileSync(gateFile, 'go')
    await h?.close().catch(() => {})
    await stopServe(serve)
  })

  const call = (id: string, args: Record<string, unknown> = {}): Promise<ToolResult> => h.call('call_tool_read', { name: id, args })
  const echoWorks = async (c: McpHandle, message: string): Promise<void> => {
    const r = await c.call('call_tool_read', { name: 'other:echo', args: { message } })
    expect(r.isError, allText(r)).toBeFalsy()
    expect(textOf(r)).toBe(`Echo: ${message}`)
  }
  const quickWorks = async (c: McpHandle, n: number): Promise<void> => {
    const r = await c.call('call_tool_read', { name: 'fx:quick', args: { n } })
    expect(r.isError, allText(r)).toBeFalsy()
    expect(jsonOf(r)).toEqual({ tool: 'quick', arguments: { n } })
  }

  it('a slow initialize of one upstream holds up nobody else', async () => {
    // every other server connects and works while slowinit still waits for its initialize answer
    for (const name of ALL_BUT_SLOW) await waitForAgentServer(h, name, (s) => s.state === 'connected', 'connected', 45_000)
    expect((await agentServers(h)).find((s) => s.name === 'slowinit')?.state).toBe('connecting')
    await echoWorks(h, 'while slowinit initializes')
    await quickWorks(h, 1)
    const found = jsonOf<{ tools: Array<{ name: string }> }>(await h.call('retrieve_tools', { query: 'echo the text back' }))
    expect(found.tools.map((t) => t.name)).toContain('cancelme:echo')

    fs.writeFileSync(gateFile, 'go')
    await waitForAgentServer(h, 'slowinit', (s) => s.state === 'connected', 'connected once initialize is answered', 45_000)
    const r = await call('slowinit:echo', { text: 'finally' })
    expect(r.isError, allText(r)).toBeFalsy()
    expect(textOf(r)).toBe('echo: finally')
  }, 120_000)

  it("garbage on an upstream's stdout (junk lines, a 2 MB non-JSON line, stray JSON-RPC) affects neither it nor the others", async () => {
    await waitForAgentServer(h, 'garbage', (s) => s.state === 'connected', 'connected')
    const texts = Array.from({ length: 20 }, (_, i) => `msg-${i}`)
    const results = await Promise.all(texts.map((t) => call('garbage:echo', { text: t })))
    expect(results.map((r) => (r.isError ? `ERROR ${allText(r)}` : textOf(r)))).toEqual(texts.map((t) => `echo: ${t}`))
    await echoWorks(h, 'next to garbage')
    await quickWorks(h, 2)
    expect((await agentServers(h)).find((s) => s.name === 'garbage')?.state).toBe('connected')
    expect(processRunning(serve.pid)).toBe(true)
  })

  it('an upstream listing 5,000 tools is capped at limits.max_tools_per_server with a warning; everything else keeps working', async () => {
    const entry = await waitForAgentServer(h, 'many', (s) => s.state === 'connected', 'connected')
    expect(entry.last_error).toMatch(/5000 tools/)
    expect(entry.last_error).toMatch(/only the first 100 are used \(limits\.max_tools_per_server\)/)

    const tools = await serve.api<{ tools: Array<{ name: string; status: string }> }>('GET', '/api/v1/servers/many/tools')
    expect(tools.status).toBe(200)
    expect(tools.json.tools).toHaveLength(100)
    expect(tools.json.tools.every((t) => t.status === 'callable')).toBe(true)
    const names = tools.json.tools.map((t) => t.name)
    expect(names).toContain('many:tool_00000')
    expect(names).toContain('many:tool_00099')
    expect(names).not.toContain('many:tool_00100')

    const servers = await serve.api<{ servers: Array<{ name: string; state: string; last_error: string | null }> }>('GET', '/api/v1/servers')
    expect(servers.json.servers.find((s) => s.name === 'many')?.last_error).toMatch(/limits\.max_tools_per_server/)
    await waitFor(() => /limits\.max_tools_per_server/.test(logText(serve.dataDir)), 10_000, 'the cap warning in the log file')

    const found = jsonOf<{ tools: Array<{ name: string }> }>(await h.call('retrieve_tools', { query: 'generated tool number 42' }))
    expect(found.tools.map((t) => t.name)).toContain('many:tool_00042')
    const r = await call('many:tool_00042', { n: 42 })
    expect(r.isError, allText(r)).toBeFalsy()
    const beyond = await call('many:tool_04999', {})
    expect(beyond.isError).toBe(true)
    await echoWorks(h, 'next to a huge tool list')
  })

  it('a 10 MB result is refused with a clear "too large" error naming limits.max_result_bytes; the proxy and other upstreams keep working', async () => {
    await waitForAgentServer(h, 'fx', (s) => s.state === 'connected', 'connected')
    const r = await call('fx:bigdata', { big: 10 * 1024 * 1024 })
    expect(r.isError).toBe(true)
    const text = allText(r)
    expect(text.length).toBeLessThan(2000) // the error, not the data

    expect(processRunning(serve.pid)).toBe(true)
    await echoWorks(h, 'after a 10 MB result')
    // the server that produced it works again (at once, or after reconnecting)
    await waitFor(async () => !(await call('fx:quick', { n: 3 })).isError, 30_000, 'fx:quick to work again', 200)
    // a result just under the limit still goes through
    const ok = await call('fx:bigdata', { big: 1_000_000 })
    expect(ok.isError, allText(ok).slice(0, 300)).toBeFalsy()
    expect(textOf(ok)).toHaveLength(1_000_000)

    // the error says what limit was hit and where to change it
    expect(text).toMatch(/too large|over the limit/i)
    expect(text).toContain('limits.max_result_bytes')
    expect(text).toContain('2000000')
  })

  it('a result over limits.max_result_bytes (but far from 10 MB) is refused with a clear error naming the limit', async () => {
    await waitForAgentServer(h, 'fx', (s) => s.state === 'connected', 'connected')
    const r = await call('fx:bigdata', { big: 3_000_000 })
    expect(r.isError).toBe(true)
    const text = allText(r)
    expect(text).toMatch(/too large|over the limit/i)
    expect(text).toContain('limits.max_result_bytes')
    expect(text).toContain('2000000')
    // a refused result does not cost the connection: the next call goes through at once
    await quickWorks(h, 4)
  })

  it('a hung call on one server blocks neither other servers nor other calls to the same server', async () => {
    await waitForAgentServer(h, 'fx', (s) => s.state === 'connected', 'connected')
    const hung = new AbortController()
    const p = h.client.callTool({ name: 'call_tool_read', arguments: { name: 'fx:sleepy', args: { sleep_ms: 30_000, tag: 'hung' } } }, undefined, {
      signal: hung.signal,
      timeout: 120_000,
    })
    const flag = settleFlag(p)
    await waitFor(() => logLines(fxLog).some((l) => l.arguments.tag === 'hung'), 15_000, 'the hung call to reach fx')

    // other servers, the same server, a second session, discovery and the control API all answer
    await echoWorks(h, 'while fx hangs')
    await Promise.all([quickWorks(h, 10), quickWorks(h, 11), quickWorks(h, 12)])
    const second = await mcpOn(serve)
    try {
      await quickWorks(second, 13)
      await echoWorks(second, 'second session while fx hangs')
    } finally {
      await second.close().catch(() => {})
    }
    expect(textOf(await h.call('retrieve_tools', { query: 'answer at once' }))).toContain('fx:quick')
    expect((await serve.api('GET', '/api/v1/status')).status).toBe(200)
    expect(flag.done).toBe(false) // still hung all along

    hung.abort()
    await waitFor(() => flag.done, 15_000, 'the aborted call to settle')
    expect(flag.error).toBeTruthy()
    await quickWorks(h, 14)
  })

  it("a client's cancellation (notifications/cancelled) reaches the upstream, which stops early", async () => {
    const ac = new AbortController()
    const p = h.client.callTool({ name: 'call_tool_read', arguments: { name: 'cancelme:slow', args: { ms: 60_000, tag: 'http' } } }, undefined, {
      signal: ac.signal,
      timeout: 120_000,
    })
    const flag = settleFlag(p)
    const id = await waitFor(() => callId(cancelLog, 'slow', (a) => a.tag === 'http'), 15_000, 'the slow call to reach cancelme')
    await waitFor(() => jsonLines<FixtureLog>(cancelLog).some((l) => l.event === 'started' && l.id === id), 5000, 'the upstream to start working')
    ac.abort()
    await waitFor(() => flag.done, 15_000, 'the cancelled call to settle on the client')
    expect(flag.error).toBeTruthy()

    const lines = await waitFor(
      () => {
        const all = jsonLines<FixtureLog>(cancelLog)
        return all.some((l) => l.event === 'cancelled' && l.id === id) ? all : undefined
      },
      15_000,
      'notifications/cancelled to reach the upstream',
    )
    expect(lines.some((l) => l.method === 'notifications/cancelled' && l.params?.requestId === id)).toBe(true)
    expect(lines.some((l) => l.event === 'finished' && l.id === id)).toBe(false) // it stopped early
    const r = await call('cancelme:echo', { text: 'still here' })
    expect(textOf(r)).toBe('echo: still here')
  })

  it('a cancellation from a `toolgate stdio` bridge reaches the upstream behind the live owner too', async () => {
    const bridge = await connectStdio(['--config', serve.configPath, '--data-dir', serve.dataDir])
    try {
      const ac = new AbortController()
      const p = bridge.client.callTool({ name: 'call_tool_read', arguments: { name: 'cancelme:slow', args: { ms: 60_000, tag: 'bridge' } } }, undefined, {
        signal: ac.signal,
        timeout: 120_000,
      })
      const flag = settleFlag(p)
      const id = await waitFor(() => callId(cancelLog, 'slow', (a) => a.tag === 'bridge'), 15_000, 'the slow call to reach cancelme')
      await waitFor(() => jsonLines<FixtureLog>(cancelLog).some((l) => l.event === 'started' && l.id === id), 5000, 'the upstream to start working')
      ac.abort()
      await waitFor(() => flag.done, 15_000, 'the cancelled call to settle on the client')
      await waitFor(
        () => jsonLines<FixtureLog>(cancelLog).some((l) => l.event === 'cancelled' && l.id === id),
        15_000,
        'notifications/cancelled to reach the upstream through the bridge',
      )
      expect(jsonLines<FixtureLog>(cancelLog).some((l) => l.event === 'finished' && l.id === id)).toBe(false)
      const r = await bridge.call('call_tool_read', { name: 'cancelme:echo', args: { text: 'bridge ok' } })
      expect(textOf(r)).toBe('echo: bridge ok')
    } finally {
      await bridge.close().catch(() => {})
    }
  })
})

describe('call_timeout_ms (embedded `toolgate stdio` owner)', () => {
  let tmp: string
  let c: McpHandle
  let slowLog: string

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-faults-timeout-')
    slowLog = path.join(tmp, 'slowpoke.log')
    const fxTools = writeJson(path.join(tmp, 'fx-tools.json'), [{ name: 'quick', description: 'Answer at once', annotations: { readOnlyHint: true } }])
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      call_timeout_ms: 1500,
      mcpServers: {
        slowpoke: misbehavingEntry(['--log', slowLog]),
        fx2: fixtureEntry(fxTools, path.join(tmp, 'fx2.log'), { quarantined: false }),
      },
    })
    c = await connectStdio(['--config', configPath, '--data-dir', path.join(tmp, 'data')])
    await waitForAgentServer(c, 'slowpoke', (s) => s.state === 'connected', 'connected', 45_000)
    await waitForAgentServer(c, 'fx2', (s) => s.state === 'connected', 'connected', 45_000)
  }, 90_000)

  afterAll(async () => {
    await c?.close().catch(() => {})
  })

  it('a call slower than call_timeout_ms fails with a clear timeout error, the upstream is told to cancel, and later calls work', async () => {
    const r = await c.call('call_tool_read', { name: 'slowpoke:slow', args: { ms: 30_000, tag: 'too-slow' } })
    expect(r.isError).toBe(true)
    const text = allText(r)
    expect(text).toContain('slowpoke:slow')
    expect(text).toMatch(/timed out after 1500 ms/)

    const id = callId(slowLog, 'slow', (a) => a.tag === 'too-slow')
    expect(id).toBeDefined()
    await waitFor(
      () => jsonLines<FixtureLog>(slowLog).some((l) => l.method === 'notifications/cancelled' && l.params?.requestId === id),
      10_000,
      'notifications/cancelled after the timeout',
    )
    await waitFor(() => jsonLines<FixtureLog>(slowLog).some((l) => l.event === 'cancelled' && l.id === id), 10_000, 'the upstream to stop early')

    const quick = await c.call('call_tool_read', { name: 'slowpoke:echo', args: { text: 'after timeout' } })
    expect(textOf(quick)).toBe('echo: after timeout')
    const fast = await c.call('call_tool_read', { name: 'slowpoke:slow', args: { ms: 10 } })
    expect(fast.isError, allText(fast)).toBeFalsy()
    const other = await c.call('call_tool_read', { name: 'fx2:quick', args: { n: 1 } })
    expect(jsonOf(other)).toEqual({ tool: 'quick', arguments: { n: 1 } })
  })
})
