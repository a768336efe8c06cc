import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { importIntoConfigFile, importServers, isToolgateEntry, sanitizeServerName } from '../../src/main/core/clients/import'
import { loadConfigFile } from '../../src/main/core/config/load'

const FIXTURES = path.resolve(__dirname, '../fixtures/clients')
const CLAUDE = { file: path.join(FIXTURES, 'claude_desktop_config.json'), format: 'claude-desktop' as const }
const CURSOR = { file: path.join(FIXTURES, 'cursor-mcp.json'), format: 'cursor' as const }
const VSCODE = { file: path.join(FIXTURES, 'vscode-mcp.jsonc'), format: 'auto' as const }

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-import-'))
})
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true })
})

describe('import from Claude Desktop (array-style Toolgate config)', () => {
  it('adds every server with the normal quarantine rule, sanitizing names', () => {
    const existing = { listen: '127.0.0.1:8719', mcpServers: [{ name: 'memory', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] }] }
    const r = importServers(CLAUDE, existing)

    expect(r.added).toEqual([
      { name: 'filesystem', from: 'filesystem', renamed: false },
      { name: 'github', from: 'github', renamed: false },
      { name: 'My-Notes-work', from: 'My Notes (work)', renamed: true },
    ])
    expect(r.skipped).toEqual([])
    expect(r.config).toEqual({
      listen: '127.0.0.1:8719',
      mcpServers: [
        { name: 'memory', command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
        { name: 'filesystem', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Documents'] },
        {
          name: 'github',
          command: 'docker',
          args: ['run', '-i', '--rm', '-e', 'GITHUB_PERSONAL_ACCESS_TOKEN', 'ghcr.io/github/github-mcp-server'],
          env: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_example' },
        },
        { name: 'My-Notes-work', command: 'node', args: ['/opt/notes/server.js', '--port', '3000'], cwd: '/opt/notes' },
      ],
    })
    for (const s of r.config.mcpServers as Array<Record<string, unknown>>) expect(s).not.toHaveProperty('quarantined')
  })

  it('does not modify the object it was given', () => {
    const existing = { mcpServers: [] as unknown[] }
    importServers(CLAUDE, existing)
    expect(existing).toEqual({ mcpServers: [] })
  })

  it('--trust marks imported servers quarantined:false', () => {
    const r = importServers(CLAUDE, { mcpServers: [] }, { trust: true })
    expect(r.added).toHaveLength(3)
    for (const s of r.config.mcpServers as Array<Record<string, unknown>>) expect(s.quarantined).toBe(false)
  })
})

describe('import from Cursor (object-style Toolgate config)', () => {
  it('maps url servers and type to protocol, skips Toolgate itself and broken entries', () => {
    const r = importServers(CURSOR, { mcpServers: {}, tools_limit: 20 })

    expect(r.added.map((a) => a.name)).toEqual(['context7', 'linear', 'filesystem'])
    expect(r.skipped).toEqual([
      { name: 'toolgate', reason: expect.stringMatching(/Toolgate itself/) },
      { name: 'broken', reason: expect.stringMatching(/neither "command" nor "url"/) },
    ])
    expect(r.config).toEqual({
      mcpServers: {
        context7: { url: 'https://mcp.context7.com/mcp', headers: { CONTEXT7_API_KEY: 'ctx7-example' } },
        linear: { url: 'https://mcp.linear.app/sse', protocol: 'sse' },
        filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Documents'] },
      },
      tools_limit: 20,
    })
  })

  it('creates mcpServers (object style) when the config has none', () => {
    const r = importServers(CURSOR, { tools_limit: 20 })
    expect(Object.keys(r.config)).toEqual(['tools_limit', 'mcpServers'])
    expect(Object.keys(r.config.mcpServers as object)).toEqual(['context7', 'linear', 'filesystem'])
  })
})

describe('name clashes', () => {
  it('identical definition under the same name → skipped as already imported', () => {
    const existing = {
      mcpServers: { filesystem: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Documents'], quarantined: true } },
    }
    const r = importServers(CURSOR, existing)
    expect(r.skipped).toContainEqual({ name: 'filesystem', reason: 'already imported' })
    expect(r.added.map((a) => a.name)).not.toContain('filesystem')
    expect((r.config.mcpServers as Record<string, unknown>).filesystem).toEqual(existing.mcpServers.filesystem)
  })

  it('a different server with the same name → renamed name-2, then name-3', () => {
    const existing = {
      mcpServers: [
        { name: 'github', url: 'https://example.com/github/mcp' },
        { name: 'github-2', command: 'gh-mcp' },
      ],
    }
    const r = importServers(CLAUDE, existing)
    expect(r.added).toContainEqual({ name: 'github-3', from: 'github', renamed: true })
    const names = (r.config.mcpServers as Array<{ name: string }>).map((s) => s.name)
    expect(names).toEqual(['github', 'github-2', 'filesystem', 'github-3', 'My-Notes-work'])
  })

  it('importing the same file twice adds nothing the second time (also for renamed servers)', () => {
    const first = importServers(CLAUDE, { mcpServers: [{ name: 'github', command: 'other' }] })
    expect(first.added.map((a) => a.name)).toEqual(['filesystem', 'github-2', 'My-Notes-work'])
    const second = importServers(CLAUDE, first.config)
    expect(second.added).toEqual([])
    expect(second.skipped).toEqual([
      { name: 'filesystem', reason: 'already imported' },
      { name: 'github', reason: 'already imported as "github-2"' },
      { name: 'My Notes (work)', reason: 'already imported as "My-Notes-work"' },
    ])
    expect(second.config).toEqual(first.config)
  })

  it('the same server under another name (same command, args, env) → skipped, not duplicated', () => {
    const existing = { mcpServers: { fs: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/Users/me/Documents'] } } }
    const r = importServers(CLAUDE, existing)
    expect(r.skipped).toEqual([{ name: 'filesystem', reason: 'already imported as "fs"' }])
  })

  it('Claude Desktop then Cursor: the shared filesystem server is imported once', () => {
    const a = importServers(CLAUDE, { mcpServers: {} })
    const b = importServers(CURSOR, a.config)
    expect(b.skipped).toContainEqual({ name: 'filesystem', reason: 'already imported' })
    expect(Object.keys(b.config.mcpServers as object)).toEqual(['filesystem', 'github', 'My-Notes-work', 'context7', 'linear'])
  })
})

describe('VS Code and other sources', () => {
  it('reads "servers" from a JSONC file, maps type, warns about unexpanded variables and envFile', () => {
    const r = importServers(VSCODE, { mcpServers: {} })
    expect(r.config.mcpServers).toEqual({
      github: { url: 'https://api.githubcopilot.com/mcp/', headers: { Authorization: 'Bearer ${input:gh-token}' }, protocol: 'http' },
      memory: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-memory'] },
    })
    expect(r.skipped).toEqual([{ name: 'socket', reason: expect.stringMatching(/unsupported transport type "websocket"/) }])
    expect(r.warnings).toEqual([
      { name: 'github', message: expect.stringContaining('${input:gh-token}') },
      { name: 'memory', message: expect.stringContaining('"envFile"') },
    ])
  })

  it('a file without servers imports nothing and says so', () => {
    const file = path.join(dir, 'claude_desktop_config.json')
    fs.writeFileSync(file, '{"preferences": {}}')
    const r = importServers({ file, format: 'claude-desktop' }, { mcpServers: [] })
    expect(r.added).toEqual([])
    expect(r.warnings).toEqual([{ message: expect.stringContaining('no "mcpServers"') }])
  })

  it('a missing source file is a clear error', () => {
    const file = path.join(dir, 'nope.json')
    expect(() => importServers({ file, format: 'claude-desktop' }, {})).toThrowError(`Nothing to import: ${file} does not exist (is Claude Desktop installed`)
  })

  it('invalid JSON in the source names the file', () => {
    expect(() => importServers({ file: path.join(FIXTURES, 'claude_desktop_config.invalid.json') }, {})).toThrowError(
      /claude_desktop_config\.invalid\.json is not valid JSON/,
    )
  })

  it('entries with the wrong types or values Toolgate would reject are skipped with a reason', () => {
    const file = path.join(dir, 'mcp.json')
    fs.writeFileSync(
      file,
      JSON.stringify({ mcpServers: { a: { command: 'x', args: [{}] }, b: { url: 'not a url' }, c: 'nope', __proto__x: { command: 'ok' } } }),
    )
    const r = importServers({ file }, { mcpServers: {} })
    expect(r.skipped.map((s) => s.name)).toEqual(['a', 'b', 'c'])
    expect(r.skipped.every((s) => s.reason.startsWith('invalid entry: '))).toBe(true)
    expect(r.added).toEqual([{ name: '__proto__x', from: '__proto__x', renamed: false }])
  })

  it('a server literally named "__proto__" (a reserved name) is imported renamed, as a normal own entry', () => {
    const file = path.join(dir, 'mcp.json')
    fs.writeFileSync(file, '{"mcpServers": {"__proto__": {"command": "evil"}}}')
    const r = importServers({ file }, { mcpServers: {} })
    const servers = r.config.mcpServers as Record<string, unknown>
    expect(Object.getPrototypeOf(servers)).toBe(Object.prototype)
    expect(Object.keys(servers)).toEqual(['__proto__-2'])
    expect(r.added).toEqual([{ name: '__proto__-2', from: '__proto__', renamed: true }])
  })

  it('rejects a Toolgate config whose mcpServers it cannot extend', () => {
    expect(() => importServers(CLAUDE, { mcpServers: 'x' })).toThrowError(/Cannot import into the Toolgate config/)
  })
})

describe('recognizing Toolgate itself', () => {
  it.each([
    [{ command: '/usr/bin/node', args: ['/opt/toolgate/bin/toolgate.js', 'stdio'] }, true],
    [{ command: 'toolgate', args: ['stdio', '--agent', 'x'] }, true],
    [{ command: 'npx', args: ['-y', 'toolgate', 'stdio'] }, true],
    [{ command: '/Applications/Toolgate.app/Contents/MacOS/Toolgate', args: ['/x/cli.js', 'stdio'] }, true],
    [{ url: 'http://127.0.0.1:8719/mcp' }, true],
    [{ command: 'toolgate', args: ['serve'] }, false],
    [{ command: 'npx', args: ['some-server', 'stdio'] }, false],
    [{ url: 'https://example.com/mcp' }, false],
  ])('%j → %s', (entry, expected) => {
    expect(isToolgateEntry(entry)).toBe(expected)
  })

  it('sanitizes names predictably', () => {
    expect(sanitizeServerName('github')).toBe('github')
    expect(sanitizeServerName('My Notes (work)')).toBe('My-Notes-work')
    expect(sanitizeServerName('a:b/c')).toBe('a-b-c')
    expect(sanitizeServerName('v1.2_x-y')).toBe('v1.2_x-y')
    expect(sanitizeServerName('日本')).toBe('server')
  })
})

describe('importIntoConfigFile: dry run and real run on mcp_config.json', () => {
  it('dry run reports what would happen and writes nothing', () => {
    const configFile = path.join(dir, 'mcp_config.json')
    const text = '{\n    "mcpServers": []\n}\n'
    fs.writeFileSync(configFile, text)
    const r = importIntoConfigFile(CLAUDE, configFile, { dryRun: true })
    expect(r.dryRun).toBe(true)
    expect(r.written).toBe(false)
    expect(r.added).toHaveLength(3)
    expect(fs.readFileSync(configFile, 'utf8')).toBe(text)
    expect(fs.readdirSync(dir)).toEqual(['mcp_config.json'])
  })

  it('dry run with no config file does not create one', () => {
    const configFile = path.join(dir, 'data', 'mcp_config.json')
    const r = importIntoConfigFile(CURSOR, configFile, { dryRun: true })
    expect(r.added).toHaveLength(3)
    expect(fs.existsSync(path.join(dir, 'data'))).toBe(false)
  })

  it('a real run writes a config the loader accepts, keeping its layout', () => {
    const configFile = path.join(dir, 'mcp_config.json')
    fs.writeFileSync(configFile, '{\n    "mcpServers": [],\n    "tools_limit": 12\n}\n')
    const r = importIntoConfigFile(CURSOR, configFile, { trust: true })
    expect(r.written).toBe(true)
    const text = fs.readFileSync(configFile, 'utf8')
    expect(text).toContain('\n    "mcpServers": [\n        {\n            "name": "context7"')
    const { config } = loadConfigFile(configFile)
    expect(config.style).toBe('array')
    expect(config.tools_limit).toBe(12)
    expect(config.servers.map((s) => [s.name, s.protocol, s.quarantined])).toEqual([
      ['context7', 'auto', false],
      ['linear', 'sse', false],
      ['filesystem', 'auto', false],
    ])
    // nothing new on a second run → no write
    const mtime = fs.statSync(configFile).mtimeMs
    const again = importIntoConfigFile(CURSOR, configFile)
    expect(again.written).toBe(false)
    expect(fs.statSync(configFile).mtimeMs).toBe(mtime)
  })

  it('creates a missing config file (object style, private)', () => {
    const configFile = path.join(dir, 'data', 'mcp_config.json')
    importIntoConfigFile(CLAUDE, configFile)
    expect(loadConfigFile(configFile).config.servers.map((s) => s.name)).toEqual(['filesystem', 'github', 'My-Notes-work'])
    expect(loadConfigFile(configFile).config.style).toBe('object')
    if (process.platform !== 'win32') expect(fs.statSync(configFile).mode & 0o777).toBe(0o600)
  })

  it('an invalid Toolgate config is reported, even in a dry run, and left alone', () => {
    const configFile = path.join(dir, 'mcp_config.json')
    fs.writeFileSync(configFile, '{"mcpServers": [], "tools_limit": 0}')
    expect(() => importIntoConfigFile(CLAUDE, configFile, { dryRun: true })).toThrowError(/mcp_config\.json.*tools_limit/)
    expect(() => importIntoConfigFile(CLAUDE, configFile)).toThrowError(/tools_limit/)
    expect(fs.readFileSync(configFile, 'utf8')).toBe('{"mcpServers": [], "tools_limit": 0}')
    fs.writeFileSync(configFile, '{ nope')
    expect(() => importIntoConfigFile(CLAUDE, configFile)).toThrowError(/the Toolgate config .*mcp_config\.json is not valid JSON/)
  })
})
