// Config and command line mistakes fail loudly, never open: a near-miss server key is
// an error naming the key and the one meant; other unknown keys are warnings the user sees
// (servers list, /api/v1/info); JSON errors name line and column; a --config that does not
// exist exits 2; connect checks --agent and keeps a non-default --config; `toolgate app` without
// Electron says so in one line; `toolgate stdio` refuses an endless line once it passes the limit.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { MEMORY, runCli, startServe, stopProcess, tempDir, waitFor, writeJson } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { rawStdio } from '../helpers/mcp-client'

useCleanup()

const memoryEntry = (dir: string, extra: Record<string, unknown>) => ({
  command: process.execPath,
  args: [MEMORY],
  env: { MEMORY_FILE_PATH: path.join(dir, 'memory.jsonl') },
  quarantined: false,
  ...extra,
})

describe('config mistakes', () => {
  for (const [key, meant] of [
    ['disable_tools', 'disabled_tools'],
    ['enabled_tool', 'enabled_tools'],
    ['quarantine', 'quarantined'],
    ['disabledTools', 'disabled_tools'],
  ] as const) {
    it(`"${key}" in a server entry is an error naming it and "${meant}" (exit 2), for every command`, async () => {
      const tmp = tempDir('toolgate-nearmiss-')
      const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
        mcpServers: { memory: memoryEntry(tmp, { [key]: key === 'quarantine' ? false : ['delete_entities'] }) },
      })
      for (const cmd of [
        ['servers', 'list'],
        ['search', 'delete entities'],
        ['serve', '--listen', '127.0.0.1:0'],
      ]) {
        const r = await runCli([...cmd, '--config', configPath, '--data-dir', path.join(tmp, 'data')], { timeoutMs: 30_000 })
        expect(r.code, `${cmd.join(' ')}: ${r.stderr}`).toBe(2)
        expect(r.stderr).toContain(`$.mcpServers.memory.${key}`)
        expect(r.stderr).toContain(`did you mean "${meant}"`)
      }
    })
  }

  it('"disabled": true (other clients’ key) is an error pointing to "enabled": false', async () => {
    const tmp = tempDir('toolgate-disabled-')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), { mcpServers: { memory: memoryEntry(tmp, { disabled: true }) } })
    const r = await runCli(['servers', 'list', '--config', configPath, '--data-dir', path.join(tmp, 'data')])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/\$\.mcpServers\.memory\.disabled: unknown key "disabled": .*"enabled": false/)
  })

  it('a near-miss key added while serving is a config error; the last good config keeps running', async () => {
    const tmp = tempDir('toolgate-nearmiss-live-')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), { mcpServers: { memory: memoryEntry(tmp, {}) } })
    const serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    try {
      writeJson(configPath, { mcpServers: { memory: memoryEntry(tmp, { disable_tools: ['delete_entities'] }) } })
      const info = await waitFor(async () => {
        const r = await serve.api<{ config_error: string | null }>('GET', '/api/v1/info')
        return r.json.config_error ? r.json : undefined
      }, 15_000)
      expect(info.config_error).toMatch(/disable_tools.*did you mean "disabled_tools"/)
    } finally {
      await stopProcess(serve.child)
    }
  })

  it('other unknown keys stay warnings, shown by servers list and /api/v1/info', async () => {
    const tmp = tempDir('toolgate-unknown-')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), { mcpServers: { memory: memoryEntry(tmp, { colour: 'blue' }) } })
    const r = await runCli(['servers', 'list', '--config', configPath, '--data-dir', path.join(tmp, 'data')])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toMatch(/warning: .*mcp_config\.json: unknown key \$\.mcpServers\.memory\.colour is ignored/)
    const serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    try {
      const info = await serve.api<{ config_warnings: string[] }>('GET', '/api/v1/info')
      expect(info.json.config_warnings).toEqual(['$.mcpServers.memory.colour'])
    } finally {
      await stopProcess(serve.child)
    }
  })

  it('a JSON syntax error names the line and the column', async () => {
    const tmp = tempDir('toolgate-json-')
    const configPath = path.join(tmp, 'mcp_config.json')
    fs.writeFileSync(configPath, '{\n  "mcpServers": {\n    "a": { "command": "x" }\n    "b": { "command": "y" }\n  }\n}\n')
    const r = await runCli(['servers', 'list', '--config', configPath, '--data-dir', path.join(tmp, 'data')])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/not valid JSON: line 4, column 5: /)
    expect(r.stderr).not.toMatch(/position/)
  })

  it('a --config that does not exist is an error (exit 2) and is not created; the default config is', async () => {
    const tmp = tempDir('toolgate-noconfig-')
    const missing = path.join(tmp, 'typo', 'mcp_confg.json')
    for (const cmd of [['servers', 'list'], ['stdio'], ['serve', '--listen', '127.0.0.1:0'], ['open']]) {
      const r = await runCli([...cmd, '--config', missing, '--data-dir', path.join(tmp, 'data')], { timeoutMs: 30_000 })
      expect(r.code, `${cmd.join(' ')}: ${r.stderr}`).toBe(2)
      expect(r.stderr).toContain(missing)
      expect(r.stderr).toMatch(/does not exist/)
    }
    expect(fs.existsSync(missing)).toBe(false)
    const r = await runCli(['servers', 'list', '--data-dir', path.join(tmp, 'data')])
    expect(r.code, r.stderr).toBe(0)
    expect(fs.existsSync(path.join(tmp, 'data', 'mcp_config.json'))).toBe(true)
  })
})

