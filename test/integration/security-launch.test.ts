// Inspect and masking: what the user reviews is the full launch (command, every
// argument, cwd, env keys, URL, header names) on every review surface, while logs, last_error
// and targets mask secrets: every env value, secret KEY=value arguments, token-like URL path
// segments. Agents may add servers only with name, command, args, url and protocol.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, fixtureEntry, freePort, processesMatching, runCli, startServe, tempDir, waitFor, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, jsonOf, textOf, type McpHandle } from '../helpers/mcp-client'

interface EnvVar {
  name: string
  value: string
  masked: boolean
}
interface Launch {
  command?: string
  args?: string[]
  cwd?: string
  env?: EnvVar[]
  url?: string
  header_names?: string[]
}
interface Server {
  name: string
  state: string
  last_error: string | null
  target: string
  launch: Launch
}

// Code after -e that a token heuristic would mask (no spaces, letters and digits): it must be shown.
const EVAL_CODE = "eval(Buffer.from('Y29uc29sZS5sb2coMSk7cHJvY2Vzcy5leGl0KDAp','base64').toString())"
const NODE_OPTIONS = '--import=data:text/javascript,process.exit(7)'
const GITHUB_TOKEN = 'ghp_R8xk2LmQ9vT4nW7pZ3sY6aB1cD5eF0gH'
const OPAQUE = 'Zx9Kq2Lm8Np4Rt6Vw1Yb3Cd5'
const SHORT_SECRET = 'q7Zp'
const URL_TOKEN = 'AbCdEf0123456789XyZ0123456789qRsT'
const BEARER = 'Bearer very-secret-bearer-value'

useCleanup()

