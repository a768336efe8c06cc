import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { launchCommand } from '../../src/main/core/clients/launch'
import { connectSnippet } from '../../src/main/core/clients/snippet'
import { removeClientServers, writeClientConfig } from '../../src/main/core/clients/write'
import { parse, type ParseError } from 'jsonc-parser'

const FIXTURES = path.resolve(__dirname, '../fixtures/clients')
const launch = launchCommand({ execPath: '/usr/bin/node', binPath: '/opt/toolgate/bin/toolgate.js' })

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-clients-'))
})
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true })
})

function copyFixture(name: string, as = name): string {
  const file = path.join(dir, as)
  fs.copyFileSync(path.join(FIXTURES, name), file)
  return file
}
const readJson = (file: string): Record<string, unknown> => JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>
const backups = (file: string): string[] => fs.readdirSync(path.dirname(file)).filter((f) => f.startsWith(`${path.basename(file)}.toolgate-backup-`))

describe('connect --write into an existing Claude Desktop config', () => {
  it('adds the toolgate entry and keeps every other key and server, in order', () => {
    const file = copyFixture('claude_desktop_config.json')
    const before = readJson(file)
    const snippet = connectSnippet('claude-desktop', { launch, agent: 'claude' })

    const result = writeClientConfig(file, snippet)

    expect(result.changed).toBe(true)
    const after = readJson(file)
    expect(Object.keys(after)).toEqual(['globalShortcut', 'mcpServers', 'preferences'])
    expect(after.globalShortcut).toEqual(before.globalShortcut)
    expect(after.preferences).toEqual(before.preferences)
    const servers = after.mcpServers as Record<string, unknown>
    expect(Object.keys(servers)).toEqual(['filesystem', 'github', 'My Notes (work)', 'toolgate'])
    for (const name of ['filesystem', 'github', 'My Notes (work)']) {
      expect(servers[name]).toEqual((before.mcpServers as Record<string, unknown>)[name])
    }
    expect(servers.toolgate).toEqual({ command: '/usr/bin/node', args: ['/opt/toolgate/bin/toolgate.js', 'stdio', '--agent', 'claude'] })
  })

  it('backs up the original bytes once; a second run changes nothing and makes no new backup', () => {
    const file = copyFixture('claude_desktop_config.json')
    const original = fs.readFileSync(file)
    const snippet = connectSnippet('claude-desktop', { launch })

    const first = writeClientConfig(file, snippet, { now: new Date('2026-01-02T03:04:05.678Z') })
    const written = fs.readFileSync(file)
    const second = writeClientConfig(file, snippet)

    expect(first.backup).toBe(`${file}.toolgate-backup-2026-01-02T03-04-05-678Z`)
    expect(fs.readFileSync(first.backup as string).equals(original)).toBe(true)
    expect(second).toEqual({ changed: false })
    expect(fs.readFileSync(file).equals(written)).toBe(true)
    expect(backups(file)).toHaveLength(1)
  })

  it("keeps the file's indentation, line endings and final newline", () => {
    const file = path.join(dir, 'claude_desktop_config.json')
    fs.writeFileSync(file, '{\r\n    "mcpServers": {}\r\n}')
    writeClientConfig(file, connectSnippet('claude-desktop', { launch }))
    const text = fs.readFileSync(file, 'utf8')
    expect(text).toContain('\r\n    "mcpServers": {\r\n        "toolgate": {')
    expect(text.endsWith('}')).toBe(true)
    expect(text.replace(/\r\n/g, '')).not.toContain('\n')
  })

  it('keeps the permissions of the existing file', () => {
    if (process.platform === 'win32') return
    const file = copyFixture('claude_desktop_config.json')
    fs.chmodSync(file, 0o600)
    writeClientConfig(file, connectSnippet('claude-desktop', { launch }))
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
  })
})

