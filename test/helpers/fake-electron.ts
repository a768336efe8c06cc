// A stand-in for the `electron` module (the binary cannot run here). Records what the main
// process and the preload do with it. Use: vi.mock('electron', () => import('./fake-electron')).
import { EventEmitter } from 'node:events'
import { pathToFileURL } from 'node:url'
import { vi } from 'vitest'

type Handler = (event: unknown, ...args: unknown[]) => unknown

export const fake = {
  windows: [] as FakeBrowserWindow[],
  trays: [] as FakeTray[],
  notifications: [] as FakeNotification[],
  handlers: new Map<string, Handler>(),
  exposed: new Map<string, unknown>(),
  rendererListeners: new Map<string, Set<(...a: unknown[]) => void>>(),
  headerHooks: [] as Array<(details: { responseHeaders?: Record<string, string[]> }, cb: (r: unknown) => void) => void>,
  permissionRequest: null as null | ((wc: unknown, permission: string, cb: (granted: boolean) => void, details: { requestingUrl?: string }) => void),
  permissionCheck: null as null | ((wc: unknown, permission: string, origin: string) => boolean),
  singleInstance: true,
  notificationsSupported: true,
  /** safeStorage: available, with this Linux backend; `sealed` counts encryptString calls */
  safeStorage: { available: true, backend: 'gnome_libsecret', sealed: 0 },
  reset() {
    this.safeStorage = { available: true, backend: 'gnome_libsecret', sealed: 0 }
    this.windows.length = 0
    this.trays.length = 0
    this.notifications.length = 0
    this.handlers.clear()
    this.exposed.clear()
    this.rendererListeners.clear()
    this.headerHooks.length = 0
    this.permissionRequest = null
    this.permissionCheck = null
    app.isPackaged = false
    app.loginItem = { openAtLogin: false, args: [] }
    ipcRenderer.senderWindow = null
    ipcRenderer.senderFrame = null
    this.singleInstance = true
    this.notificationsSupported = true
    app.removeAllListeners()
    vi.clearAllMocks()
  },
}

/** A frame as Electron's WebFrameMain shows it to IPC handlers: its URL and its parent (null for the main frame). */
export class FakeFrame {
  constructor(
    public url = '',
    public parent: FakeFrame | null = null,
  ) {}
}

class FakeWebContents extends EventEmitter {
  mainFrame = new FakeFrame()
  getURL = () => this.mainFrame.url
  sent: Array<[string, unknown]> = []
  windowOpenHandler: ((d: { url: string }) => unknown) | null = null
  send(channel: string, payload: unknown) {
    this.sent.push([channel, payload])
  }
  setWindowOpenHandler(h: (d: { url: string }) => unknown) {
    this.windowOpenHandler = h
  }
}

export class FakeBrowserWindow extends EventEmitter {
  webContents = new FakeWebContents()
  visible = false
  destroyed = false
  loaded: { file?: string; url?: string } = {}
  constructor(public options: Record<string, unknown>) {
    super()
    fake.windows.push(this)
  }
  show = vi.fn(() => void (this.visible = true))
  hide = vi.fn(() => void (this.visible = false))
  focus = vi.fn()
  restore = vi.fn()
  isMinimized = () => false
  isVisible = () => this.visible
  isDestroyed = () => this.destroyed
  loadFile = vi.fn(async (file: string) => {
    this.loaded.file = file
    this.webContents.mainFrame.url = pathToFileURL(file).href
  })
  loadURL = vi.fn(async (url: string) => {
    this.loaded.url = url
    this.webContents.mainFrame.url = url
  })
  /** what clicking the window's close button does */
  close() {
    let prevented = false
    this.emit('close', { preventDefault: () => void (prevented = true) })
    if (!prevented) {
      this.destroyed = true
      this.visible = false
      this.emit('closed')
    }
  }
}

export class FakeTray extends EventEmitter {
  tooltip = ''
  title = ''
  menu: { template: Array<Record<string, unknown>> } | null = null
  destroyed = false
  constructor(public image: { path: string }) {
    super()
    fake.trays.push(this)
  }
  setToolTip(t: string) {
    this.tooltip = t
  }
  setTitle(t: string) {
    this.title = t
  }
  setImage(i: { path: string }) {
    this.image = i
  }
  setContextMenu(m: { template: Array<Record<string, unknown>> }) {
    this.menu = m
  }
  destroy() {
    this.destroyed = true
  }
}

