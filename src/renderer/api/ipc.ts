// The Electron adapter: the shared Api over the preload bridge (`window.toolgate`), one invoke per
// operation of the table (shared/operations.ts), errors back as ApiError.
import { ApiError, type ApiEvent } from '../../shared/api'
import { proxyOperations, type Api, type ApiOps, type OpName } from '../../shared/operations'
import type { ToolgateBridge } from '../../shared/ipc'

// the operations are assigned in the constructor (proxyOperations), one per entry of the table
export interface IpcApi extends ApiOps {}

export class IpcApi implements Api {
  constructor(private readonly bridge: ToolgateBridge) {
    Object.assign(
      this,
      proxyOperations((op, args) => this.call(op, args)),
    )
  }

  subscribe(listener: (event: ApiEvent) => void): () => void {
    return this.bridge.onEvent(listener)
  }

  private async call(op: OpName, args: unknown[]): Promise<unknown> {
    // trailing absent arguments are not sent: `serverAction('gh', 'approve')` crosses as two
    let n = args.length
    while (n > 0 && args[n - 1] === undefined) n--
    let result
    try {
      result = await this.bridge.invoke(op, ...args.slice(0, n))
    } catch (err) {
      throw new ApiError('ipc_failed', err instanceof Error ? err.message : String(err), 500)
    }
    if (!result.ok) throw new ApiError(result.error.code, result.error.message, result.error.status)
    return result.value
  }
}
