// Security hardening end to end: secrets in server config (env values, header values, tokens and
// passwords in URLs, secret-looking argv) never show up in `upstream_servers`, the control API,
// operator commands, stderr or the log file, even when the servers fail and their errors (and
// their stderr, which echoes the secret) are logged at debug level; a non-loopback bind warns
// loudly; the API key compare accepts the key in both headers and rejects near-misses.
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TEST_KEY, assertBuilt, freePort, rawRequest, runCli, startServe, stopProcess, tempDir, waitFor, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { textOf, type McpHandle } from '../helpers/mcp-client'
import { logText, mcpOn, startServeOn, waitForAgentServer } from '../helpers/faults'

useCleanup()

const rnd = (): string => randomBytes(9).toString('hex')
const SECRETS = {
  env: `sekrit-env-${rnd()}`,
  env2: `sekrit-env2-${rnd()}`,
  header: `sekrit-hdr-${rnd()}`,
  header2: `sekrit-hdr2-${rnd()}`,
  urlToken: `sekrit-url-${rnd()}`,
  urlPassword: `sekrit-pw-${rnd()}`,
  argKey: `sekrit-arg-${rnd()}`,
  argToken: `sekrit-arg2-${rnd()}`,
  held: `sekrit-held-${rnd()}`,
  // a bare random token (no recognizable prefix), printed alone on stdout by `blurt`
  bare: `tok${randomBytes(18).toString('hex')}`,
}

function leaks(text: string): string[] {
  return Object.entries(SECRETS)
    .filter(([, v]) => text.includes(v))
    .map(([k]) => k)
}

describe('no secrets in outputs or logs', () => {
  let tmp: string
  let serve: Serve
  let h: McpHandle

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-faults-secrets-')
    const closedPort = await freePort() // nothing listens here: HTTP upstreams fail to connect
    // stdio servers that print their secret to stderr and stdout, then die
    const echoSecretAndDie =
      'console.error("booting with token " + process.env.API_TOKEN); console.log("not json " + process.env.API_TOKEN + " " + process.env.OTHER_SECRET); process.exit(1)'
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {
        envy: {
          command: process.execPath,
          args: ['-e', echoSecretAndDie],
          env: { API_TOKEN: SECRETS.env, OTHER_SECRET: SECRETS.env2 },
          quarantined: false,
        },
        webby: {
          url: `http://127.0.0.1:${closedPort}/mcp?token=${SECRETS.urlToken}&mode=plain`,
          headers: { Authorization: `Bearer ${SECRETS.header}`, 'X-Custom-Key': SECRETS.header2 },
          quarantined: false,
        },
        userinfo: { url: `http://admin:${SECRETS.urlPassword}@127.0.0.1:${closedPort}/sse`, protocol: 'sse', quarantined: false },
        argy: {
          command: process.execPath,
          args: [
            '-e',
            'console.error("args: " + process.argv.slice(1).join(" ")); process.exit(1)',
            '--',
            '--api-key',
            SECRETS.argKey,
            `--token=${SECRETS.argToken}`,
          ],
          quarantined: false,
        },
        blurt: {
          command: process.execPath,
          args: ['-e', 'console.log(process.env.SERVICE_TOKEN); process.exit(1)'],
          env: { SERVICE_TOKEN: SECRETS.bare },
          quarantined: false,
        },
        // never approved: quarantined; an Inspect starts it, and it dies echoing its secret
        held: {
          command: process.execPath,
          args: ['-e', 'console.error("held token " + process.env.API_TOKEN); process.exit(1)'],
          env: { API_TOKEN: SECRETS.held },
        },
      },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data'), env: { TOOLGATE_LOG_LEVEL: 'debug' } })
    h = await mcpOn(serve)
    // let every failing server fail at least twice, so its errors (and stderr) were logged
    for (const name of ['envy', 'webby', 'userinfo', 'argy', 'blurt']) {
      await waitForAgentServer(h, name, (s) => /attempt [2-9]/.test(s.last_error ?? '') || s.state === 'error', 'failing repeatedly', 45_000)
    }
  }, 90_000)

  afterAll(async () => {
    await h?.close().catch(() => {})
    await stopServe(serve)
  })

  it('the failures were logged (with their stderr), yet no secret is in the log file or on stderr', async () => {
    await waitFor(() => /booting with token/.test(logText(serve.dataDir)), 10_000, 'the upstream stderr line in the log')
    const log = logText(serve.dataDir)
    expect(log).toMatch(/envy/)
    expect(log).toMatch(/webby/)
    expect(log).toMatch(/args: /) // argy's stderr was logged, masked
    expect(leaks(log)).toEqual([])
    expect(leaks(serve.stderr())).toEqual([])
  })

  it('not even the beginning of a secret reaches the log when an upstream prints its token alone on stdout', async () => {
    await waitFor(() => /"server":"blurt"/.test(logText(serve.dataDir)), 10_000, 'blurt in the log')
    const prefix = SECRETS.bare.slice(0, 8)
    const log = logText(serve.dataDir)
    const lines = log.split('\n').filter((l) => l.includes(prefix))
    expect(lines, `log lines with the first 8 characters of blurt's SERVICE_TOKEN`).toEqual([])
    expect(serve.stderr().includes(prefix)).toBe(false)
  })

  it('upstream_servers list/get, retrieve_tools and describe errors never show a secret', async () => {
    const outputs: string[] = []
    outputs.push(textOf(await h.call('upstream_servers', { operation: 'list' })))
    for (const name of ['envy', 'webby', 'userinfo', 'argy', 'held']) {
      outputs.push(textOf(await h.call('upstream_servers', { operation: 'get', name })))
    }
    outputs.push(textOf(await h.call('retrieve_tools', { query: 'token secret', include_disabled: true })))
    outputs.push(textOf(await h.call('call_tool_read', { name: 'envy:anything', args: {} })))
    outputs.push(textOf(await h.call('describe_tool', { name: 'webby:anything' })))
    const all = outputs.join('\n')
    expect(all).toMatch(/envy/) // we did look at them
    expect(all).toMatch(/last_error/)
    expect(leaks(all)).toEqual([])
  })

  it('the control API (servers, tools, status, info, a failed Inspect) and operator commands never show a secret', async () => {
    const outputs: string[] = []
    for (const p of ['/api/v1/servers', '/api/v1/status', '/api/v1/info', '/api/v1/stats', '/api/v1/search?q=token&include_disabled=true']) {
      const r = await serve.api('GET', p)
      expect(r.status, p).toBe(200)
      outputs.push(r.text)
    }
    for (const name of ['envy', 'webby', 'userinfo', 'argy', 'held']) {
      outputs.push((await serve.api('GET', `/api/v1/servers/${name}/tools`)).text)
    }
    const inspect = await serve.api<{ error?: { message: string } }>('POST', '/api/v1/servers/held/inspect')
    expect(inspect.status).toBeGreaterThanOrEqual(400)
    expect(inspect.status).toBeLessThan(600)
    outputs.push(inspect.text)

    const servers = (await serve.api<{ servers: Array<{ name: string; last_error: string | null; target?: string }> }>('GET', '/api/v1/servers')).json.servers
    expect(servers.find((s) => s.name === 'webby')?.last_error).toBeTruthy()

    const cli = await runCli(['servers', 'list', ...serve.flags])
    outputs.push(cli.stdout, cli.stderr)
    const inspectCli = await runCli(['servers', 'inspect', 'held', ...serve.flags])
    outputs.push(inspectCli.stdout, inspectCli.stderr)

    const all = outputs.join('\n')
    expect(all).toMatch(/webby/)
    expect(leaks(all)).toEqual([])
    // and after all of that, still nothing in the log
    expect(leaks(logText(serve.dataDir))).toEqual([])
    expect(leaks(serve.stderr())).toEqual([])
  })
})

