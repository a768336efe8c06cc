// Supervision end to end, through the real `toolgate serve` and an MCP client on /mcp:
// an upstream that crashes mid-call, an upstream that stays down for a while (calls fail fast
// with "not connected (reconnecting, attempt N)", its last known tools stay discoverable), and a
// crash loop that trips the breaker (state "error" with the reason) while the others keep working.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, fixtureEntry, logLines, processRunning, startServe, tempDir, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { jsonOf, textOf, type McpHandle } from '../helpers/mcp-client'
import { allText, gatedEntry, mcpOn, waitForAgentServer } from '../helpers/faults'

useCleanup()

describe('supervision through the proxy', () => {
  let tmp: string
  let serve: Serve
  let h: McpHandle
  let flakyLog: string
  let steadyLog: string
  let downFile: string

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-faults-sup-')
    flakyLog = path.join(tmp, 'flaky-calls.log')
    steadyLog = path.join(tmp, 'steady-calls.log')
    downFile = path.join(tmp, 'flaky.down')
    const flakyTools = writeJson(path.join(tmp, 'flaky-tools.json'), [
      { name: 'work', description: 'Do flaky work on the widget', annotations: { readOnlyHint: true } },
    ])
    const steadyTools = writeJson(path.join(tmp, 'steady-tools.json'), [
      { name: 'steady_echo', description: 'Echo steadily', annotations: { readOnlyHint: true } },
    ])
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {
        flaky: gatedEntry(flakyTools, flakyLog, downFile),
        steady: fixtureEntry(steadyTools, steadyLog, { quarantined: false }),
        // a command that exits at once, every time: a crash loop
        loop: {
          command: process.execPath,
          args: ['-e', 'process.stderr.write("loop: missing dependency libfoo\\n"); process.exit(7)'],
          quarantined: false,
        },
      },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    h = await mcpOn(serve)
    await waitForAgentServer(h, 'flaky', (s) => s.state === 'connected', 'connected')
    await waitForAgentServer(h, 'steady', (s) => s.state === 'connected', 'connected')
  }, 90_000)

  afterAll(async () => {
    await h?.close().catch(() => {})
    await stopServe(serve)
  })

  const work = (args: Record<string, unknown> = {}) => h.call('call_tool_read', { name: 'flaky:work', args })
  const steadyWorks = async (tag: string): Promise<void> => {
    const r = await h.call('call_tool_read', { name: 'steady:steady_echo', args: { tag } })
    expect(r.isError, allText(r)).toBeFalsy()
    expect(jsonOf(r)).toEqual({ tool: 'steady_echo', arguments: { tag } })
  }

  it('an upstream that crashes mid-call gives the agent a clear isError; the proxy survives and the server comes back', async () => {
    const r = await work({ crash: true })
    expect(r.isError).toBe(true)
    const text = allText(r)
    expect(text).toContain('flaky:work')
    expect(text).toMatch(/exited with code 3|disconnected|connection closed|crash/i)
    expect(logLines(flakyLog).some((l) => l.arguments.crash === true)).toBe(true)

    expect(processRunning(serve.pid)).toBe(true)
    await steadyWorks('after-crash')

    await waitForAgentServer(h, 'flaky', (s) => s.state === 'connected', 'reconnected after the crash')
    const ok = await work({ n: 1 })
    expect(ok.isError, allText(ok)).toBeFalsy()
    expect(jsonOf(ok)).toEqual({ tool: 'work', arguments: { n: 1 } })
  })

  it('while an upstream is down, calls fail fast with "not connected (reconnecting, attempt N)" and its tools stay discoverable', async () => {
    fs.writeFileSync(downFile, 'down')
    try {
      const crashed = await work({ crash: true })
      expect(crashed.isError).toBe(true)

      const entry = await waitForAgentServer(
        h,
        'flaky',
        (s) => s.state === 'connecting' && /reconnecting, attempt \d+/.test(s.last_error ?? ''),
        'reconnecting',
      )
      // the first failure after the crash names the crash (exit 3); later attempts name the gate (exit 1)
      expect(entry.last_error).toMatch(/exited with code [13]/)

      const callsBefore = logLines(flakyLog).length
      const r = await work({ during: 'downtime' })
      expect(r.isError).toBe(true)
      const text = allText(r)
      expect(text).toContain('not connected')
      expect(text).toMatch(/reconnecting, attempt \d+/)
      expect(text).toContain('flaky')
      expect(logLines(flakyLog).length).toBe(callsBefore) // nothing reached an upstream

      // the last known tools stay in the catalog: discoverable and describable
      const found = jsonOf<{ tools: Array<{ name: string; call_with: string }> }>(await h.call('retrieve_tools', { query: 'flaky work widget' }))
      expect(found.tools.map((t) => t.name)).toContain('flaky:work')
      expect(found.tools.find((t) => t.name === 'flaky:work')?.call_with).toBe('call_tool_read')
      const described = await h.call('describe_tool', { name: 'flaky:work' })
      expect(described.isError, allText(described)).toBeFalsy()
      expect(jsonOf(described)).toMatchObject({ name: 'flaky:work', description: 'Do flaky work on the widget' })

      const api = await serve.api<{ servers: Array<{ name: string; state: string; last_error: string | null }> }>('GET', '/api/v1/servers')
      const flaky = api.json.servers.find((s) => s.name === 'flaky')
      expect(flaky?.state).toBe('connecting')
      expect(flaky?.last_error).toMatch(/reconnecting, attempt \d+/)

      await steadyWorks('during-downtime')
    } finally {
      fs.rmSync(downFile, { force: true }) // the dependency is back
    }
    await waitForAgentServer(h, 'flaky', (s) => s.state === 'connected', 'connected again once the dependency is back', 60_000)
    const ok = await work({ n: 2 })
    expect(ok.isError, allText(ok)).toBeFalsy()
    expect(jsonOf(ok)).toEqual({ tool: 'work', arguments: { n: 2 } })
  })

  it('a crash loop trips the breaker: state "error" with the reason, while the other servers stay connected and callable', async () => {
    const entry = await waitForAgentServer(h, 'loop', (s) => s.state === 'error', 'state error (crash-loop breaker)', 150_000)
    expect(entry.last_error).toBeTruthy()
    expect(entry.last_error).toMatch(/exited with code 7/)
    expect(entry.last_error).toMatch(/missing dependency libfoo/)
    expect(entry.last_error).toMatch(/gave up|consecutive failures/)

    const api = await serve.api<{ servers: Array<{ name: string; state: string; last_error: string | null }> }>('GET', '/api/v1/servers')
    const loop = api.json.servers.find((s) => s.name === 'loop')
    expect(loop?.state).toBe('error')
    expect(loop?.last_error).toMatch(/exited with code 7/)
    for (const name of ['flaky', 'steady']) expect(api.json.servers.find((s) => s.name === name)?.state, name).toBe('connected')

    const get = jsonOf<{ server: { state: string; last_error?: string } }>(await h.call('upstream_servers', { operation: 'get', name: 'loop' }))
    expect(get.server.state).toBe('error')
    expect(get.server.last_error).toMatch(/exited with code 7/)

    await steadyWorks('next-to-a-crash-loop')
    const ok = await work({ n: 3 })
    expect(ok.isError, allText(ok)).toBeFalsy()
    expect(processRunning(serve.pid)).toBe(true)

    // an operator restart leaves the error state and tries again
    const restart = await serve.api('POST', '/api/v1/servers/loop/restart')
    expect(restart.status).toBe(200)
    await waitForAgentServer(h, 'loop', (s) => s.state === 'connecting', 'retrying after a restart')
    expect(textOf(await h.call('retrieve_tools', { query: 'steady echo' }))).toContain('steady:steady_echo')
  }, 180_000)
})