describe('command line mistakes', () => {
  it('connect --agent checks that the agent exists', async () => {
    const tmp = tempDir('toolgate-connect-')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), { mcpServers: {}, agents: [{ name: 'reader', servers: '*', permissions: ['read'] }] })
    const bad = await runCli(['connect', 'cursor', '--agent', 'raeder', '--config', configPath, '--data-dir', path.join(tmp, 'data')])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/no agent named "raeder"/)
    expect(bad.stdout).toBe('')
    const ok = await runCli(['connect', 'cursor', '--agent', 'reader', '--config', configPath, '--data-dir', path.join(tmp, 'data')])
    expect(ok.code, ok.stderr).toBe(0)
  })

  it('connect keeps a non-default --config in the snippet (and --write writes it)', async () => {
    const tmp = tempDir('toolgate-connect-cfg-')
    const configPath = writeJson(path.join(tmp, 'elsewhere', 'team.json'), { mcpServers: {} })
    const dataDir = path.join(tmp, 'data')
    const r = await runCli(['connect', 'claude-desktop', '--config', configPath, '--data-dir', dataDir])
    expect(r.code, r.stderr).toBe(0)
    const args = (JSON.parse(r.stdout) as { mcpServers: { toolgate: { args: string[] } } }).mcpServers.toolgate.args
    expect(args.slice(args.indexOf('stdio'))).toEqual(['stdio', '--config', configPath, '--data-dir', dataDir])
    const file = path.join(tmp, 'claude_desktop_config.json')
    const w = await runCli(['connect', 'claude-desktop', '--write', '--file', file, '--config', configPath, '--data-dir', dataDir])
    expect(w.code, w.stderr).toBe(0)
    expect((JSON.parse(fs.readFileSync(file, 'utf8')) as { mcpServers: { toolgate: { args: string[] } } }).mcpServers.toolgate.args).toContain(configPath)
    // the default config is not spelled out
    const d = await runCli(['connect', 'claude-desktop', '--data-dir', dataDir])
    expect(d.stdout).not.toContain('--config')
  })

  it('`toolgate app` without the Electron binary says so in one line and points to serve and demo', async () => {
    const r = await runCli(['app'], { timeoutMs: 30_000 })
    expect(r.code).toBe(1)
    const lines = r.stderr.trim().split('\n')
    expect(lines).toHaveLength(1)
    expect(lines[0]).toMatch(/Electron/)
    expect(lines[0]).toMatch(/toolgate serve/)
    expect(lines[0]).toMatch(/demo/)
  })

  it('`toolgate stdio` refuses a line without a newline once it passes the limit, and goes on', async () => {
    const tmp = tempDir('toolgate-longline-')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), { mcpServers: {} })
    const s = await rawStdio(['--config', configPath, '--data-dir', path.join(tmp, 'data')])
    await s.client.initialize()
    const LIMIT = 4 * 1024 * 1024
    const chunk = 'x'.repeat(256 * 1024)
    for (let sent = 0; sent <= LIMIT; sent += chunk.length) s.client.child.stdin?.write(chunk)
    // no newline yet: the refusal comes anyway
    const refusal = await waitFor(() => s.stdoutLines.find((l) => l.includes('larger than')), 20_000, 'the refusal of the long line')
    expect(JSON.parse(refusal)).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32600 } })
    s.client.child.stdin?.write(chunk + '\n')
    const tools = await s.client.listTools()
    expect(tools.tools.map((t) => t.name)).toContain('retrieve_tools')
    expect(s.stdoutLines.filter((l) => l.includes('larger than'))).toHaveLength(1)
    await s.client.close()
  })
})
