// Secrets end to end with the real CLI: `toolgate secrets set|list|rm` against a live serve and
// with no owner, ${secret:…} and ${env:…} resolved when the server starts (a fixture server
// writes what it received to a file), a missing secret as a named server error, a changed secret
// restarting the server, an agent refused when it tries to aim a reference at its own server, and
// a grep over the data dir, the logs and every API answer that finds no secret value.
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { allFiles, apiRequest, assertBuilt, ROOT, runCli, startServe, stopProcess, tempDir, waitFor, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, textOf, type McpHandle } from '../helpers/mcp-client'

const ECHO = path.join(ROOT, 'test/fixtures/servers/echo-env-server.mjs')
const VALUE_1 = 'ghp_FirstSecretValue_0123456789abcdefXYZ'
const VALUE_2 = 'ghp_SecondSecretValue_9876543210zyxwvuQRS'
const ENV_VALUE = 'from-toolgate-env-5f1c2'

interface EchoLine {
  pid: number
  args: string[]
  env: Record<string, string | null>
}
const echoLines = (file: string): EchoLine[] =>
  fs.existsSync(file)
    ? fs
        .readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as EchoLine)
    : []

const call = apiRequest

async function serverRow(s: Serve, name: string): Promise<{ state: string; last_error: string | null; target: string }> {
  const r = await call(s, 'GET', '/api/v1/servers')
  return r.json.servers.find((x: { name: string }) => x.name === name)
}

