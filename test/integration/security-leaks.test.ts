// Leaks, the parts beyond masking: the CLI never lets untrusted text drive the
// terminal (control characters, OSC 52, bidi overrides escaped for people and as \u in JSON);
// server names "." and ".." are refused; the data dir, logs/ and log files are private; a config
// written by `import` with secrets is 0600; `import --move` takes the servers out of the client's
// file (after a backup); `connect --write` says which servers still bypass Toolgate.
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  assertBuilt,
  fixtureEntry,
  runCli,
  startServe,
  stopProcess,
  tempDir,
  waitForServerState,
  waitForToolStatus,
  writeJson,
  type Serve,
} from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, textOf, type McpHandle } from '../helpers/mcp-client'

useCleanup()

const OSC52 = '\u001b]52;c;ZXZpbA==\u0007'
const CLEAR = '\u001b[2K\r'
const RLO = '\u202e'
const CSI_C1 = '\u009b31m'
/** Any raw control, C1 or bidi character a terminal would act on. */
// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

const mode = (p: string): number => fs.statSync(p).mode & 0o777

describe('the CLI escapes what it prints', () => {
  let tmp: string
  let serve: Serve
  let mcp: McpHandle
  const evilArg = `${CLEAR}harmless${OSC52}${RLO}gpj.exe`
  const evilDescription = `Read the weather ${CSI_C1}${OSC52} and ${RLO}txt.exe`

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-escapes-')
    const tools = writeJson(path.join(tmp, 'tools.json'), [{ name: 'weather', description: evilDescription, annotations: { readOnlyHint: true } }])
    const configPath = path.join(tmp, 'mcp_config.json')
    writeJson(configPath, { mcpServers: { wx: fixtureEntry(tools, path.join(tmp, 'wx.log'), { quarantined: false }) } })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'wx', 'connected')
    await waitForToolStatus(serve, 'wx:weather', 'callable')
    mcp = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
    const added = await mcp.call('upstream_servers', { operation: 'add', name: 'osc', command: 'node', args: ['srv.js', evilArg] })
    expect(added.isError, textOf(added)).toBeFalsy()
  }, 90_000)

  afterAll(async () => {
    await mcp?.close().catch(() => {})
    await stopServe(serve)
  })

  it('`servers list` shows an agent-added argument with OSC 52 escaped; --json writes \\u escapes and keeps the value', async () => {
    const human = await runCli(['servers', 'list', ...serve.flags])
    expect(human.code, human.stderr).toBe(0)
    expect(human.stdout).not.toMatch(RAW)
    expect(human.stdout).toContain('\\u001b]52;c;ZXZpbA==\\u0007')
    expect(human.stdout).toContain('\\u202egpj.exe')

    const json = await runCli(['servers', 'list', '--json', ...serve.flags])
    expect(json.code, json.stderr).toBe(0)
    expect(json.stdout).not.toMatch(RAW)
    expect(json.stdout).toContain('\\u001b]52')
    expect(json.stdout).toContain('\\u202e')
    const osc = (JSON.parse(json.stdout) as { servers: Array<{ name: string; launch: { args: string[] } }> }).servers.find((s) => s.name === 'osc')
    expect(osc?.launch.args).toEqual(['srv.js', evilArg])
  })

  it('`search` and `tools list` escape an upstream description; the JSON still means the same', async () => {
    const search = await runCli(['search', 'weather', ...serve.flags])
    expect(search.code, search.stderr).toBe(0)
    expect(search.stdout).not.toMatch(RAW)
    const viaApi = await serve.api('GET', '/api/v1/search?q=weather')
    expect(viaApi.text).toMatch(RAW) // the raw API answer carries them: the CLI is what escapes
    expect(JSON.parse(search.stdout)).toEqual(JSON.parse(viaApi.text))

    const tools = await runCli(['tools', 'list', 'wx', ...serve.flags])
    expect(tools.code, tools.stderr).toBe(0)
    expect(tools.stdout).not.toMatch(RAW)
    expect(tools.stdout).toContain('\\u009b31m')
  })

  it('an error message carrying the name is escaped too', async () => {
    const r = await runCli(['tools', 'enable', `wx:no${OSC52}such`, ...serve.flags])
    expect(r.code).not.toBe(0)
    expect(r.stderr).not.toMatch(RAW)
    expect(r.stderr).toContain('\\u001b]52')
  })
})