export class FakeNotification extends EventEmitter {
  shown = false
  constructor(public options: { title: string; body: string }) {
    super()
    fake.notifications.push(this)
  }
  static isSupported() {
    return fake.notificationsSupported
  }
  show() {
    this.shown = true
  }
}

class FakeApp extends EventEmitter {
  isPackaged = false
  loginItem = { openAtLogin: false, args: [] as string[] }
  getLoginItemSettings = vi.fn(() => ({ ...this.loginItem, wasOpenedAtLogin: false }))
  setLoginItemSettings = vi.fn((s: { openAtLogin: boolean; args?: string[] }) => void (this.loginItem = { openAtLogin: s.openAtLogin, args: s.args ?? [] }))
  requestSingleInstanceLock = vi.fn(() => fake.singleInstance)
  whenReady = vi.fn(() => Promise.resolve())
  getAppPath = vi.fn(() => '/app')
  exit = vi.fn()
  quit = vi.fn(() => {
    let prevented = false
    this.emit('before-quit', { preventDefault: () => void (prevented = true) })
    if (!prevented) this.emit('will-quit')
  })
}

export const app = new FakeApp()
export const BrowserWindow = FakeBrowserWindow
export const Tray = FakeTray
export const Notification = FakeNotification
export const Menu = { buildFromTemplate: vi.fn((template: Array<Record<string, unknown>>) => ({ template })) }
export const nativeImage = { createFromPath: vi.fn((path: string) => ({ path })), createEmpty: vi.fn(() => ({ path: '' })) }
export const dialog = { showErrorBox: vi.fn() }
/** A reversible stand-in for the OS keychain's encryption: enough to prove what the app seals and opens. */
export const safeStorage = {
  isEncryptionAvailable: () => fake.safeStorage.available,
  getSelectedStorageBackend: () => fake.safeStorage.backend,
  encryptString(plain: string): Buffer {
    fake.safeStorage.sealed++
    return Buffer.from(`fake-sealed:${Buffer.from(plain, 'utf8').toString('hex')}`)
  },
  decryptString(sealed: Buffer): string {
    const text = sealed.toString('utf8')
    if (!text.startsWith('fake-sealed:')) throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.')
    return Buffer.from(text.slice('fake-sealed:'.length), 'hex').toString('utf8')
  },
}
export const shell = { openExternal: vi.fn(async () => undefined) }
export const session = {
  defaultSession: {
    webRequest: {
      onHeadersReceived: vi.fn((hook: (typeof fake.headerHooks)[number]) => void fake.headerHooks.push(hook)),
    },
    setPermissionRequestHandler: vi.fn((h: typeof fake.permissionRequest) => void (fake.permissionRequest = h)),
    setPermissionCheckHandler: vi.fn((h: typeof fake.permissionCheck) => void (fake.permissionCheck = h)),
  },
}
export const ipcMain = {
  handle: vi.fn((channel: string, h: Handler) => {
    if (fake.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`)
    fake.handlers.set(channel, h)
  }),
  removeHandler: vi.fn((channel: string) => void fake.handlers.delete(channel)),
}

/** The renderer side: invoke reaches the handlers registered on ipcMain, like Electron does. */
export const ipcRenderer = {
  senderWindow: null as FakeBrowserWindow | null,
  /** the frame the renderer code runs in; default: the main frame of senderWindow */
  senderFrame: null as FakeFrame | null,
  invoke: vi.fn(async (channel: string, ...args: unknown[]) => {
    const h = fake.handlers.get(channel)
    if (!h) throw new Error(`No handler registered for '${channel}'`)
    const sender = ipcRenderer.senderWindow?.webContents ?? null
    return h({ sender, senderFrame: ipcRenderer.senderFrame ?? sender?.mainFrame ?? null }, ...args)
  }),
  on: vi.fn((channel: string, l: (...a: unknown[]) => void) => {
    const set = fake.rendererListeners.get(channel) ?? new Set()
    set.add(l)
    fake.rendererListeners.set(channel, set)
  }),
  removeListener: vi.fn((channel: string, l: (...a: unknown[]) => void) => void fake.rendererListeners.get(channel)?.delete(l)),
}
export const contextBridge = {
  exposeInMainWorld: vi.fn((key: string, api: unknown) => void fake.exposed.set(key, api)),
}

export default { app, BrowserWindow, Tray, Notification, Menu, nativeImage, dialog, safeStorage, shell, session, ipcMain, ipcRenderer, contextBridge }
