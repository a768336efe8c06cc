// Globals of the renderer: `window.toolgate`, the preload's bridge (its type is the IPC contract in src/shared/ipc.ts).
import type { ToolgateBridge } from '../shared/ipc'

declare global {
  interface Window {
    toolgate?: ToolgateBridge
  }
}
