// @vitest-environment happy-dom
// The window's "Start at login" switch: shown in the desktop app only, off by default, and it
// writes the real autostart entry (Linux login-item code on a temp XDG_CONFIG_HOME).
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { App } from '../../src/renderer/components/App'
import { StoreProvider } from '../../src/renderer/store/context'
import { createAppStore } from '../../src/renderer/store/store'
import { getStartAtLogin, setStartAtLogin, type LoginItemEnv } from '../../src/main/electron/login-item'
import type { DesktopSettings } from '../../src/shared/ipc'
import { worldApi } from '../helpers/world-api'

const dirs: string[] = []
afterEach(() => {
  cleanup()
  while (dirs.length) fs.rmSync(dirs.pop()!, { recursive: true, force: true })
})

function linuxSettings(): { settings: DesktopSettings; file: string } {
  const config = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-xdg-'))
  dirs.push(config)
  const env: LoginItemEnv = {
    platform: 'linux',
    app: { isPackaged: true, getAppPath: () => '/app' } as unknown as LoginItemEnv['app'],
    execPath: '/usr/lib/toolgate/toolgate',
    env: { XDG_CONFIG_HOME: config },
    home: '/home/me',
  }
  return {
    settings: { getStartAtLogin: async () => getStartAtLogin(env), setStartAtLogin: async (on) => setStartAtLogin(env, on) },
    file: path.join(config, 'autostart', 'toolgate.desktop'),
  }
}

async function renderWith(desktop?: DesktopSettings) {
  const store = createAppStore(await worldApi(), { refreshDelayMs: 5 })
  render(
    <StoreProvider store={store}>
      <App desktop={desktop} />
    </StoreProvider>,
  )
  await waitFor(() => expect(document.querySelector('[data-server="gh"]')).toBeTruthy())
}

describe('Start at login in the window', () => {
  it('is off by default and the switch writes and removes the autostart entry', async () => {
    const { settings, file } = linuxSettings()
    await renderWith(settings)
    const box = (await screen.findByRole('checkbox', { name: 'Start at login' })) as HTMLInputElement
    await waitFor(() => expect(box.disabled).toBe(false))
    expect(box.checked).toBe(false)
    fireEvent.click(box)
    await waitFor(() => expect(box.checked).toBe(true))
    expect(fs.readFileSync(file, 'utf8')).toContain('\nExec=/usr/lib/toolgate/toolgate --hidden\n')
    fireEvent.click(box)
    await waitFor(() => expect(box.checked).toBe(false))
    expect(fs.existsSync(file)).toBe(false)
  })

  it('is not shown in the web UI (no desktop app behind it)', async () => {
    await renderWith(undefined)
    expect(screen.queryByRole('checkbox', { name: 'Start at login' })).toBeNull()
  })
})
