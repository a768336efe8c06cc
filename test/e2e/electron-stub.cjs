// Preloaded with `node -r ./test/e2e/electron-stub.cjs out/main/index.js`: makes require('electron')
// return recording fakes, so the BUILT main bundle runs in plain Node (no Electron binary here).
// It prints `SMOKE_READY <json>` once the tray and IPC are up, then obeys stdin lines:
//   report              → `SMOKE_REPORT <json>`
//   ipc <op> <json args> → calls the IPC handler as the window would → `SMOKE_IPC <json>`
//   ipc-untrusted <op>  → the same from a foreign sender → `SMOKE_IPC <json>`
//   tray <label> [<sub>] → clicks a tray menu item (or an item of its submenu) → `SMOKE_CLICKED`
//   close               → clicks the window's close button
//   quit                → clicks "Quit Toolgate"; prints `SMOKE_DONE <json>` and exits 0 when the app quits
'use strict'
const Module = require('node:module')
const { EventEmitter } = require('node:events')
const fs = require('node:fs')
const readline = require('node:readline')

const rec = {
  singleInstanceRequested: 0,
  windows: [],
  trays: [],
  handlers: {},
  cspHooks: 0,
  notifications: [],
  errorBoxes: [],
  quitCalls: 0,
  exitCode: null,
}
const say = (tag, obj) => process.stdout.write(`${tag} ${JSON.stringify(obj ?? {})}\n`)

class WebContents extends EventEmitter {
  constructor() {
    super()
    this.sent = []
    // what IPC handlers see as event.senderFrame for the page's own code
    this.mainFrame = { url: '', parent: null }
  }
  getURL() {
    return this.mainFrame.url
  }
  send(channel, payload) {
    this.sent.push({ channel, type: payload && payload.type })
  }
  setWindowOpenHandler(h) {
    this.windowOpenHandler = h
  }
}
class BrowserWindow extends EventEmitter {
  constructor(options) {
    super()
    this.options = options
    this.webContents = new WebContents()
    this.visible = false
    this.destroyed = false
    this.loadedFile = null
    rec.windows.push(this)
  }
  loadFile(f) {
    this.loadedFile = f
    this.webContents.mainFrame.url = require('node:url').pathToFileURL(f).href
    setImmediate(() => this.emit('ready-to-show'))
    return Promise.resolve()
  }
  loadURL(u) {
    this.loadedUrl = u
    this.webContents.mainFrame.url = u
    return Promise.resolve()
  }
  show() {
    this.visible = true
  }
  hide() {
    this.visible = false
  }
  focus() {}
  restore() {}
  isMinimized() {
    return false
  }
  isDestroyed() {
    return this.destroyed
  }
  close() {
    let prevented = false
    this.emit('close', { preventDefault: () => (prevented = true) })
    if (!prevented) this.destroyed = true
  }
}
class Tray extends EventEmitter {
  constructor(image) {
    super()
    this.image = image
    this.tooltip = ''
    this.template = []
    rec.trays.push(this)
  }
  setImage(i) {
    this.image = i
  }
  setToolTip(t) {
    this.tooltip = t
  }
  setTitle(t) {
    this.title = t
  }
  setContextMenu(m) {
    this.template = m.template
  }
  destroy() {}
}
class Notification extends EventEmitter {
  static isSupported() {
    return true
  }
  constructor(o) {
    super()
    this.o = o
  }
  show() {
    rec.notifications.push(this.o)
  }
}
class App extends EventEmitter {
  constructor() {
    super()
    // SMOKE_PACKAGED=1 runs the bundle as an installed app would
    this.isPackaged = process.env.SMOKE_PACKAGED === '1'
  }
  requestSingleInstanceLock() {
    rec.singleInstanceRequested++
    return true
  }
  whenReady() {
    return Promise.resolve()
  }
  getAppPath() {
    return process.cwd()
  }
  exit(code) {
    rec.exitCode = code
    say('SMOKE_DONE', summary())
    process.exit(code)
  }
  quit() {
    rec.quitCalls++
    let prevented = false
    this.emit('before-quit', { preventDefault: () => (prevented = true) })
    if (!prevented) {
      this.emit('will-quit', { preventDefault() {} })
      say('SMOKE_DONE', summary())
      process.exit(0)
    }
  }
}
const app = new App()
const fakeElectron = {
  app,
  BrowserWindow,
  Tray,
  Notification,
  Menu: { buildFromTemplate: (template) => ({ template }) },
  nativeImage: { createFromPath: (p) => ({ path: p, exists: fs.existsSync(p) }), createEmpty: () => ({ path: '' }) },
  ipcMain: {
    handle: (channel, fn) => (rec.handlers[channel] = fn),
    removeHandler: (channel) => delete rec.handlers[channel],
  },
  session: {
    defaultSession: {
      webRequest: { onHeadersReceived: () => rec.cspHooks++ },
      setPermissionRequestHandler: (h) => (rec.permissionRequest = h),
      setPermissionCheckHandler: (h) => (rec.permissionCheck = h),
    },
  },
  dialog: { showErrorBox: (title, body) => rec.errorBoxes.push({ title, body }) },
  shell: { openExternal: () => Promise.resolve() },
  // a reversible stand-in for the OS keychain's encryption (the secret store's key is sealed with it)
  safeStorage: {
    isEncryptionAvailable: () => true,
    getSelectedStorageBackend: () => 'gnome_libsecret',
    encryptString: (s) => Buffer.from('stub-sealed:' + Buffer.from(s).toString('hex')),
    decryptString: (b) => Buffer.from(String(b).slice('stub-sealed:'.length), 'hex').toString(),
  },
}

