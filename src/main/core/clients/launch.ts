// How an MCP client should start `toolgate`: this install's node + bin/toolgate.js, or the
// packaged tray app's own binary running as Node (ELECTRON_RUN_AS_NODE=1), so the user needs no
// separate Node.
import path from 'node:path'

export interface LaunchCommand {
  command: string
  args: string[]
  env?: Record<string, string>
}

export interface LaunchOptions {
  /** node's execPath (npm install) or the app binary (packaged Electron app) */
  execPath: string
  /** bin/toolgate.js (npm install) or the bundled CLI inside the app */
  binPath: string
  electronApp?: boolean
}

export function launchCommand(opts: LaunchOptions): LaunchCommand {
  const launch: LaunchCommand = { command: opts.execPath, args: [path.resolve(opts.binPath)] }
  if (opts.electronApp) launch.env = { ELECTRON_RUN_AS_NODE: '1' }
  return launch
}

/**
 * The launch command of the running process: under Electron (the tray app, or its binary run
 * as Node) the app binary with ELECTRON_RUN_AS_NODE=1, otherwise node.
 */
export function currentLaunchCommand(binPath: string): LaunchCommand {
  return launchCommand({ execPath: process.execPath, binPath, electronApp: typeof process.versions.electron === 'string' })
}
