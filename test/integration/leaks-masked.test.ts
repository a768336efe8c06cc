// "nothing leaks", tried from outside against a live `toolgate serve`: an
// upstream that prints the secret it was given (a `${secret:}` value, a plain DB_PASS env value)
// in its tool description, input schema, results (plain, split across two text blocks,
// URL-encoded, base64 in a resource blob, structuredContent), error result, JSON-RPC error,
// progress message and stderr. No agent (MCP), no file in the data dir (state.json,
// catalog.json, the log, activity), no API answer and no CLI output carries it; the log has the
// upstream's raw C1 and bidi characters as \u escapes. And an OAuth upstream that echoes the
// bearer token it was sent: the token never reaches the caller.
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ROOT, allFiles, assertBuilt, runCli, startServe, tempDir, waitForServerState, waitForToolStatus, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, textOf, type McpHandle } from '../helpers/mcp-client'
import { createLogger } from '../../src/main/core/log'
import { OAuthService } from '../../src/main/core/oauth/service'
import { Upstream } from '../../src/main/core/upstream/upstream'
import type { ServerConfig } from '../../src/shared/config-schema'
import { followAuthorization, MemorySlots, startOAuthFixture, type OAuthFixture } from '../helpers/oauth-fixture'
import { waitFor } from '../helpers/wait'

const LEAKY = path.join(ROOT, 'test/fixtures/servers/leaky-server.mjs')
/** a token-looking secret, given as ${secret:LEAK} */
const TOKEN = `lk_${randomBytes(16).toString('hex')}`
/** a password that looks like nothing in particular, given as a plain env value under a secret name */
const PASSWORD = 'Horse-Battery-Staple'

/** Every form the test looks for: the value, URL-encoded, and 12-character windows of it (a split or partly decoded copy). */
function leaksIn(text: string, secret: string): string[] {
  const found: string[] = []
  if (text.includes(secret)) found.push('whole')
  if (text.includes(encodeURIComponent(`${secret}/+=`))) found.push('url-encoded')
  for (let i = 0; i + 12 <= secret.length; i += 4) if (text.includes(secret.slice(i, i + 12))) found.push(`window ${i}`)
  return found
}

function expectNoLeak(text: string, what: string): void {
  expect(leaksIn(text, TOKEN), `${what}: the token`).toEqual([])
  expect(leaksIn(text, PASSWORD), `${what}: the password`).toEqual([])
}

/** A base64 text decoded, to look inside it (what an agent could do with a blob). */
const decoded = (b64: string): string => Buffer.from(b64, 'base64').toString('latin1')

useCleanup()

