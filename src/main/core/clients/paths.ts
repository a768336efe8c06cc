// Where each MCP client keeps its config file, per OS, and which key holds its servers.
import os from 'node:os'
import path from 'node:path'

export const CLIENT_NAMES = ['claude-desktop', 'cursor', 'claude-code', 'vscode'] as const
export type ClientName = (typeof CLIENT_NAMES)[number]

/** The top-level key that holds the server map in the client's file. */
export type ServersKey = 'mcpServers' | 'servers'

export interface ClientPathOptions {
  platform?: NodeJS.Platform
  home?: string
  env?: NodeJS.ProcessEnv
  /** the workspace folder for VS Code (default: process.cwd()) */
  cwd?: string
}

export function isClientName(value: string): value is ClientName {
  return (CLIENT_NAMES as readonly string[]).includes(value)
}

export function clientServersKey(client: ClientName): ServersKey {
  return client === 'vscode' ? 'servers' : 'mcpServers'
}

export const CLIENT_LABELS: Record<ClientName, string> = {
  'claude-desktop': 'Claude Desktop',
  cursor: 'Cursor',
  'claude-code': 'Claude Code',
  vscode: 'VS Code',
}

/**
 * The default config file of `client`:
 * - Claude Desktop: macOS `~/Library/Application Support/Claude/claude_desktop_config.json`,
 *   Windows `%APPDATA%\Claude\claude_desktop_config.json`, Linux `$XDG_CONFIG_HOME` (default
 *   `~/.config`)`/Claude/claude_desktop_config.json`;
 * - Cursor: `~/.cursor/mcp.json` (user-wide);
 * - Claude Code: `~/.claude.json` (user scope; `$CLAUDE_CONFIG_DIR/.claude.json` when set);
 * - VS Code: the workspace's `.vscode/mcp.json` in `cwd`.
 * Paths use the separators of `platform`, so they can be computed for another OS.
 */
export function clientConfigPath(client: ClientName, opts: ClientPathOptions = {}): string {
  const platform = opts.platform ?? process.platform
  const env = opts.env ?? process.env
  const p = platform === 'win32' ? path.win32 : path.posix
  const home = opts.home ?? os.homedir()
  switch (client) {
    case 'claude-desktop': {
      if (platform === 'darwin') return p.join(home, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json')
      if (platform === 'win32') {
        const appData = nonEmpty(env.APPDATA) ?? p.join(home, 'AppData', 'Roaming')
        return p.join(appData, 'Claude', 'claude_desktop_config.json')
      }
      const configHome = absoluteOrUndefined(p, env.XDG_CONFIG_HOME) ?? p.join(home, '.config')
      return p.join(configHome, 'Claude', 'claude_desktop_config.json')
    }
    case 'cursor':
      return p.join(home, '.cursor', 'mcp.json')
    case 'claude-code':
      return p.join(nonEmpty(env.CLAUDE_CONFIG_DIR) ?? home, '.claude.json')
    case 'vscode':
      return p.join(opts.cwd ?? process.cwd(), '.vscode', 'mcp.json')
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value && value.trim() !== '' ? value : undefined
}

// The XDG spec says relative values are invalid and must be ignored.
function absoluteOrUndefined(p: path.PlatformPath, value: string | undefined): string | undefined {
  const v = nonEmpty(value)
  return v && p.isAbsolute(v) ? v : undefined
}