describe('review surfaces show the full launch; logs and last_error mask secrets', () => {
  let tmp: string
  let serve: Serve
  let mcp: McpHandle
  let workDir: string
  let fxTools: string

  const server = async (name: string): Promise<Server> => {
    const r = await serve.api<{ server: Server }>('GET', `/api/v1/servers/${name}`)
    expect(r.status, r.text).toBe(200)
    return r.json.server
  }

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-launch-')
    workDir = path.join(tmp, 'work dir')
    fs.mkdirSync(workDir)
    fxTools = writeJson(path.join(tmp, 'fx-tools.json'), [{ name: 'fx_echo', description: 'Echo the input back', annotations: { readOnlyHint: true } }])
    const deadPort = await freePort()
    const configPath = path.join(tmp, 'mcp_config.json')
    writeJson(configPath, {
      mcpServers: {
        // quarantined (no key): never started, reviewed by its launch
        evalsrv: {
          command: process.execPath,
          args: ['-e', EVAL_CODE, 'API_KEY=sk-live-123456', '--token', 'tok-abc'],
          cwd: workDir,
          env: { NODE_OPTIONS, GITHUB_TOKEN, PLAIN: 'hello', LOOKS: OPAQUE },
        },
        // runs and fails at once, printing its short env secret and the token URL on stderr
        leaky: {
          command: process.execPath,
          // the URL is put together at run time: the token is not in the (reviewable) code itself
          args: [
            '-e',
            `console.error('leaking ' + process.env.PIN + ' http://127.0.0.1:${deadPort}/mcp/' + ${JSON.stringify(URL_TOKEN.match(/.{1,8}/g))}.join('')); process.exit(3)`,
          ],
          env: { PIN: SHORT_SECRET },
          quarantined: false,
        },
        remote: {
          url: `http://127.0.0.1:${deadPort}/mcp/${URL_TOKEN}`,
          headers: { Authorization: BEARER, 'X-Tenant': 'acme' },
          quarantined: false,
        },
        fx: fixtureEntry(fxTools, path.join(tmp, 'fx.log'), { env: { FX_MODE: 'review' }, cwd: workDir }),
      },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    mcp = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
    const listed = async (name: string): Promise<Server | undefined> =>
      (await serve.api<{ servers: Server[] }>('GET', '/api/v1/servers')).json.servers.find((s) => s.name === name)
    await waitFor(
      async () => (await listed('leaky'))?.last_error?.includes('leaking') && (await listed('remote'))?.last_error,
      30_000,
      'leaky and remote to fail',
    )
  }, 90_000)

  afterAll(async () => {
    await mcp?.close().catch(() => {})
    await stopServe(serve)
  })

  it('GET /api/v1/servers/:name shows command, every argument (code after -e unmasked), cwd and every env key', async () => {
    const s = await server('evalsrv')
    expect(s.name).toBe('evalsrv')
    expect(s.launch.command).toBe(process.execPath)
    expect(s.launch.args).toEqual(['-e', EVAL_CODE, 'API_KEY=***', '--token', '***'])
    expect(s.launch.cwd).toBe(workDir)
    expect(s.launch.env).toEqual([
      { name: 'NODE_OPTIONS', value: NODE_OPTIONS, masked: false },
      { name: 'GITHUB_TOKEN', value: '***', masked: true },
      { name: 'PLAIN', value: 'hello', masked: false },
      { name: 'LOOKS', value: '***', masked: true },
    ])
    expect(JSON.stringify(s)).not.toContain(GITHUB_TOKEN)
    expect(JSON.stringify(s)).not.toContain(OPAQUE)
    expect(JSON.stringify(s)).not.toContain('sk-live-123456')
    // the list carries the same launch
    const list = (await serve.api<{ servers: Server[] }>('GET', '/api/v1/servers')).json.servers
    expect(list.find((x) => x.name === 'evalsrv')?.launch).toEqual(s.launch)
    const missing = await serve.api('GET', '/api/v1/servers/nope')
    expect(missing.status).toBe(404)
  })

  it('an HTTP server shows its URL with token-like path segments masked and its header names, never header values', async () => {
    const s = await server('remote')
    expect(s.launch.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp\/\*\*\*$/)
    expect(s.launch.header_names).toEqual(['Authorization', 'X-Tenant'])
    expect(JSON.stringify(s)).not.toContain(URL_TOKEN)
    expect(JSON.stringify(s)).not.toContain('very-secret-bearer-value')
    expect(s.last_error).toBeTruthy()
  })

  it('last_error and the logs mask every env value and token-like URL segments (control API and upstream_servers)', async () => {
    const leaky = await server('leaky')
    expect(leaky.last_error).toContain('leaking')
    expect(leaky.last_error).not.toContain(SHORT_SECRET)
    expect(leaky.last_error).not.toContain(URL_TOKEN)
    const agentView = jsonOf<{ servers: Array<{ name: string; last_error?: string }> }>(await mcp.call('upstream_servers', { operation: 'list' }))
    const text = JSON.stringify(agentView)
    expect(text).toContain('leaking')
    expect(text).not.toContain(SHORT_SECRET)
    expect(text).not.toContain(URL_TOKEN)
    const log = fs.readFileSync(path.join(serve.dataDir, 'logs', 'toolgate.log'), 'utf8')
    expect(log).toContain('leaking')
    for (const secret of [SHORT_SECRET, URL_TOKEN, GITHUB_TOKEN, 'very-secret-bearer-value', 'sk-live-123456']) expect(log).not.toContain(secret)
  })

  it('`toolgate servers list` shows the launch (cwd, env, command, args) with the same masking', async () => {
    const r = await runCli(['servers', 'list', ...serve.flags])
    expect(r.code, r.stderr).toBe(0)
    const lines = r.stdout.split('\n')
    const launchLine = lines.find((l) => l.includes(EVAL_CODE))
    expect(launchLine, r.stdout).toBeDefined()
    expect(launchLine).toContain(workDir)
    expect(launchLine).toContain(`NODE_OPTIONS=${NODE_OPTIONS}`)
    expect(launchLine).toContain('GITHUB_TOKEN=***')
    expect(launchLine).toContain('PLAIN=hello')
    expect(r.stdout).toContain('Authorization')
    expect(r.stdout).not.toContain(GITHUB_TOKEN)
    expect(r.stdout).not.toContain(URL_TOKEN)
  })

  it('`toolgate servers inspect` prints the launch before it runs the program', async () => {
    const r = await runCli(['servers', 'inspect', 'fx', ...serve.flags])
    expect(r.code, r.stderr).toBe(0)
    const runs = r.stdout.indexOf('FX_MODE=review')
    const inspected = r.stdout.indexOf('Inspected fx')
    expect(runs, r.stdout).toBeGreaterThanOrEqual(0)
    expect(inspected).toBeGreaterThan(runs)
    expect(r.stdout.slice(0, inspected)).toMatch(/runs this program/i)
    expect(r.stdout.slice(0, inspected)).toContain(workDir)
    expect(r.stdout).toContain('fx:fx_echo')
    await waitFor(() => processesMatching(fxTools).length === 0, 10_000, 'the inspected process to stop')
  })

  it('agents may add a server only with name, command, args, url and protocol', async () => {
    const base = { operation: 'add', command: process.execPath, args: ['x.js'] }
    for (const [key, value] of Object.entries({
      env: { NODE_OPTIONS: '--import=data:text/javascript,1' },
      cwd: '/tmp',
      headers: { Authorization: 'x' },
      quarantined: false,
      trust: 'auto',
      enabled_tools: ['a'],
      disabled_tools: ['b'],
      enabled: true,
    })) {
      const r = await mcp.call('upstream_servers', { ...base, name: `bad-${key.replace('_', '-')}`, [key]: value })
      expect(r.isError, key).toBe(true)
      expect(textOf(r)).toContain(`"${key}"`)
      expect(textOf(r)).toMatch(/the user/i)
    }
    const servers = (await serve.api<{ servers: Server[] }>('GET', '/api/v1/servers')).json.servers.map((s) => s.name)
    expect(servers.filter((n) => n.startsWith('bad-'))).toEqual([])
    const ok = await mcp.call('upstream_servers', { ...base, name: 'plain-add', protocol: 'stdio' })
    expect(ok.isError, textOf(ok)).toBeFalsy()
    const added = await server('plain-add')
    expect(added.state).toBe('quarantined')
    expect(added.launch).toEqual({ command: process.execPath, args: ['x.js'] })
  })
})