describe('connect --write into an existing Cursor config', () => {
  it('updates an older toolgate entry in place, keeps other servers and keys, backs up first', () => {
    const file = copyFixture('cursor-mcp.json', 'mcp.json')
    const before = readJson(file)
    const snippet = connectSnippet('cursor', { launch, agent: 'cursor' })

    const result = writeClientConfig(file, snippet, { now: new Date('2026-05-06T07:08:09.000Z') })

    expect(result.changed).toBe(true)
    expect(result.backup).toBeDefined()
    const after = readJson(file)
    expect(Object.keys(after)).toEqual(['mcpServers', '_note'])
    expect(after._note).toBe('synced by my dotfiles')
    const servers = after.mcpServers as Record<string, unknown>
    const old = before.mcpServers as Record<string, unknown>
    expect(Object.keys(servers)).toEqual(Object.keys(old)) // replaced in place, not moved to the end
    for (const name of ['context7', 'linear', 'filesystem', 'broken']) expect(servers[name]).toEqual(old[name])
    expect(servers.toolgate).toEqual({ command: '/usr/bin/node', args: ['/opt/toolgate/bin/toolgate.js', 'stdio', '--agent', 'cursor'] })

    expect(writeClientConfig(file, snippet)).toEqual({ changed: false })
    expect(backups(file)).toHaveLength(1)
  })

  it('an entry equal in content but with other key order counts as unchanged', () => {
    const file = path.join(dir, 'mcp.json')
    fs.writeFileSync(file, JSON.stringify({ mcpServers: { toolgate: { args: ['/opt/toolgate/bin/toolgate.js', 'stdio'], command: '/usr/bin/node' } } }))
    expect(writeClientConfig(file, connectSnippet('cursor', { launch }))).toEqual({ changed: false })
    expect(backups(file)).toHaveLength(0)
  })
})

