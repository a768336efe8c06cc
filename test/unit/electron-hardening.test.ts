// Electron hardening, through the glue with electron mocked and the real control service over a
// real catalog behind it: the dev server URL only in an unpackaged app, IPC only from the main
// frame of our own window showing our own page, and no web permission but clipboard write.
import { pathToFileURL } from 'node:url'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
vi.mock('electron', () => import('../helpers/fake-electron'))
import { app, fake, FakeFrame, ipcRenderer } from '../helpers/fake-electron'
import { runApp, type StartCore } from '../../src/main/electron/app'
import { rendererEntry } from '../../src/main/electron/window'
import { buildWorld } from '../helpers/catalog-fixture'
import type { IpcResult } from '../../src/shared/ipc'

beforeEach(() => fake.reset())
afterEach(() => vi.unstubAllEnvs())

async function start(argv: string[] = []) {
  const api = (await buildWorld()).core.api
  const startCore: StartCore = async () => ({ api, info: await api.info(), url: null, stop: async () => undefined })
  await runApp(startCore, argv)
  return fake.windows[0]
}

/** What the renderer code in `frame` of `window` gets for an IPC call. */
async function invokeFrom(win: (typeof fake.windows)[number] | null, frame: FakeFrame | null, op: string): Promise<IpcResult> {
  ipcRenderer.senderWindow = win
  ipcRenderer.senderFrame = frame
  return (await ipcRenderer.invoke(`toolgate:${op}`)) as IpcResult
}

describe('the dev server URL (ELECTRON_RENDERER_URL)', () => {
  it('is loaded in an unpackaged app (npm run dev)', async () => {
    vi.stubEnv('ELECTRON_RENDERER_URL', 'http://localhost:5173/')
    const win = await start()
    expect(win.loaded).toEqual({ url: 'http://localhost:5173/' })
    expect(fake.headerHooks).toHaveLength(0) // the dev server needs inline scripts (React refresh) and ws: (HMR)
  })

  it('is ignored in a packaged app: the built page loads', async () => {
    app.isPackaged = true
    vi.stubEnv('ELECTRON_RENDERER_URL', 'http://localhost:5173/')
    const win = await start()
    expect(win.loaded.url).toBeUndefined()
    expect(win.loaded.file).toMatch(/renderer[/\\]index\.html$/)
    expect(fake.headerHooks).toHaveLength(1) // the strict CSP header
  })

  it('is ignored unless it is http(s) on loopback', () => {
    for (const url of ['https://evil.example/', 'file:///tmp/x.html', 'javascript:alert(1)', 'not a url']) {
      expect(rendererEntry({ ELECTRON_RENDERER_URL: url })).toHaveProperty('file')
    }
    expect(rendererEntry({ ELECTRON_RENDERER_URL: 'http://127.0.0.1:5173' })).toEqual({ url: 'http://127.0.0.1:5173/' })
  })
})

describe('IPC senders are checked by frame', () => {
  it('the main frame of our window, showing our page, reaches the core', async () => {
    const win = await start()
    const res = await invokeFrom(win, null, 'servers')
    expect(res.ok).toBe(true)
    expect((res as { value: { servers: Array<{ name: string }> } }).value.servers.map((s) => s.name).sort()).toEqual(['files', 'gh', 'legacy', 'sketchy'])
  })

  it('an iframe inside our window is refused', async () => {
    const win = await start()
    const iframe = new FakeFrame(win.webContents.mainFrame.url, win.webContents.mainFrame)
    expect(await invokeFrom(win, iframe, 'servers')).toMatchObject({ ok: false, error: { code: 'forbidden', status: 403 } })
  })

  it('our window after it navigated to another page is refused', async () => {
    const win = await start()
    win.webContents.mainFrame.url = 'https://evil.example/index.html'
    expect(await invokeFrom(win, null, 'servers')).toMatchObject({ ok: false, error: { status: 403 } })
    win.webContents.mainFrame.url = pathToFileURL('/tmp/other/index.html').href
    expect(await invokeFrom(win, null, 'servers')).toMatchObject({ ok: false, error: { status: 403 } })
  })

  it('another webContents (not our window) is refused, and so is a sender without a frame', async () => {
    const win = await start()
    const other = new (await import('../helpers/fake-electron')).FakeBrowserWindow({})
    await other.loadFile(fake.windows[0].loaded.file!)
    expect(await invokeFrom(other, null, 'servers')).toMatchObject({ ok: false, error: { status: 403 } })
    const h = fake.handlers.get('toolgate:servers')!
    expect(await h({ sender: win.webContents, senderFrame: null })).toMatchObject({ ok: false, error: { status: 403 } })
  })

  it('the dev server page is accepted by origin in an unpackaged app', async () => {
    vi.stubEnv('ELECTRON_RENDERER_URL', 'http://localhost:5173/')
    const win = await start()
    win.webContents.mainFrame.url = 'http://localhost:5173/#/search'
    expect((await invokeFrom(win, null, 'status')).ok).toBe(true)
    win.webContents.mainFrame.url = 'http://localhost:5174/'
    expect((await invokeFrom(win, null, 'status')).ok).toBe(false)
  })
})

describe('web permissions', () => {
  const ask = (permission: string, requestingUrl: string) =>
    new Promise<boolean>((resolve) => fake.permissionRequest!(fake.windows[0].webContents, permission, resolve, { requestingUrl }))

  it('only clipboard write is granted, and only to our page', async () => {
    const win = await start()
    const own = win.webContents.mainFrame.url
    expect(own).toMatch(/^file:.*renderer\/index\.html$/)
    expect(await ask('clipboard-sanitized-write', own)).toBe(true)
    for (const p of ['media', 'geolocation', 'notifications', 'clipboard-read', 'openExternal', 'fullscreen', 'hid', 'unknown']) {
      expect(await ask(p, own), p).toBe(false)
    }
    expect(await ask('clipboard-sanitized-write', 'https://evil.example/')).toBe(false)
  })

  it('permission checks answer the same', async () => {
    await start()
    expect(fake.permissionCheck!(fake.windows[0].webContents, 'clipboard-sanitized-write', 'file:///')).toBe(true)
    expect(fake.permissionCheck!(fake.windows[0].webContents, 'clipboard-read', 'file:///')).toBe(false)
    expect(fake.permissionCheck!(fake.windows[0].webContents, 'media', 'file:///')).toBe(false)
    expect(fake.permissionCheck!(fake.windows[0].webContents, 'clipboard-sanitized-write', 'https://evil.example')).toBe(false)
  })
})