describe('server names, file modes, import and connect', () => {
  let tmp: string

  beforeAll(() => {
    assertBuilt()
    tmp = tempDir('toolgate-files-')
  })

  it('server names "." and ".." are refused in the config and by agents', async () => {
    for (const name of ['.', '..']) {
      const dir = path.join(tmp, `names-${name.length}`)
      const configPath = writeJson(path.join(dir, 'mcp_config.json'), { mcpServers: { [name]: { command: 'node', args: ['x.js'] } } })
      const r = await runCli(['servers', 'list', '--config', configPath, '--data-dir', path.join(dir, 'data')])
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(/"\." and "\.\." are not allowed/)
    }
    const dir = path.join(tmp, 'names-agent')
    const configPath = writeJson(path.join(dir, 'mcp_config.json'), { mcpServers: {} })
    const serve = await startServe({ configPath, dataDir: path.join(dir, 'data') })
    const mcp = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
    for (const name of ['.', '..']) {
      const r = await mcp.call('upstream_servers', { operation: 'add', name, command: 'node', args: ['x.js'] })
      expect(r.isError).toBe(true)
    }
    expect(JSON.parse(fs.readFileSync(configPath, 'utf8')).mcpServers).toEqual({})
    await mcp.close()
    await stopProcess(serve.child)
  })

  it('the data dir and logs/ are 0700 and the log file 0600, also when the data dir existed with looser modes', async () => {
    const dataDir = path.join(tmp, 'modes', 'data')
    fs.mkdirSync(path.join(dataDir, 'logs'), { recursive: true, mode: 0o755 })
    fs.chmodSync(dataDir, 0o755)
    fs.chmodSync(path.join(dataDir, 'logs'), 0o755)
    fs.writeFileSync(path.join(dataDir, 'logs', 'toolgate.log'), '', { mode: 0o644 })
    fs.chmodSync(path.join(dataDir, 'logs', 'toolgate.log'), 0o644)
    const configPath = writeJson(path.join(tmp, 'modes', 'mcp_config.json'), { mcpServers: {} })
    const serve = await startServe({ configPath, dataDir })
    expect(mode(dataDir)).toBe(0o700)
    expect(mode(path.join(dataDir, 'logs'))).toBe(0o700)
    expect(mode(path.join(dataDir, 'logs', 'toolgate.log'))).toBe(0o600)
    await stopProcess(serve.child)

    const fresh = path.join(tmp, 'modes', 'fresh')
    const r = await runCli(['servers', 'list', '--config', configPath, '--data-dir', fresh])
    expect(r.code, r.stderr).toBe(0)
    expect(mode(fresh)).toBe(0o700)
    expect(mode(path.join(fresh, 'logs'))).toBe(0o700)
    expect(mode(path.join(fresh, 'logs', 'toolgate.log'))).toBe(0o600)
  })

  it('a config written by import that carries secrets is 0600', async () => {
    const dir = path.join(tmp, 'import-mode')
    const configPath = writeJson(path.join(dir, 'mcp_config.json'), { mcpServers: {} })
    fs.chmodSync(configPath, 0o644)
    const plain = writeJson(path.join(dir, 'plain.json'), { mcpServers: { notes: { command: 'node', args: ['notes.js'] } } })
    const r1 = await runCli(['import', plain, '--config', configPath, '--data-dir', path.join(dir, 'data')])
    expect(r1.code, r1.stderr).toBe(0)
    expect(mode(configPath)).toBe(0o644) // nothing secret in it: left as the user set it
    const secret = writeJson(path.join(dir, 'secret.json'), {
      mcpServers: { gh: { command: 'docker', args: ['run', 'gh'], env: { GITHUB_TOKEN: 'ghp_R8xk2LmQ9vT4nW7pZ3sY6aB1cD5eF0gH' } } },
    })
    const r2 = await runCli(['import', secret, '--config', configPath, '--data-dir', path.join(dir, 'data')])
    expect(r2.code, r2.stderr).toBe(0)
    expect(JSON.parse(fs.readFileSync(configPath, 'utf8')).mcpServers.gh.env.GITHUB_TOKEN).toMatch(/^ghp_/)
    expect(mode(configPath)).toBe(0o600)
  })

  it('import --move takes the imported servers out of the client file after a backup; --dry-run changes nothing', async () => {
    const dir = path.join(tmp, 'move')
    const configPath = path.join(dir, 'toolgate', 'mcp_config.json')
    const client = path.join(dir, 'claude_desktop_config.json')
    const original = {
      globalShortcut: 'Ctrl+Space',
      mcpServers: {
        toolgate: { command: process.execPath, args: ['/opt/toolgate/bin/toolgate.js', 'stdio'] },
        files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/home/me'] },
        remote: { url: 'https://mcp.example.com/mcp', type: 'http' },
        broken: { type: 'websocket', url: 'ws://x' },
      },
    }
    writeJson(client, original)
    const originalText = fs.readFileSync(client, 'utf8')
    const flags = ['--config', configPath, '--data-dir', path.join(dir, 'data')]

    const dry = await runCli(['import', client, '--move', '--dry-run', ...flags])
    expect(dry.code, dry.stderr).toBe(0)
    expect(dry.stdout).toMatch(/would remove files, remote from/)
    expect(fs.readFileSync(client, 'utf8')).toBe(originalText)
    expect(fs.existsSync(configPath)).toBe(false)

    const r = await runCli(['import', client, '--move', ...flags])
    expect(r.code, r.stderr).toBe(0)
    expect(Object.keys(JSON.parse(fs.readFileSync(configPath, 'utf8')).mcpServers)).toEqual(['files', 'remote'])
    const after = JSON.parse(fs.readFileSync(client, 'utf8'))
    // Toolgate itself and what could not be imported stay; every other key is kept
    expect(after).toEqual({ globalShortcut: 'Ctrl+Space', mcpServers: { toolgate: original.mcpServers.toolgate, broken: original.mcpServers.broken } })
    const backups = fs.readdirSync(dir).filter((f) => f.startsWith('claude_desktop_config.json.toolgate-backup-'))
    expect(backups).toHaveLength(1)
    expect(fs.readFileSync(path.join(dir, backups[0]), 'utf8')).toBe(originalText)
    expect(r.stdout).toMatch(/removed files, remote from .*claude_desktop_config\.json/)
    // what the client still gets from them, and where it says what does not pass
    expect(r.stdout).toMatch(/their tools, prompts and resources and their questions for you pass through it once you approve them/)
    expect(r.stdout).toContain('docs/passthrough.md')
    expect(r.stdout).toContain(backups[0])

    // servers already in Toolgate are moved too on a second run (nothing left to move here)
    const again = await runCli(['import', client, '--move', ...flags])
    expect(again.code, again.stderr).toBe(0)
    expect(fs.readdirSync(dir).filter((f) => f.includes('toolgate-backup-'))).toHaveLength(1)
  })

  it('connect --write says which servers in the client file still bypass Toolgate', async () => {
    const dir = path.join(tmp, 'connect')
    const client = writeJson(path.join(dir, 'mcp.json'), {
      mcpServers: { files: { command: 'npx', args: ['server-filesystem'] }, remote: { url: 'https://mcp.example.com/mcp' } },
    })
    const r = await runCli(['connect', 'cursor', '--write', '--file', client, '--data-dir', path.join(dir, 'data')])
    expect(r.code, r.stderr).toBe(0)
    const all = r.stdout + r.stderr
    expect(all).toMatch(/2 server\(s\).*bypass Toolgate: files, remote/s)
    expect(all).toMatch(/toolgate import .*mcp\.json --move/)
    const none = writeJson(path.join(dir, 'empty.json'), { mcpServers: {} })
    const r2 = await runCli(['connect', 'cursor', '--write', '--file', none, '--data-dir', path.join(dir, 'data')])
    expect(r2.stdout + r2.stderr).not.toMatch(/bypass/)
  })
})
