// The preload: exposes the shared Api to the renderer as `window.toolgate` — an `invoke` per
// whitelisted operation and one event channel. ipcRenderer itself never crosses the bridge.
import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron'
import type { ApiEvent } from '../shared/api'
import { EVENT_CHANNEL, isApiOp, opChannel, SETTINGS_CHANNELS, type IpcResult, type ToolgateBridge } from '../shared/ipc'

const bridge: ToolgateBridge = {
  invoke(op: unknown, ...args: unknown[]): Promise<IpcResult> {
    if (!isApiOp(op)) return Promise.reject(new Error(`unknown Toolgate operation "${String(op)}"`))
    return ipcRenderer.invoke(opChannel(op), ...args) as Promise<IpcResult>
  },
  onEvent(listener: (event: ApiEvent) => void): () => void {
    const handler = (_e: IpcRendererEvent, event: ApiEvent) => listener(event)
    ipcRenderer.on(EVENT_CHANNEL, handler)
    return () => {
      ipcRenderer.removeListener(EVENT_CHANNEL, handler)
    }
  },
  settings: {
    getStartAtLogin: () => ipcRenderer.invoke(SETTINGS_CHANNELS.getStartAtLogin) as Promise<boolean>,
    setStartAtLogin: (on: boolean) => ipcRenderer.invoke(SETTINGS_CHANNELS.setStartAtLogin, on === true) as Promise<boolean>,
  },
}

contextBridge.exposeInMainWorld('toolgate', bridge)
