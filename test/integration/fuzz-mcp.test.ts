// Fuzz pass over the agent-facing MCP tools, through one `toolgate stdio` session (an embedded
// owner with real fixture upstreams): seeded random JSON, 1 MB strings, wrong types, nested junk
// and prototype-pollution keys as arguments of retrieve_tools, call_tool_*, describe_tool and
// upstream_servers, plus raw protocol junk. Every answer must be a clear error or a valid result,
// the process must stay alive, stdout must carry nothing but JSON-RPC, the session must survive,
// and a final normal request must give the same bytes as before the fuzzing.
// Replay a failure with the seed printed in the assertion message.
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, fixtureEntry, processRunning, tempDir, waitFor, writeJson } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { rawStdio, type RawSession, type RawStdioClient, type ToolResult } from '../helpers/mcp-client'
import { INTERNAL_ERROR_RE, Rand, hugeString } from '../helpers/faults'

useCleanup()

const CASES = 300
const SEED = Number(process.env.FUZZ_SEED ?? 20261125)

type Outcome = { kind: 'result'; result: ToolResult } | { kind: 'rpc-error'; code: number; message: string }

describe('fuzzing the MCP tools over one stdio session', () => {
  let session: RawSession
  let c: RawStdioClient
  let baseline: string
  let configPath: string
  const problems: string[] = []
  /** JSON-RPC -32603 (Internal error) answers to client mistakes: reported by their own test */
  const internalCodes: string[] = []

  beforeAll(async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-fuzz-mcp-')
    const tools = writeJson(path.join(tmp, 'fx-tools.json'), [
      { name: 'read_it', description: 'Read the widget state', annotations: { readOnlyHint: true } },
      { name: 'write_it', description: 'Write the widget state', annotations: { readOnlyHint: false } },
      { name: 'nuke_it', description: 'Destroy the widget', annotations: { destructiveHint: true } },
      { name: 'denied_one', description: 'A tool the operator denied', annotations: { readOnlyHint: true } },
    ])
    const qTools = writeJson(path.join(tmp, 'q-tools.json'), [{ name: 'hidden', description: 'Quarantined tool' }])
    configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {
        fx: fixtureEntry(tools, path.join(tmp, 'fx.log'), { quarantined: false, disabled_tools: ['denied_one'] }),
        q: fixtureEntry(qTools, path.join(tmp, 'q.log')),
      },
    })
    session = await rawStdio(['--config', configPath, '--data-dir', path.join(tmp, 'data')])
    c = session.client
    await c.initialize()
    await waitFor(
      async () => {
        const r = await c.callTool('upstream_servers', { operation: 'list' })
        const servers = (JSON.parse(r.content[0].text as string) as { servers: Array<{ name: string; state: string }> }).servers
        return servers.find((s) => s.name === 'fx')?.state === 'connected'
      },
      45_000,
      'fx connected',
    )
    baseline = await normalSearch()
  }, 90_000)

  afterAll(async () => {
    await c?.close().catch(() => {})
  })

  async function normalSearch(): Promise<string> {
    const r = await c.callTool('retrieve_tools', { query: 'widget state', include_disabled: true })
    return r.content[0].text as string
  }

  /** Sends one tools/call with arbitrary params (anything JSON) and classifies the answer. */
  async function send(params: unknown): Promise<Outcome> {
    try {
      const result = (await c.request('tools/call', params as Record<string, unknown>, 60_000)) as unknown as ToolResult
      return { kind: 'result', result }
    } catch (e) {
      const rpc = (e as { rpc?: { code: number; message: string } }).rpc
      if (!rpc) throw e // a timeout or the process died: that is a failure, not an answer
      return { kind: 'rpc-error', code: rpc.code, message: rpc.message }
    }
  }

  function check(label: string, params: unknown, o: Outcome, expectOk?: (r: ToolResult) => string | null): void {
    const shown = JSON.stringify(params)?.slice(0, 300)
    if (o.kind === 'rpc-error') {
      if (typeof o.code !== 'number' || !o.message || INTERNAL_ERROR_RE.test(o.message)) {
        problems.push(`${label}: unclear JSON-RPC error ${o.code} "${o.message.slice(0, 300)}" for ${shown}`)
      }
      if (o.code === -32603) internalCodes.push(`${label}: ${shown}`)
      return
    }
    const r = o.result
    if (!Array.isArray(r.content) || r.content.length === 0) {
      problems.push(`${label}: result without content for ${shown}: ${JSON.stringify(r).slice(0, 300)}`)
      return
    }
    const text = r.content.find((b) => b.type === 'text')?.text
    if (r.isError) {
      if (!text || text.trim().length < 10 || INTERNAL_ERROR_RE.test(text))
        problems.push(`${label}: unclear error "${String(text).slice(0, 300)}" for ${shown}`)
      return
    }
    const bad = expectOk?.(r)
    if (bad) problems.push(`${label}: ${bad} for ${shown}`)
  }

  const retrieveOk = (r: ToolResult): string | null => {
    try {
      const j = JSON.parse(r.content[0].text as string) as { tools?: unknown[]; total?: number }
      return Array.isArray(j.tools) && j.total === j.tools.length ? null : 'retrieve_tools result without tools/total'
    } catch {
      return 'retrieve_tools result is not JSON'
    }
  }

  /** A value for a given key: usually of a plausible shape, often of the wrong type or junk. */
  function value(rand: Rand, plausible: () => unknown): unknown {
    const k = rand.next()
    if (k < 0.35) return plausible()
    if (k < 0.45) return hugeString(rand.pick([1024 * 1024, 64 * 1024, 1000]))
    if (k < 0.5) return rand.deep(rand.int(50, 400))
    return rand.json(3)
  }

  /** Arguments: an object with some of the expected keys, extra junk keys, or not an object at all. */
  function args(rand: Rand, fields: Record<string, () => unknown>): unknown {
    const k = rand.next()
    if (k < 0.08) return rand.json(2) // maybe not an object at all
    const o: Record<string, unknown> = {}
    for (const [key, plausible] of Object.entries(fields)) if (rand.bool(0.75)) o[key] = value(rand, plausible)
    const own = (key: string, v: unknown): void => void Object.defineProperty(o, key, { value: v, enumerable: true, configurable: true, writable: true })
    for (let i = rand.int(0, 2); i > 0; i--) own(rand.key(), rand.json(2))
    if (rand.bool(0.1)) own('__proto__', { include_disabled: true, polluted: true, name: 'fx:nuke_it' })
    if (rand.bool(0.05)) own('constructor', { prototype: { polluted: true } })
    return o
  }

  const toolNames = (rand: Rand): string =>
    rand.pick([
      'fx:read_it',
      'fx:write_it',
      'fx:nuke_it',
      'fx:denied_one',
      'q:hidden',
      'fx:__proto__',
      '__proto__:x',
      'constructor:constructor',
      'fx:',
      ':read_it',
      'nope:nothing',
      rand.string(30),
    ])

  const surfaces: Array<{ tool: string; gen: (rand: Rand) => unknown; ok?: (r: ToolResult) => string | null }> = [
    {
      tool: 'retrieve_tools',
      gen: (rand) =>
        args(rand, {
          query: () => rand.pick(['read', 'widget state', 'destroy', rand.string(20), '']),
          limit: () => rand.pick([1, 5, 100, 0, -1, 101, 2.5, '5', null]),
          include_disabled: () => rand.pick([true, false, 'true', 1, null]),
        }),
      ok: retrieveOk,
    },
    { tool: 'call_tool_read', gen: (rand) => args(rand, { name: () => toolNames(rand), args: () => rand.json(3) }) },
    { tool: 'call_tool_write', gen: (rand) => args(rand, { name: () => toolNames(rand), args: () => rand.json(3) }) },
    { tool: 'call_tool_destructive', gen: (rand) => args(rand, { name: () => toolNames(rand), args: () => rand.json(3) }) },
    { tool: 'describe_tool', gen: (rand) => args(rand, { name: () => toolNames(rand) }) },
    {
      tool: 'upstream_servers',
      gen: (rand) =>
        args(rand, {
          operation: () => rand.pick(['list', 'get', 'add', 'remove', 'enable', 'disable', 'restart', 'approve', 'LIST', '', 'quarantine']),
          name: () => rand.pick(['fx', 'q', 'nope', '__proto__', 'constructor', 'toString', 'hasOwnProperty', `fz${rand.int(0, 30)}`, rand.string(20)]),
          command: () => rand.pick(['node', '/bin/false', rand.string(20)]),
          args: () => rand.pick([['x'], [], [1, 2], 'x']),
          env: () => rand.pick([{ A: 'b' }, { A: 1 }, []]),
          url: () => rand.pick(['http://127.0.0.1:1/mcp', 'not a url', 'javascript:alert(1)', 'file:///etc/passwd']),
          protocol: () => rand.pick(['stdio', 'http', 'sse', 'bogus']),
          headers: () => rand.pick([{ Authorization: 'Bearer x' }, { A: 1 }]),
        }),
    },
  ]

  for (const [i, surface] of surfaces.entries()) {
    it(`${surface.tool}: ${CASES} random argument sets answer with a clear error or a valid result (seed ${SEED + i})`, async () => {
      const rand = new Rand(SEED + i)
      const before = problems.length
      for (let n = 0; n < CASES; n++) {
        const a = surface.gen(rand)
        const params = { name: surface.tool, arguments: a }
        check(`${surface.tool} #${n} (seed ${SEED + i})`, params, await send(params), surface.ok)
        if (n % 100 === 99) {
          expect(processRunning(c.child.pid as number)).toBe(true)
          expect(await normalSearch()).toBe(baseline)
        }
      }
      expect(problems.slice(before)).toEqual([])
      expect(session.client.badLines, 'non-JSON lines on stdout').toBeUndefined()
    }, 180_000)
  }

  it(`tools/call and other requests with malformed params, unknown methods and junk lines: clear errors, the session survives (seed ${SEED + 99})`, async () => {
    const rand = new Rand(SEED + 99)
    const before = problems.length
    for (let n = 0; n < CASES; n++) {
      const kind = rand.int(0, 4)
      if (kind === 0) {
        // tools/call with params of the wrong shape
        const params = rand.pick([
          null,
          [],
          'x',
          42,
          { name: 42 },
          { name: null, arguments: {} },
          { arguments: {} },
          { name: rand.string(20), arguments: rand.json(2) },
          rand.json(3),
        ])
        check(`tools/call malformed #${n}`, params, await send(params))
      } else if (kind === 1) {
        const method = rand.pick([
          'tools/list',
          'resources/list',
          'prompts/list',
          'completion/complete',
          'logging/setLevel',
          rand.string(15),
          '',
          'rpc.discover',
        ])
        try {
          const r = await c.request(method, rand.json(2) as Record<string, unknown>, 30_000)
          if (r === null || typeof r !== 'object') problems.push(`${method}: non-object result ${JSON.stringify(r)}`)
        } catch (e) {
          const rpc = (e as { rpc?: { code: number; message: string } }).rpc
          if (!rpc) throw e
          if (!rpc.message || INTERNAL_ERROR_RE.test(rpc.message)) problems.push(`${method}: unclear error ${JSON.stringify(rpc)}`)
        }
      } else if (kind === 2) {
        c.notify(
          rand.pick(['notifications/cancelled', 'notifications/initialized', 'notifications/progress', rand.string(10)]),
          rand.json(2) as Record<string, unknown>,
        )
      } else if (kind === 3) {
        // raw junk lines: must get a parse error (id null) or be ignored, never break the session
        c.child.stdin?.write(
          rand.pick([
            'not json at all',
            '{"jsonrpc":"2.0"',
            '[]',
            '[{"jsonrpc":"2.0","id":"x","method":"ping"}]',
            '{}',
            '"str"',
            '\u0000\u0001',
            rand.string(50).replace(/\n/g, ' '),
          ]) + '\n',
        )
      } else {
        const r = await c.request('ping', {}, 30_000)
        if (typeof r !== 'object') problems.push(`ping answered ${JSON.stringify(r)}`)
      }
    }
    expect(problems.slice(before)).toEqual([])
    expect(session.client.badLines, 'non-JSON lines on stdout').toBeUndefined()
  }, 180_000)

  it('prototype-pollution names as servers and tools: clear answers, nothing polluted, state and config stay usable', async () => {
    const before = problems.length
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'prototype']) {
      const add = { name: 'upstream_servers', arguments: { operation: 'add', name, command: process.execPath, args: ['-e', 'process.exit(0)'] } }
      const o = await send(add)
      check(`add ${name}`, add, o)
      const get = { name: 'upstream_servers', arguments: { operation: 'get', name } }
      check(`get ${name}`, get, await send(get))
      for (const t of ['call_tool_read', 'describe_tool']) {
        const p = { name: t, arguments: { name: `${name}:${name}`, args: {} } }
        const r = await send(p)
        check(`${t} ${name}:${name}`, p, r)
        if (r.kind === 'result' && !r.result.isError) problems.push(`${t} ${name}:${name} unexpectedly succeeded`)
      }
    }
    // raw JSON with a literal "__proto__" key (JSON.stringify of a normal object cannot produce it)
    const raw =
      '{"jsonrpc":"2.0","id":"proto-1","method":"tools/call","params":{"name":"retrieve_tools","arguments":{"query":"widget","__proto__":{"include_disabled":true,"limit":1}}}}'
    const lines = session.stdoutLines.length
    c.child.stdin?.write(raw + '\n')
    const answer = await waitFor(() => session.stdoutLines.slice(lines).find((l) => l.includes('"proto-1"')), 15_000, 'the answer to the raw request')
    const msg = JSON.parse(answer) as { result?: ToolResult; error?: unknown }
    expect(msg.error ?? msg.result).toBeTruthy()

    const list = await c.callTool('upstream_servers', { operation: 'list' })
    expect(list.isError).toBeFalsy()
    const servers = (JSON.parse(list.content[0].text as string) as { servers: Array<{ name: string; state: string; quarantined: boolean }> }).servers
    for (const s of servers) if (s.name !== 'fx') expect(s.state, s.name).not.toBe('connected') // agent-added servers never run
    expect(servers.find((s) => s.name === 'fx')?.state).toBe('connected')
    expect(await normalSearch()).toBe(baseline)
    const call = await c.callTool('call_tool_read', { name: 'fx:read_it', args: { after: 'pollution' } })
    expect(call.isError).toBeFalsy()
    expect(problems.slice(before)).toEqual([])
  }, 120_000)

  it('malformed tools/call params (arguments not an object, name not a string) are answered as -32602 Invalid params, not -32603 Internal error', async () => {
    const answers: string[] = []
    for (const params of [
      { name: 'retrieve_tools', arguments: null },
      { name: 'retrieve_tools', arguments: true },
      { name: 'call_tool_read', arguments: 'fx:read_it' },
      { name: 'describe_tool', arguments: [] },
      { name: 42, arguments: {} },
      { arguments: {} },
    ]) {
      const o = await send(params)
      answers.push(
        `${JSON.stringify(params)} → ${o.kind === 'rpc-error' ? `${o.code} ${o.message.replace(/\s+/g, ' ').slice(0, 120)}` : `result isError=${o.result.isError}`}`,
      )
    }
    // a client mistake is Invalid params (or a tool result with isError), never an internal error
    expect(answers.filter((a) => / → -32603 /.test(a))).toEqual([])
    // the fuzz runs above saw the same for every non-object `arguments`
    expect(internalCodes.slice(0, 5)).toEqual([])
  })

  it('after all of it: the process is alive, stdout carried only JSON-RPC, and a normal request works', async () => {
    expect(processRunning(c.child.pid as number)).toBe(true)
    expect(session.client.badLines).toBeUndefined()
    expect(await normalSearch()).toBe(baseline)
    const r = await c.callTool('call_tool_read', { name: 'fx:read_it', args: { final: true } })
    expect(r.isError).toBeFalsy()
    expect(JSON.parse(r.content[0].text as string)).toEqual({ tool: 'read_it', arguments: { final: true } })
    expect(problems).toEqual([])
  })
})
