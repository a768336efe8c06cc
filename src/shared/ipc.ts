// The IPC contract between the Electron main process, the preload and the renderer: one channel
// per operation of the table (operations.ts), one event channel, errors as data, and the shape
// of `window.toolgate`. Pure: no electron import, so every side shares the same whitelist.
import type { ApiEvent } from './api'
import { isOpName, OP_NAMES, type OpName } from './operations'

/** An operation the renderer may invoke: exactly the table's (operations.ts). */
export type ApiOp = OpName

export const API_OPS: readonly ApiOp[] = OP_NAMES

export const EVENT_CHANNEL = 'toolgate:event'

export function opChannel(op: ApiOp): string {
  return `toolgate:${op}`
}

export function isApiOp(op: unknown): op is ApiOp {
  return isOpName(op)
}

/** Errors cross IPC as data so code and status survive (Electron keeps only the message). */
export type IpcResult<T = unknown> = { ok: true; value: T } | { ok: false; error: { code: string; message: string; status: number } }

/** Settings of the desktop app only (no meaning for `toolgate serve`), each on its own channel. */
export interface DesktopSettings {
  getStartAtLogin(): Promise<boolean>
  /** returns the setting as it now is */
  setStartAtLogin(on: boolean): Promise<boolean>
}

export const SETTINGS_CHANNELS = {
  getStartAtLogin: 'toolgate:settings:getStartAtLogin',
  setStartAtLogin: 'toolgate:settings:setStartAtLogin',
} as const satisfies Record<keyof DesktopSettings, string>

/** `window.toolgate`, exposed by the preload: an `invoke` per whitelisted operation, one event channel, the desktop settings. */
export interface ToolgateBridge {
  invoke(op: ApiOp, ...args: unknown[]): Promise<IpcResult>
  onEvent(listener: (event: ApiEvent) => void): () => void
  settings?: DesktopSettings
}
