// The shape of `window.toolgate`, exposed by the Electron preload (src/preload/index.ts).
// Every Api operation except `subscribe` is one `invoke(op, ...args)`; events come on one channel.
import type { Api, ApiEvent } from '../../shared/api'

export type BridgeOp = Exclude<keyof Api, 'subscribe'>

/** What the main process answers: errors travel as data so code and status survive IPC. */
export type BridgeResult<T = unknown> = { ok: true; value: T } | { ok: false; error: { code: string; message: string; status: number } }

export interface ToolgateBridge {
  invoke(op: BridgeOp, ...args: unknown[]): Promise<BridgeResult>
  onEvent(listener: (event: ApiEvent) => void): () => void
}

declare global {
  interface Window {
    toolgate?: ToolgateBridge
  }
}