describe('connect --write: missing files and files Toolgate must not touch', () => {
  it('creates a missing file and its parent folders, with no backup', () => {
    const file = path.join(dir, 'nested', '.cursor', 'mcp.json')
    const result = writeClientConfig(file, connectSnippet('cursor', { launch }))
    expect(result).toEqual({ changed: true, created: true })
    expect(readJson(file)).toEqual({ mcpServers: { toolgate: { command: '/usr/bin/node', args: ['/opt/toolgate/bin/toolgate.js', 'stdio'] } } })
  })

  it('an existing file without mcpServers gets the key appended', () => {
    const file = path.join(dir, 'claude_desktop_config.json')
    fs.writeFileSync(file, '{\n  "preferences": { "menuBarEnabled": false }\n}\n')
    writeClientConfig(file, connectSnippet('claude-desktop', { launch }))
    expect(Object.keys(readJson(file))).toEqual(['preferences', 'mcpServers'])
    expect(backups(file)).toHaveLength(1)
  })

  it('an empty file counts as {}', () => {
    const file = path.join(dir, 'mcp.json')
    fs.writeFileSync(file, '')
    expect(writeClientConfig(file, connectSnippet('cursor', { launch })).changed).toBe(true)
    expect(Object.keys(readJson(file))).toEqual(['mcpServers'])
  })

  it('invalid JSON: throws naming the file and that nothing was changed; the file is untouched, no backup', () => {
    const file = copyFixture('claude_desktop_config.invalid.json', 'claude_desktop_config.json')
    const original = fs.readFileSync(file)
    expect(() => writeClientConfig(file, connectSnippet('claude-desktop', { launch }))).toThrowError(
      new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: the file is not valid JSON .*Nothing was changed`),
    )
    expect(fs.readFileSync(file).equals(original)).toBe(true)
    expect(backups(file)).toHaveLength(0)
  })

  it('a JSONC file (comments, trailing commas) gets the entry and keeps its comments, commas and every other server as written', () => {
    const file = copyFixture('vscode-mcp.jsonc', 'mcp.json')
    const original = fs.readFileSync(file, 'utf8')
    const r = writeClientConfig(file, connectSnippet('vscode', { launch }))
    expect(r.changed).toBe(true)
    expect(fs.readFileSync(r.backup as string, 'utf8')).toBe(original)
    const text = fs.readFileSync(file, 'utf8')
    // what the user wrote is still there, word for word
    for (const kept of [
      '  // VS Code workspace MCP config (JSONC: comments and trailing commas are allowed)\n',
      '    { "type": "promptString", "id": "gh-token", "description": "GitHub token", "password": true },\n  ],\n',
      '    /* a local server */\n    "memory": {\n',
      '      "envFile": "${workspaceFolder}/.env",\n    },\n',
    ])
      expect(text).toContain(kept)
    const errors: ParseError[] = []
    const after = parse(text, errors, { allowTrailingComma: true }) as { servers: Record<string, unknown> }
    expect(errors).toEqual([])
    expect(Object.keys(after.servers)).toEqual(['github', 'memory', 'socket', 'toolgate'])
    expect(after.servers.toolgate).toEqual({ type: 'stdio', command: '/usr/bin/node', args: ['/opt/toolgate/bin/toolgate.js', 'stdio'] })
    // a second run finds it there: nothing written
    expect(writeClientConfig(file, connectSnippet('vscode', { launch }))).toEqual({ changed: false })
    expect(fs.readFileSync(file, 'utf8')).toBe(text)
  })

  it('import --move takes a server out of a commented file and leaves the rest, comments included', () => {
    const file = copyFixture('vscode-mcp.jsonc', 'mcp.json')
    const r = removeClientServers(file, 'servers', ['socket', 'nope'])
    expect(r.removed).toEqual(['socket'])
    const text = fs.readFileSync(file, 'utf8')
    expect(text).toContain('// VS Code workspace MCP config')
    expect(text).toContain('/* a local server */')
    expect(text).not.toContain('websocket')
    const after = parse(text, [], { allowTrailingComma: true }) as { servers: Record<string, unknown> }
    expect(Object.keys(after.servers)).toEqual(['github', 'memory'])
  })

  it('a top level that is not an object, or a servers key that is not an object, is refused', () => {
    const a = path.join(dir, 'a.json')
    fs.writeFileSync(a, '[1, 2]')
    expect(() => writeClientConfig(a, connectSnippet('cursor', { launch }))).toThrowError(/top level is not a JSON object.*Nothing was changed/)
    const b = path.join(dir, 'b.json')
    fs.writeFileSync(b, '{"mcpServers": ["x"]}')
    expect(() => writeClientConfig(b, connectSnippet('cursor', { launch }))).toThrowError(/"mcpServers" is not an object of servers/)
    expect(fs.readFileSync(b, 'utf8')).toBe('{"mcpServers": ["x"]}')
  })

  it('VS Code: writes under "servers" with type stdio and keeps "inputs"', () => {
    const file = path.join(dir, '.vscode', 'mcp.json')
    fs.mkdirSync(path.dirname(file))
    fs.writeFileSync(file, JSON.stringify({ inputs: [{ id: 'x', type: 'promptString' }], servers: { other: { type: 'stdio', command: 'x' } } }, null, '\t'))
    writeClientConfig(file, connectSnippet('vscode', { launch }))
    const after = readJson(file)
    expect(after).toEqual({
      inputs: [{ id: 'x', type: 'promptString' }],
      servers: {
        other: { type: 'stdio', command: 'x' },
        toolgate: { type: 'stdio', command: '/usr/bin/node', args: ['/opt/toolgate/bin/toolgate.js', 'stdio'] },
      },
    })
    expect(fs.readFileSync(file, 'utf8')).toContain('\n\t"servers"')
  })
})

describe('connect --write: unreadable target', () => {
  it('a directory where the file should be is a clear error', () => {
    const file = path.join(dir, 'mcp.json')
    fs.mkdirSync(file)
    expect(() => writeClientConfig(file, connectSnippet('cursor', { launch }))).toThrowError(/cannot read the file .*Nothing was changed/)
  })
})
