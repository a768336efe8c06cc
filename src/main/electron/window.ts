// The one Toolgate window. Closing it hides it (the app lives in the tray); it is destroyed
// only when the app quits. Secure defaults: isolated, sandboxed, no Node, no navigation away.
import { join } from 'node:path'
import { BrowserWindow, app, shell } from 'electron'

export interface WindowOptions {
  /** true once the app is quitting: then close really closes */
  isQuitting: () => boolean
  show: boolean
  icon?: string
  /** what the window shows (rendererEntry()); the IPC sender check expects the same page */
  entry: RendererEntry
}

export type RendererEntry = { url: string } | { file: string }

/** A dev server URL is honored only in an unpackaged app, and only on loopback http(s). */
function devServerUrl(value: string | undefined): string | null {
  if (!value || app.isPackaged) return null
  try {
    const u = new URL(value)
    return /^https?:$/.test(u.protocol) && ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname) ? u.href : null
  } catch {
    return null
  }
}

/** The built page, or the electron-vite dev server (`npm run dev`) in an unpackaged app. */
export function rendererEntry(env: Record<string, string | undefined> = process.env): RendererEntry {
  const dev = devServerUrl(env.ELECTRON_RENDERER_URL)
  return dev ? { url: dev } : { file: join(__dirname, '../renderer/index.html') }
}

export function createMainWindow(opts: WindowOptions): BrowserWindow {
  const win = new BrowserWindow({
    width: 1080,
    height: 760,
    minWidth: 640,
    minHeight: 420,
    show: false,
    title: 'Toolgate',
    autoHideMenuBar: true,
    ...(opts.icon ? { icon: opts.icon } : {}),
    webPreferences: {
      preload: join(__dirname, '../preload/index.js'),
      contextIsolation: true,
      nodeIntegration: false,
      sandbox: true,
      webSecurity: true,
      spellcheck: false,
    },
  })

  win.on('close', (event) => {
    if (!opts.isQuitting()) {
      event.preventDefault()
      win.hide()
    }
  })
  if (opts.show) win.once('ready-to-show', () => win.show())

  // The renderer is a single page: it never navigates or opens windows; http(s) links go to the browser.
  win.webContents.on('will-navigate', (event) => event.preventDefault())
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (/^https?:\/\//.test(url)) void shell.openExternal(url)
    return { action: 'deny' }
  })

  const entry = opts.entry
  if ('url' in entry) void win.loadURL(entry.url)
  else void win.loadFile(entry.file)
  return win
}

/** Brings the window to the front (from the tray, a notification or a second launch). */
export function showWindow(win: BrowserWindow | null): void {
  if (!win || win.isDestroyed()) return
  if (win.isMinimized()) win.restore()
  win.show()
  win.focus()
}