describe('secrets with a live toolgate serve', () => {
  let dir: string
  let dataDir: string
  let configPath: string
  let echoOut: string
  let serve: Serve
  let mcp: McpHandle | null = null
  const flags = (): string[] => ['--config', configPath, '--data-dir', dataDir]
  const texts: string[] = []
  /** every answer a surface gave during the test: checked for the values at the end */
  const keep = (t: string): string => (texts.push(t), t)

  beforeAll(async () => {
    assertBuilt()
    dir = tempDir('tg-secrets-')
    dataDir = path.join(dir, 'data')
    configPath = path.join(dir, 'mcp_config.json')
    echoOut = path.join(dir, 'echo.jsonl')
    writeJson(configPath, {
      mcpServers: {
        echo: {
          command: process.execPath,
          args: [ECHO, '--token=${secret:ECHO_TOKEN}', '--home=${env:TG_TEST_ENV}'],
          env: { ECHO_OUT: echoOut, ECHO_VARS: 'TOKEN,FROM_ENV', TOKEN: '${secret:ECHO_TOKEN}', FROM_ENV: '${env:TG_TEST_ENV}' },
          cwd: dir, // writable in the sandbox: where the fixture reports what it received
          quarantined: false,
        },
        // a server an agent will try to aim the user's secret at (only its config changes)
      },
      allow_agent_server_changes: true,
    })
    serve = await startServe({ configPath, dataDir, env: { TG_TEST_ENV: ENV_VALUE } })
  }, 60_000)

  useCleanup(async () => {
    await mcp?.close().catch(() => undefined)
    await stopServe(serve)
  })

  it('a server whose secret is not set is in error naming the secret, and nothing crashed', async () => {
    await waitFor(async () => (await serverRow(serve, 'echo'))?.state === 'error', 30_000, 'echo in error')
    const row = await serverRow(serve, 'echo')
    expect(row.last_error).toBe('secret ECHO_TOKEN is not set: toolgate secrets set ECHO_TOKEN')
    expect(row.target).toContain('--token=${secret:ECHO_TOKEN}')
    expect(echoLines(echoOut)).toEqual([]) // never started
    const list = await runCli(['secrets', 'list', ...flags()])
    expect(list.code).toBe(0)
    expect(list.stdout).toMatch(/ECHO_TOKEN\s+NO \(not set\)\s+echo/)
  })

  it('secrets set reads the value from stdin, never argv; the server starts with it resolved', async () => {
    const argv = await runCli(['secrets', 'set', 'ECHO_TOKEN', VALUE_1, ...flags()])
    expect(argv.code).toBe(2) // a value on the command line is refused (it would sit in shell history and ps)
    keep(argv.stdout + argv.stderr)

    const set = await runCli(['secrets', 'set', 'ECHO_TOKEN', ...flags()], { input: VALUE_1 + '\n' })
    expect(set.stderr).toBe('')
    expect(set.code).toBe(0)
    expect(set.stdout).toContain('Stored secret ECHO_TOKEN. Used by echo')
    keep(set.stdout + set.stderr)
    await waitFor(async () => (await serverRow(serve, 'echo')).state === 'connected', 30_000, 'echo connected')
    const started = echoLines(echoOut)
    expect(started).toHaveLength(1)
    expect(started[0].env).toEqual({ TOKEN: VALUE_1, FROM_ENV: ENV_VALUE })
    expect(started[0].args).toEqual([`--token=${VALUE_1}`, `--home=${ENV_VALUE}`])
  })

  it('secrets list shows names and users, never values; the same over the control API', async () => {
    const list = await runCli(['secrets', 'list', ...flags()])
    keep(list.stdout + list.stderr)
    expect(list.stdout).toMatch(/ECHO_TOKEN\s+yes\s+echo/)
    expect(list.stdout).toMatch(/WARNING: No keyring on this machine: secrets are encrypted with a key file in the data dir \(.*secrets\.key\)/)
    const api = await call(serve, 'GET', '/api/v1/secrets')
    keep(api.text)
    expect(api.json.secrets).toEqual([{ name: 'ECHO_TOKEN', set: true, updated_at: expect.any(String), used_by: ['echo'] }])
    expect(api.json.store.backend).toBe('file')
    const info = await call(serve, 'GET', '/api/v1/info')
    keep(info.text)
    expect(info.json.secrets.warning).toContain('secrets.key')
  })

  it('a changed secret restarts the server with the new value', async () => {
    const before = echoLines(echoOut).length
    const put = await call(serve, 'PUT', '/api/v1/secrets/ECHO_TOKEN', { value: VALUE_2 })
    keep(put.text)
    expect(put.status).toBe(200)
    await waitFor(() => echoLines(echoOut).length > before, 30_000, 'echo restarted')
    const last = echoLines(echoOut).at(-1)!
    expect(last.env.TOKEN).toBe(VALUE_2)
    await waitFor(async () => (await serverRow(serve, 'echo')).state === 'connected', 30_000, 'echo connected again')
  })

  it('an agent cannot aim ${secret:…} or ${env:…} at a server it adds', async () => {
    mcp = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
    const configBefore = fs.readFileSync(configPath, 'utf8')
    for (const attack of [
      { args: [ECHO, '--steal=${secret:ECHO_TOKEN}'] },
      { args: [ECHO], url: undefined, command: '${secret:ECHO_TOKEN}' },
      { url: 'http://127.0.0.1:9/collect?t=${secret:ECHO_TOKEN}' },
      { args: [ECHO, '${env:TG_TEST_ENV}'] },
    ]) {
      const r = await mcp.client.callTool({
        name: 'upstream_servers',
        arguments: { operation: 'add', name: 'evil', command: process.execPath, ...attack },
      })
      const text = keep(textOf(r as never))
      expect(r.isError).toBe(true)
      expect(text).toContain('agents may not use ${secret:…} or ${env:…} references')
    }
    expect(fs.readFileSync(configPath, 'utf8')).toBe(configBefore)
    const list = await mcp.client.callTool({ name: 'upstream_servers', arguments: { operation: 'list' } })
    keep(textOf(list as never))
    expect(textOf(list as never)).not.toContain('evil')
  })

  it('secrets rm stops the server with the named error', async () => {
    const rm = await runCli(['secrets', 'rm', 'ECHO_TOKEN', ...flags()])
    keep(rm.stdout + rm.stderr)
    expect(rm.code).toBe(0)
    await waitFor(async () => (await serverRow(serve, 'echo')).state === 'error', 30_000, 'echo in error again')
    expect((await serverRow(serve, 'echo')).last_error).toBe('secret ECHO_TOKEN is not set: toolgate secrets set ECHO_TOKEN')
    const again = await runCli(['secrets', 'rm', 'ECHO_TOKEN', ...flags()])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('no secret named ECHO_TOKEN')
    // set it back so the last check covers a running server too
    await call(serve, 'PUT', '/api/v1/secrets/ECHO_TOKEN', { value: VALUE_2 })
    await waitFor(async () => (await serverRow(serve, 'echo')).state === 'connected', 30_000, 'echo connected once more')
  })

  it('no secret value in the data dir, the logs, or any answer of the control API or MCP', async () => {
    for (const p of [
      '/api/v1/status',
      '/api/v1/servers',
      '/api/v1/servers/echo/tools',
      '/api/v1/info',
      '/api/v1/stats',
      '/api/v1/secrets',
      '/api/v1/search?q=echo&include_disabled=true',
      '/api/v1/activity',
    ]) {
      keep((await call(serve, 'GET', p)).text)
    }
    if (mcp) {
      for (const [name, args] of [
        ['upstream_servers', { operation: 'list' }],
        ['upstream_servers', { operation: 'get', name: 'echo' }],
        ['retrieve_tools', { query: 'pong echo', include_disabled: true }],
        ['call_tool_read', { name: 'echo:ping_echo', args: {} }],
      ] as const) {
        keep(textOf((await mcp.client.callTool({ name, arguments: args })) as never))
      }
    }
    for (const cli of [
      ['servers', 'list'],
      ['tools', 'list', 'echo'],
      ['secrets', 'list', '--json'],
    ]) {
      const r = await runCli([...cli, ...flags()])
      keep(r.stdout + r.stderr)
    }
    keep(serve.stderr())
    const files = allFiles(dir).filter((f) => f.file !== echoOut)
    expect(files.some((f) => f.file.endsWith('secrets.json'))).toBe(true)
    expect(files.some((f) => f.file.includes(`${path.sep}logs${path.sep}`))).toBe(true)
    for (const value of [VALUE_1, VALUE_2]) {
      for (const f of files) expect(f.text.includes(value), `${value} in ${f.file}`).toBe(false)
      texts.forEach((t, i) => expect(t.includes(value), `${value} in answer #${i}: ${t.slice(0, 200)}`).toBe(false))
    }
  })
})

