// The exact config entry a client needs to start Toolgate over stdio.
import path from 'node:path'
import type { LaunchCommand } from './launch'
import { clientServersKey, type ClientName } from './paths'

export const TOOLGATE_ENTRY_NAME = 'toolgate'

export interface ClientServerEntry {
  type?: 'stdio'
  command: string
  args: string[]
  env?: Record<string, string>
}

/** `{"mcpServers": {"toolgate": …}}`, or `{"servers": {"toolgate": …}}` for VS Code. */
export type ClientSnippet = { mcpServers: Record<string, ClientServerEntry> } | { servers: Record<string, ClientServerEntry> }

export interface SnippetOptions {
  launch: LaunchCommand
  /** agent identity (`--agent NAME`) the client's session runs as */
  agent?: string
  /** `--data-dir D`; made absolute, since the client starts Toolgate from its own cwd */
  dataDir?: string
  /** `--config F` (a non-default config file); made absolute too */
  config?: string
}

export function connectEntry(client: ClientName, opts: SnippetOptions): ClientServerEntry {
  const args = [...opts.launch.args, 'stdio']
  if (opts.agent) args.push('--agent', opts.agent)
  if (opts.config) args.push('--config', path.resolve(opts.config))
  if (opts.dataDir) args.push('--data-dir', path.resolve(opts.dataDir))
  const entry: ClientServerEntry = client === 'vscode' ? { type: 'stdio', command: opts.launch.command, args } : { command: opts.launch.command, args }
  if (opts.launch.env && Object.keys(opts.launch.env).length > 0) entry.env = { ...opts.launch.env }
  return entry
}

export function connectSnippet(client: ClientName, opts: SnippetOptions): ClientSnippet {
  const servers = { [TOOLGATE_ENTRY_NAME]: connectEntry(client, opts) }
  return clientServersKey(client) === 'servers' ? { servers } : { mcpServers: servers }
}

/** The snippet as pretty JSON (2-space indent, trailing newline), ready to paste. */
export function snippetText(client: ClientName, opts: SnippetOptions): string {
  return JSON.stringify(connectSnippet(client, opts), null, 2) + '\n'
}
