// Which adapter the renderer uses: the preload bridge inside Electron, else HTTP (web UI).
import type { Api } from '../../shared/api'
import { ControlClient } from '../../shared/control-client'
import { IpcApi } from './ipc'
import { readApiKey } from './key'

export type ApiChoice = { kind: 'ipc' | 'http'; api: Api } | { kind: 'missing-key'; api: null }

export function selectApi(win: Window = window): ApiChoice {
  if (win.toolgate) return { kind: 'ipc', api: new IpcApi(win.toolgate) }
  const key = readApiKey({ location: win.location, history: win.history, storage: win.sessionStorage })
  if (!key) return { kind: 'missing-key', api: null }
  return { kind: 'http', api: new ControlClient({ key, unreachableHint: 'Is `toolgate serve` still running?', surface: 'ui' }) }
}
