// Start at login: off by default; the tray checkbox and the window's switch (IPC) turn it on and
// off. Linux: checked by the autostart file it writes; macOS and Windows: Electron's login item.
// Through the glue with electron mocked and the real control service behind it.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
vi.mock('electron', () => import('../helpers/fake-electron'))
import { app, fake, ipcRenderer } from '../helpers/fake-electron'
import { runApp, type StartCore } from '../../src/main/electron/app'
import { desktopEntry, getStartAtLogin, setStartAtLogin, type LoginItemEnv } from '../../src/main/electron/login-item'
import { SETTINGS_CHANNELS } from '../../src/shared/ipc'
import { worldApi } from '../helpers/world-api'

let config: string
beforeEach(() => {
  fake.reset()
  config = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-xdg-'))
  vi.stubEnv('XDG_CONFIG_HOME', config)
  vi.stubEnv('APPIMAGE', '')
})
afterEach(() => {
  vi.unstubAllEnvs()
  fs.rmSync(config, { recursive: true, force: true })
})

async function start() {
  const api = await worldApi()
  const startCore: StartCore = async () => ({ api, info: await api.info(), url: null, stop: async () => undefined })
  await runApp(startCore, [])
  ipcRenderer.senderWindow = fake.windows[0]
}

type Item = { label?: string; type?: string; checked?: boolean; click?: (item: { checked: boolean }) => void }
const trayItem = () => (fake.trays[0].menu!.template as Item[]).find((i) => i.label === 'Start at login')!
const autostart = () => path.join(config, 'autostart', 'toolgate.desktop')

describe.runIf(process.platform === 'linux')('start at login on Linux: ~/.config/autostart/toolgate.desktop', () => {
  it('is off by default: no autostart file, the tray checkbox unchecked, the window says off', async () => {
    await start()
    expect(fs.existsSync(autostart())).toBe(false)
    expect(trayItem()).toMatchObject({ type: 'checkbox', checked: false })
    expect(await ipcRenderer.invoke(SETTINGS_CHANNELS.getStartAtLogin)).toBe(false)
  })

  it('the tray checkbox writes the autostart entry that starts the app hidden, and removes it again', async () => {
    await start()
    trayItem().click!({ checked: true }) // Electron flips a checkbox item before its click
    const text = fs.readFileSync(autostart(), 'utf8')
    expect(text).toContain('[Desktop Entry]\nType=Application\nName=Toolgate\n')
    // unpackaged: electron with the app folder; --hidden: into the tray, no window
    expect(text).toContain(`\nExec=${process.execPath} /app --hidden\n`)
    expect(trayItem().checked).toBe(true) // the menu was rebuilt
    expect(await ipcRenderer.invoke(SETTINGS_CHANNELS.getStartAtLogin)).toBe(true)
    trayItem().click!({ checked: false })
    expect(fs.existsSync(autostart())).toBe(false)
    expect(trayItem().checked).toBe(false)
  })

  it('the window switch (IPC) turns it on and off, and the tray follows', async () => {
    await start()
    expect(await ipcRenderer.invoke(SETTINGS_CHANNELS.setStartAtLogin, true)).toBe(true)
    expect(fs.existsSync(autostart())).toBe(true)
    expect(trayItem().checked).toBe(true)
    expect(await ipcRenderer.invoke(SETTINGS_CHANNELS.setStartAtLogin, false)).toBe(false)
    expect(fs.existsSync(autostart())).toBe(false)
  })

  it('a sender that is not our window cannot change it, and only true/false are accepted', async () => {
    await start()
    ipcRenderer.senderWindow = null
    await expect(ipcRenderer.invoke(SETTINGS_CHANNELS.setStartAtLogin, true)).rejects.toThrow(/unknown sender/)
    ipcRenderer.senderWindow = fake.windows[0]
    await expect(ipcRenderer.invoke(SETTINGS_CHANNELS.setStartAtLogin, 'yes')).rejects.toThrow(/true or false/)
    expect(fs.existsSync(autostart())).toBe(false)
  })
})

describe('the login item entry', () => {
  const env = (over: Partial<LoginItemEnv> = {}): LoginItemEnv => ({
    platform: 'linux',
    app: app as unknown as LoginItemEnv['app'],
    execPath: '/opt/Toolgate/toolgate',
    env: { XDG_CONFIG_HOME: config },
    home: '/home/me',
    ...over,
  })

  it('an installed app starts its own binary; an AppImage starts the AppImage; odd paths are quoted', () => {
    app.isPackaged = true
    expect(desktopEntry(env())).toContain('\nExec=/opt/Toolgate/toolgate --hidden\n')
    expect(desktopEntry(env({ env: { APPIMAGE: '/home/me/Apps/Toolgate 1.0 "beta".AppImage' } }))).toContain(
      '\nExec="/home/me/Apps/Toolgate 1.0 \\"beta\\".AppImage" --hidden\n',
    )
  })

  it.each(['darwin', 'win32'] as const)('%s: Electron login item settings, off by default', (platform) => {
    const e = env({ platform })
    expect(getStartAtLogin(e)).toBe(false)
    expect(setStartAtLogin(e, true)).toBe(true)
    expect(app.setLoginItemSettings).toHaveBeenLastCalledWith({ openAtLogin: true, args: ['--hidden'] })
    expect(setStartAtLogin(e, false)).toBe(false)
    expect(fs.existsSync(path.join(config, 'autostart'))).toBe(false) // no Linux file on other systems
  })
})
