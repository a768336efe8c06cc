// Start at login (off by default): Electron's login item on macOS and Windows, an XDG autostart
// entry (~/.config/autostart/toolgate.desktop) on Linux. The app starts hidden in the tray.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { App } from 'electron'

export interface LoginItemEnv {
  platform: NodeJS.Platform
  app: Pick<App, 'getLoginItemSettings' | 'setLoginItemSettings' | 'isPackaged' | 'getAppPath'>
  execPath: string
  env: Record<string, string | undefined>
  home: string
}

const HIDDEN = '--hidden'

export function defaultLoginEnv(app: LoginItemEnv['app']): LoginItemEnv {
  return { platform: process.platform, app, execPath: process.execPath, env: process.env, home: os.homedir() }
}

/** ~/.config/autostart/toolgate.desktop (XDG_CONFIG_HOME respected). */
export function autostartFile(e: Pick<LoginItemEnv, 'env' | 'home'>): string {
  const base = e.env.XDG_CONFIG_HOME && path.isAbsolute(e.env.XDG_CONFIG_HOME) ? e.env.XDG_CONFIG_HOME : path.join(e.home, '.config')
  return path.join(base, 'autostart', 'toolgate.desktop')
}

/** The command that starts this app: the AppImage, the installed binary, or (unpackaged) electron with the app folder. */
export function launchArgs(e: LoginItemEnv): string[] {
  if (e.env.APPIMAGE) return [e.env.APPIMAGE, HIDDEN]
  return e.app.isPackaged ? [e.execPath, HIDDEN] : [e.execPath, e.app.getAppPath(), HIDDEN]
}

/** One argument of an Exec= line (Desktop Entry spec: quote, and escape ", `, $ and \\). */
function execArg(a: string): string {
  return /^[\w@%+=:,./-]+$/.test(a) ? a : `"${a.replace(/(["`$\\])/g, '\\$1')}"`
}

export function desktopEntry(e: LoginItemEnv): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=Toolgate',
    'Comment=One safe MCP endpoint in front of every MCP server you use',
    `Exec=${launchArgs(e).map(execArg).join(' ')}`,
    'Icon=toolgate',
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n')
}

export function getStartAtLogin(e: LoginItemEnv): boolean {
  if (e.platform === 'linux') return fs.existsSync(autostartFile(e))
  return e.app.getLoginItemSettings(e.platform === 'win32' ? { args: [HIDDEN] } : undefined).openAtLogin
}

export function setStartAtLogin(e: LoginItemEnv, on: boolean): boolean {
  if (e.platform === 'linux') {
    const file = autostartFile(e)
    if (on) {
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.writeFileSync(file, desktopEntry(e), { mode: 0o644 })
    } else {
      fs.rmSync(file, { force: true })
    }
  } else {
    // Windows passes --hidden; macOS has no arguments for login items: the app asks wasOpenedAtLogin
    e.app.setLoginItemSettings({ openAtLogin: on, args: [HIDDEN] })
  }
  return getStartAtLogin(e)
}