describe('binding and the API key', () => {
  it('binding a non-loopback address (0.0.0.0) logs a loud warning on stderr', async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-faults-bind-')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), { mcpServers: {} })
    const s = await startServeOn({ host: '0.0.0.0', configPath, dataDir: path.join(tmp, 'data'), key: TEST_KEY })
    try {
      await waitFor(() => /NOT LOOPBACK/.test(s.stderr()), 10_000, 'the warning on stderr')
      const line = s
        .stderr()
        .split('\n')
        .find((l) => /NOT LOOPBACK/.test(l)) as string
      expect(line).toContain('0.0.0.0')
      expect(line).toMatch(/"level":\s*40|WARN/i)
      // and the loopback default does not warn
      const r = await rawRequest(`http://127.0.0.1:${s.port}/api/v1/status`, { headers: { authorization: `Bearer ${TEST_KEY}` } })
      expect(r.status).toBe(200)
    } finally {
      s.kill('SIGTERM')
      expect(await s.exited).toEqual({ code: 0, signal: null })
    }
  })

  it('the loopback default binds quietly (no non-loopback warning)', async () => {
    const tmp = tempDir('toolgate-faults-bind-lo-')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), { mcpServers: {} })
    const s = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    try {
      expect(s.stderr()).not.toMatch(/NOT LOOPBACK/)
    } finally {
      await stopProcess(s.child)
    }
  })

  it('the API key works in both headers; near-misses (prefix, extra char, one char off, other case, other scheme) are refused', async () => {
    const tmp = tempDir('toolgate-faults-key-')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), { mcpServers: {} })
    const s = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    const key = s.key
    expect(key).toBe(TEST_KEY)
    const mid = Math.floor(key.length / 2)
    const oneOff = key.slice(0, mid) + (key[mid] === 'a' ? 'b' : 'a') + key.slice(mid + 1)
    const nearMisses = [key.slice(0, -1), `${key}x`, `${key}${key}`, key.slice(0, 8), oneOff, key.toUpperCase(), `x${key}`, '']
    const init = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'k', version: '1' } },
    })
    const mcpHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
    const probe = async (headers: Record<string, string>): Promise<[number, number]> => {
      const api = await rawRequest(`${s.url}/api/v1/status`, { headers })
      const mcp = await rawRequest(`${s.url}/mcp`, { method: 'POST', headers: { ...mcpHeaders, ...headers }, body: init })
      return [api.status, mcp.status]
    }
    try {
      expect(await probe({ authorization: `Bearer ${key}` })).toEqual([200, 200])
      expect(await probe({ 'x-api-key': key })).toEqual([200, 200])
      expect(await probe({ authorization: `bearer ${key}` })).toEqual([200, 200]) // the scheme is case-insensitive
      const wrong: string[] = []
      for (const k of nearMisses) {
        const forms: Array<Record<string, string>> = [{ authorization: `Bearer ${k}` }, { 'x-api-key': k }]
        for (const headers of forms) {
          const got = await probe(headers)
          if (got[0] !== 401 || got[1] !== 401) wrong.push(`${JSON.stringify(headers)} → ${got.join('/')}`)
        }
      }
      const otherSchemes: Array<Record<string, string>> = [
        { authorization: `Basic ${key}` },
        { authorization: `Token ${key}` },
        { authorization: key },
        { 'x-api-key': `Bearer ${key}` },
      ]
      for (const headers of otherSchemes) {
        const got = await probe(headers)
        if (got[0] !== 401 || got[1] !== 401) wrong.push(`${JSON.stringify(headers)} → ${got.join('/')}`)
      }
      expect(wrong).toEqual([])
    } finally {
      await stopProcess(s.child)
    }
  })
})
