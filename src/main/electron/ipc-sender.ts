// Who may call the core over IPC: only the main frame of our own window, showing our own page.
// Like VS Code's validatedIpcMain, the sender's frame is checked on every message, so an iframe,
// a page navigated elsewhere, or another webContents gets nothing.
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { IpcMainInvokeEvent, WebContents } from 'electron'
import type { RendererEntry } from './window'

function parse(url: string): URL | null {
  try {
    return new URL(url)
  } catch {
    return null
  }
}

/** True when `url` is the page the window was told to load (any hash or query). */
export function isRendererUrl(url: string, entry: RendererEntry): boolean {
  const u = parse(url)
  if (!u) return false
  if ('file' in entry) return u.protocol === 'file:' && u.host === '' && path.resolve(fileURLToPath(u)) === path.resolve(entry.file)
  const expected = new URL(entry.url)
  return u.protocol === expected.protocol && u.host === expected.host
}

/** True when `origin` (a permission check's requesting origin) is the origin of our page. */
export function isRendererOrigin(origin: string, entry: RendererEntry): boolean {
  const u = parse(origin)
  if (!u) return false
  if ('file' in entry) return u.protocol === 'file:' && u.host === ''
  return u.origin === new URL(entry.url).origin
}

export type SenderEvent = Pick<IpcMainInvokeEvent, 'sender' | 'senderFrame'>
export interface OwnWindow {
  webContents: WebContents
  isDestroyed(): boolean
}

/** The check for every IPC message: our window's webContents, its main frame, our page. */
export function senderValidator(window: () => OwnWindow | null, entry: RendererEntry): (event: SenderEvent) => boolean {
  return (event) => {
    const win = window()
    if (!win || win.isDestroyed() || event.sender !== win.webContents) return false
    const frame = event.senderFrame
    if (!frame || frame.parent !== null || frame !== win.webContents.mainFrame) return false
    return isRendererUrl(frame.url, entry)
  }
}