const load = Module._load
Module._load = function (request, parent, isMain) {
  if (request === 'electron') return fakeElectron
  return load.call(this, request, parent, isMain)
}

function menuOf(tray) {
  return (tray.template || []).map((i) => ({
    label: i.type === 'separator' ? '---' : i.label,
    enabled: i.enabled !== false,
    submenu: i.submenu ? i.submenu.map((s) => (s.type === 'separator' ? '---' : s.label)) : undefined,
  }))
}
function summary() {
  const win = rec.windows[0]
  const tray = rec.trays[0]
  return {
    singleInstanceRequested: rec.singleInstanceRequested,
    windows: rec.windows.length,
    window: win && {
      webPreferences: win.options.webPreferences,
      loadedFile: win.loadedFile,
      loadedUrl: win.loadedUrl,
      visible: win.visible,
      destroyed: win.destroyed,
      sent: win.webContents.sent,
    },
    trays: rec.trays.length,
    tray: tray && { image: tray.image, tooltip: tray.tooltip, menu: menuOf(tray) },
    handlers: Object.keys(rec.handlers).sort(),
    cspHooks: rec.cspHooks,
    notifications: rec.notifications,
    errorBoxes: rec.errorBoxes,
    quitCalls: rec.quitCalls,
  }
}

// READY once the tray shows the servers (the first refresh after the core started)
const readyTimer = setInterval(() => {
  const tray = rec.trays[0]
  if (rec.errorBoxes.length) {
    clearInterval(readyTimer)
    say('SMOKE_READY', summary())
    return
  }
  if (tray && Object.keys(rec.handlers).length > 0 && tray.template.some((i) => /servers connected/.test(i.label || '') && !/of 0 servers/.test(i.label))) {
    clearInterval(readyTimer)
    say('SMOKE_READY', summary())
  }
}, 50)
readyTimer.unref()

function click(items, label) {
  const item = items.find((i) => i.label === label || (i.label && i.label.startsWith(label)))
  if (!item) throw new Error(`no menu item "${label}" in ${JSON.stringify(items.map((i) => i.label))}`)
  return item
}

const rl = readline.createInterface({ input: process.stdin })
rl.on('line', async (line) => {
  const [cmd, ...rest] = line.trim().split(' ')
  try {
    if (cmd === 'report') say('SMOKE_REPORT', summary())
    else if (cmd === 'ipc' || cmd === 'ipc-untrusted' || cmd === 'ipc-iframe') {
      const op = rest[0]
      const args = rest.length > 1 ? JSON.parse(rest.slice(1).join(' ')) : []
      const own = rec.windows[0].webContents
      const sender = cmd === 'ipc-untrusted' ? new WebContents() : own
      // an iframe inside our own window, showing the same page
      const senderFrame = cmd === 'ipc-iframe' ? { url: own.mainFrame.url, parent: own.mainFrame } : sender.mainFrame
      const h = rec.handlers[`toolgate:${op}`]
      if (!h) throw new Error(`no handler toolgate:${op}`)
      say('SMOKE_IPC', await h({ sender, senderFrame }, ...args))
    } else if (cmd === 'permission') {
      const [permission, url] = rest
      const granted = await new Promise((resolve) => rec.permissionRequest(rec.windows[0].webContents, permission, resolve, { requestingUrl: url }))
      say('SMOKE_PERMISSION', { permission, granted })
    } else if (cmd === 'tray') {
      const [top, sub] = rest.join(' ').split(' > ')
      let item = click(rec.trays[0].template, top)
      if (sub) item = click(item.submenu, sub)
      item.click()
      say('SMOKE_CLICKED', { label: item.label })
    } else if (cmd === 'close') {
      rec.windows[0].close()
      say('SMOKE_CLICKED', { label: 'close' })
    } else if (cmd === 'quit') {
      click(rec.trays[0].template, 'Quit Toolgate').click()
    }
  } catch (err) {
    say('SMOKE_ERROR', { message: String(err && err.message) })
  }
})
