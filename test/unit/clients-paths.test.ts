import { describe, expect, it } from 'vitest'
import { clientConfigPath, clientServersKey, isClientName } from '../../src/main/core/clients/paths'
import { resolveImportSource } from '../../src/main/core/clients/import'

describe('clientConfigPath: where each client keeps its MCP config', () => {
  it('Claude Desktop on macOS, Windows and Linux', () => {
    expect(clientConfigPath('claude-desktop', { platform: 'darwin', home: '/Users/ann', env: {} })).toBe(
      '/Users/ann/Library/Application Support/Claude/claude_desktop_config.json',
    )
    expect(clientConfigPath('claude-desktop', { platform: 'win32', home: 'C:\\Users\\ann', env: { APPDATA: 'D:\\Roaming' } })).toBe(
      'D:\\Roaming\\Claude\\claude_desktop_config.json',
    )
    expect(clientConfigPath('claude-desktop', { platform: 'linux', home: '/home/ann', env: {} })).toBe('/home/ann/.config/Claude/claude_desktop_config.json')
  })

  it("Windows without APPDATA falls back to the profile's AppData\\Roaming", () => {
    expect(clientConfigPath('claude-desktop', { platform: 'win32', home: 'C:\\Users\\ann', env: {} })).toBe(
      'C:\\Users\\ann\\AppData\\Roaming\\Claude\\claude_desktop_config.json',
    )
  })

  it('Linux honors an absolute XDG_CONFIG_HOME and ignores a relative one', () => {
    expect(clientConfigPath('claude-desktop', { platform: 'linux', home: '/home/ann', env: { XDG_CONFIG_HOME: '/xdg' } })).toBe(
      '/xdg/Claude/claude_desktop_config.json',
    )
    expect(clientConfigPath('claude-desktop', { platform: 'linux', home: '/home/ann', env: { XDG_CONFIG_HOME: 'rel' } })).toBe(
      '/home/ann/.config/Claude/claude_desktop_config.json',
    )
  })

  it('Cursor: ~/.cursor/mcp.json on every OS', () => {
    expect(clientConfigPath('cursor', { platform: 'darwin', home: '/Users/ann' })).toBe('/Users/ann/.cursor/mcp.json')
    expect(clientConfigPath('cursor', { platform: 'linux', home: '/home/ann' })).toBe('/home/ann/.cursor/mcp.json')
    expect(clientConfigPath('cursor', { platform: 'win32', home: 'C:\\Users\\ann' })).toBe('C:\\Users\\ann\\.cursor\\mcp.json')
  })

  it('Claude Code: ~/.claude.json (user scope), or inside CLAUDE_CONFIG_DIR', () => {
    expect(clientConfigPath('claude-code', { platform: 'linux', home: '/home/ann', env: {} })).toBe('/home/ann/.claude.json')
    expect(clientConfigPath('claude-code', { platform: 'win32', home: 'C:\\Users\\ann', env: {} })).toBe('C:\\Users\\ann\\.claude.json')
    expect(clientConfigPath('claude-code', { platform: 'linux', home: '/home/ann', env: { CLAUDE_CONFIG_DIR: '/cfg/claude' } })).toBe(
      '/cfg/claude/.claude.json',
    )
  })

  it('VS Code: the workspace .vscode/mcp.json in cwd', () => {
    expect(clientConfigPath('vscode', { platform: 'linux', cwd: '/src/project' })).toBe('/src/project/.vscode/mcp.json')
    expect(clientConfigPath('vscode', { platform: 'win32', cwd: 'C:\\src\\project' })).toBe('C:\\src\\project\\.vscode\\mcp.json')
  })

  it('knows which key holds the servers and which names are clients', () => {
    expect(clientServersKey('vscode')).toBe('servers')
    expect(clientServersKey('claude-desktop')).toBe('mcpServers')
    expect(clientServersKey('cursor')).toBe('mcpServers')
    expect(clientServersKey('claude-code')).toBe('mcpServers')
    expect(isClientName('cursor')).toBe(true)
    expect(isClientName('./cursor.json')).toBe(false)
  })

  it('import source: a client name means its default file, anything else a file path', () => {
    expect(resolveImportSource('cursor', { platform: 'linux', home: '/home/ann' })).toEqual({ file: '/home/ann/.cursor/mcp.json', format: 'cursor' })
    expect(resolveImportSource('configs/mcp.json', { cwd: '/work' })).toEqual({ file: '/work/configs/mcp.json', format: 'auto' })
  })
})
