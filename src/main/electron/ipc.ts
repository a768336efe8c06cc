// IPC handlers, derived from the table of operations (shared/operations.ts): each
// `toolgate:<op>` checks the renderer's arguments with the operation's zod schema, then calls the
// core's Api; core events go to the window on one channel.
import type { IpcMain } from 'electron'
import type { SenderEvent } from './ipc-sender'
import { ApiError, type Api, type ApiEvent } from '../../shared/api'
import { callOperation, ipcArgs, type OpName } from '../../shared/operations'
import { API_OPS, opChannel, SETTINGS_CHANNELS, type IpcResult } from '../../shared/ipc'

/** Opens a sign-in page in the system browser (http(s) only). */
export type OpenExternal = (url: string) => Promise<void>

/** Checks the renderer's arguments and calls the matching Api method. */
export async function callOp(api: Api, op: OpName, args: readonly unknown[], openExternal?: OpenExternal): Promise<unknown> {
  // an answer over IPC is recorded as given where this Api is (the window), whatever the renderer sends
  if (op === 'signIn' && openExternal) {
    const start = await api.signIn(...ipcArgs(op, args))
    // the desktop app opens the system browser itself; the window only shows that it waits
    await openExternal(start.authorization_url)
    return { ...start, opened: true }
  }
  return callOperation(api, op, ipcArgs(op, args))
}

export function toIpcError(err: unknown): IpcResult {
  if (err instanceof ApiError) return { ok: false, error: { code: err.code, message: err.message, status: err.status } }
  return { ok: false, error: { code: 'internal', message: err instanceof Error ? err.message : String(err), status: 500 } }
}

export interface IpcOptions {
  /** only the main frame of our own window, showing our page, may call the core (senderValidator) */
  isTrustedSender: (event: SenderEvent) => boolean
  /** signIn opens the authorization page with this (shell.openExternal) */
  openExternal?: OpenExternal
}

/** Registers one handler per operation; returns a function that removes them. */
export function registerIpcHandlers(ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>, api: Api, opts: IpcOptions): () => void {
  for (const op of API_OPS) {
    ipcMain.handle(opChannel(op), async (event, ...args: unknown[]): Promise<IpcResult> => {
      if (!opts.isTrustedSender(event)) return toIpcError(new ApiError('forbidden', 'IPC from an unknown sender', 403))
      try {
        return { ok: true, value: await callOp(api, op, args, opts.openExternal) }
      } catch (err) {
        return toIpcError(err)
      }
    })
  }
  return () => {
    for (const op of API_OPS) ipcMain.removeHandler(opChannel(op))
  }
}

export interface StartAtLogin {
  get(): boolean
  set(on: boolean): boolean
}

/** The desktop settings' channels, behind the same sender check; returns a function that removes them. */
export function registerSettingsHandlers(ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>, login: StartAtLogin, opts: IpcOptions): () => void {
  const guard = (event: SenderEvent): void => {
    if (!opts.isTrustedSender(event)) throw new Error('IPC from an unknown sender')
  }
  ipcMain.handle(SETTINGS_CHANNELS.getStartAtLogin, (event) => {
    guard(event)
    return login.get()
  })
  ipcMain.handle(SETTINGS_CHANNELS.setStartAtLogin, (event, on: unknown) => {
    guard(event)
    if (typeof on !== 'boolean') throw new Error('setStartAtLogin needs true or false')
    return login.set(on)
  })
  return () => {
    for (const ch of Object.values(SETTINGS_CHANNELS)) ipcMain.removeHandler(ch)
  }
}

/** Forwards every core event to `send` (the window's webContents); returns the unsubscribe. */
export function forwardEvents(api: Api, send: (event: ApiEvent) => void): () => void {
  return api.subscribe((event) => {
    try {
      send(event)
    } catch {
      // the window is gone or reloading: it refetches everything when it comes back
    }
  })
}
