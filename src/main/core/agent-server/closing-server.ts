// The agent server's class: the SDK's Server, closed without a stack trace for its "Connection
// closed" error. The SDK's Protocol builds that error (an SdkError, ConnectionClosed) on every
// close, before anything is known to wait for it, to reject what is still pending and abort the
// handlers still running. A 2026-07-28 request closes its agent server at the end of every
// exchange, and a handler's own abort controller is still registered then (the close runs before
// the handler's cleanup), so the error is made on every call: V8 captures its stack from optimized
// frames (≈ 3 % of the proxy's CPU samples per 2026-07-28 call, docs/performance.md). Its code,
// name, message and class stay what the SDK makes; only its `stack` has no frames, which nothing
// reads (an upstream hears `String(reason)` when a call is cancelled). Stack capture is off from
// the start of the close until the first callback the SDK makes after building the error (its
// `onclose`), and on again before that callback runs: errors made in close callbacks and abort
// listeners keep their stacks. test/unit/closing-server.test.ts.
import { Server } from '@modelcontextprotocol/server'

export class ClosingServer extends Server {
  protected override _onclose(): void {
    const limit = Error.stackTraceLimit
    const restore = (): void => {
      Error.stackTraceLimit = limit
    }
    const onclose = this.onclose
    // the SDK calls this.onclose right after it built the error: capture is back on before any callback
    const first = (): void => {
      restore()
      this.onclose = onclose
      onclose?.()
    }
    this.onclose = first
    Error.stackTraceLimit = 0
    try {
      super._onclose()
    } finally {
      restore()
      // the SDK did not call it (a later version may not): leave the callback as it was
      if (this.onclose === first) this.onclose = onclose
    }
  }
}