describe('secrets with no owner', () => {
  useCleanup()

  it('set, list and rm act on the data dir directly, and a later serve starts the server with it', async () => {
    const dir = tempDir('tg-secrets-offline-')
    const dataDir = path.join(dir, 'data')
    const configPath = path.join(dir, 'mcp_config.json')
    const echoOut = path.join(dir, 'echo.jsonl')
    writeJson(configPath, {
      mcpServers: {
        echo: {
          command: process.execPath,
          args: [ECHO],
          env: { ECHO_OUT: echoOut, ECHO_VARS: 'TOKEN', TOKEN: '${secret:OFFLINE}' },
          cwd: dir,
          quarantined: false,
        },
      },
    })
    const flags = ['--config', configPath, '--data-dir', dataDir]
    const set = await runCli(['secrets', 'set', 'OFFLINE', ...flags], { input: VALUE_1 })
    expect(set.code).toBe(0)
    expect(fs.existsSync(path.join(dataDir, 'instance.json'))).toBe(false) // no core was started for it
    const list = await runCli(['secrets', 'list', '--json', ...flags])
    expect(JSON.parse(list.stdout).secrets).toEqual([{ name: 'OFFLINE', set: true, updated_at: expect.any(String), used_by: ['echo'] }])
    const serve = await startServe({ configPath, dataDir })
    try {
      await waitFor(() => echoLines(echoOut).length > 0, 30_000, 'echo started by serve')
      expect(echoLines(echoOut)[0].env.TOKEN).toBe(VALUE_1)
    } finally {
      await stopProcess(serve.child)
    }
    const rm = await runCli(['secrets', 'rm', 'OFFLINE', ...flags])
    expect(rm.code).toBe(0)
    const after = await runCli(['secrets', 'list', '--json', ...flags])
    expect(JSON.parse(after.stdout).secrets).toEqual([{ name: 'OFFLINE', set: false, updated_at: null, used_by: ['echo'] }])
  })
})