describe('an upstream that prints the secrets it was given', () => {
  let tmp: string
  let serve: Serve
  let agent: McpHandle

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-leaks-')
    const dataDir = path.join(tmp, 'data')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {
        leaky: { command: process.execPath, args: [LEAKY], env: { LEAK_TOKEN: '${secret:LEAK}' }, quarantined: false },
        pass: { command: process.execPath, args: [LEAKY], env: { LEAK_VAR: 'DB_PASS', DB_PASS: PASSWORD }, quarantined: false },
      },
    })
    const set = await runCli(['secrets', 'set', 'LEAK', '--config', configPath, '--data-dir', dataDir], { input: `${TOKEN}\n` })
    expect(set.code, set.stderr).toBe(0)
    serve = await startServe({ configPath, dataDir })
    await waitForServerState(serve, 'leaky', 'connected')
    await waitForServerState(serve, 'pass', 'connected')
    await waitForToolStatus(serve, 'leaky:leak', 'callable')
    await waitForToolStatus(serve, 'pass:leak', 'callable')
    agent = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
  }, 90_000)

  afterAll(async () => {
    await agent?.close().catch(() => {})
    await stopServe(serve)
  })

  it('an agent searching and describing sees the description and schema with the secret masked', async () => {
    const found = await agent.call('retrieve_tools', { query: 'reads your data authenticate token', limit: 10 })
    const text = textOf(found)
    expectNoLeak(text, 'retrieve_tools')
    const names = (JSON.parse(text) as { tools: Array<{ name: string; description: string }> }).tools
    const leak = names.find((t) => t.name === 'leaky:leak')
    expect(leak?.description).toBe('Reads your data. Authenticate with token *** when asked.')
    expect(names.find((t) => t.name === 'pass:leak')?.description).toBe('Reads your data. Authenticate with token *** when asked.')
    for (const name of ['leaky:leak', 'pass:leak']) {
      const described = await agent.call('describe_tool', { name })
      expectNoLeak(textOf(described), `describe_tool ${name}`)
      expect(textOf(described)).toContain('"default":"***"')
    }
  })

  it('a result: plain, split across two blocks, URL-encoded, base64 in a blob, structured: all masked', async () => {
    for (const server of ['leaky', 'pass']) {
      const r = (await agent.client.callTool({ name: 'call_tool_read', arguments: { name: `${server}:leak` } })) as {
        isError?: boolean
        content: Array<{ type: string; text?: string; resource?: { blob?: string } }>
        structuredContent?: Record<string, unknown>
      }
      expect(r.isError, JSON.stringify(r)).toBeFalsy()
      expectNoLeak(JSON.stringify(r), `${server} result`)
      expect(r.content[0].text).toBe('your token is ***')
      const joined = r.content.map((c) => c.text ?? '').join('')
      expectNoLeak(joined, `${server}: the text blocks read as one`)
      const blob = r.content.find((c) => c.type === 'resource')?.resource?.blob ?? ''
      // still valid base64 (the SDK checks): the secret's bytes decode to stars
      expect(decoded(blob)).toMatch(/^Authorization: Bearer .{0,2}\*{12,}/)
      expectNoLeak(decoded(blob), `${server}: the blob decoded`)
      expect(r.structuredContent).toEqual({ token: '***', env: { LEAK: '***' } })
    }
  })

  it('progress messages, an error result and a JSON-RPC error are masked too', async () => {
    const messages: string[] = []
    const transport = agent.client.transport as NonNullable<typeof agent.client.transport>
    const inner = transport.onmessage
    transport.onmessage = (m, extra) => {
      if ('method' in m && m.method === 'notifications/progress') messages.push(String((m.params as { message?: string }).message))
      inner?.(m, extra)
    }
    try {
      await agent.client.callTool({ name: 'call_tool_read', arguments: { name: 'leaky:leak' } }, undefined, { onprogress: () => {} })
    } finally {
      transport.onmessage = inner
    }
    expect(messages).toEqual(['using ***'])
    const failed = await agent.call('call_tool_read', { name: 'leaky:leak_error' })
    expect(failed.isError).toBe(true)
    expect(textOf(failed)).toBe('denied for ***')
    const rpc = await agent.call('call_tool_read', { name: 'pass:leak_fail' })
    expect(rpc.isError).toBe(true)
    expect(textOf(rpc)).toContain('backend refused ***')
    expectNoLeak(textOf(rpc), 'JSON-RPC error')
  })

  it('no file in the data dir, no API answer and no CLI output carries a secret; the log escapes C1 and bidi', async () => {
    // the activity of the calls above and the upstreams' stderr are written by now
    await waitFor(
      () => {
        const names = allFiles(serve.dataDir).map((f) => path.basename(f.file))
        return names.includes('catalog.json') && allFiles(serve.dataDir).some((f) => f.text.includes('leak_fail called'))
      },
      10_000,
      'catalog.json and the stderr line in the log',
    )
    const files = allFiles(serve.dataDir)
    for (const want of ['state.json', 'catalog.json', 'toolgate.log']) expect(files.map((f) => path.basename(f.file))).toContain(want)
    expect(files.some((f) => f.file.includes(`${path.sep}activity${path.sep}`))).toBe(true)
    for (const f of files) expectNoLeak(f.text, f.file)
    const log = files.find((f) => f.file.endsWith('toolgate.log'))?.text ?? ''
    expect(log).toContain('leaky-server: starting with token ***')
    expect(log).not.toMatch(/[\u0080-\u009f\u202a-\u202e\u2066-\u2069]/)
    expect(log).toContain('\\u009b31m red \\u202eexe.txt')
    expectNoLeak(serve.stderr(), 'serve stderr')
    expect(serve.stderr()).not.toMatch(/[\u0080-\u009f\u202a-\u202e]/)

    for (const p of ['/api/v1/servers', '/api/v1/servers/leaky/tools', '/api/v1/servers/pass/tools', '/api/v1/activity?limit=500', '/api/v1/search?q=token']) {
      const r = await serve.api('GET', p)
      expect(r.status, p).toBe(200)
      expectNoLeak(r.text, p)
    }
    for (const args of [
      ['tools', 'list', 'leaky'],
      ['tools', 'list', 'pass', '--json'],
      ['activity', '--json'],
      ['servers', 'list', '--json'],
    ]) {
      const r = await runCli([...args, ...serve.flags])
      expect(r.code, r.stderr).toBe(0)
      expectNoLeak(r.stdout + r.stderr, args.join(' '))
    }
  })
})

describe('an OAuth upstream that echoes the bearer token it was sent', () => {
  let fx: OAuthFixture
  let up: Upstream | null = null

  afterAll(async () => {
    await up?.stop()
    await fx?.stop()
  })

  it('the token never reaches the caller', async () => {
    fx = await startOAuthFixture(['--leaky'])
    const dir = tempDir('toolgate-oauth-leak-')
    const config: ServerConfig = { name: 'remote', url: fx.url, protocol: 'auto', enabled: true, trust: 'manual' }
    const logger = createLogger({ dataDir: dir, stderr: false, level: 'debug' })
    const oauth = new OAuthService({
      slots: new MemorySlots(),
      storedIn: () => 'memory (test)',
      logger,
      listenerUrl: () => 'http://127.0.0.1:9',
      serverConfig: (name) => (name === config.name ? config : null),
    })
    const started = await oauth.start(config)
    const answer = await oauth.callback((await followAuthorization(started.authorization_url)).searchParams)
    expect(answer.status, answer.message).toBe(200)
    up = new Upstream(config, { logger, limits: { maxTools: 100, maxDescriptionChars: 8000, maxResultBytes: 1024 * 1024 }, oauth, pingIntervalMs: 0 })
    up.start()
    await waitFor(() => up?.state === 'connected', 15_000, 'connected')
    const r = await up.callTool('leak_token', {}, { timeoutMs: 10_000 })
    const seen = (await fx.state()).seen
    expect(seen.length).toBeGreaterThan(0)
    const text = JSON.stringify(r)
    expect(text).toContain('you called with Bearer ***')
    for (const token of seen) expect(text.includes(token), 'the bearer token in the result').toBe(false)
  })
})
