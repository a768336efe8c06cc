// Graceful shutdown: SIGINT/SIGTERM (and stdin end for stdio) stop every upstream and flush state.
export function onShutdown(stop: () => Promise<void>): void {
  let done = false
  const run = (code: number): void => {
    if (done) return
    done = true
    const force = setTimeout(() => process.exit(code), 8000)
    force.unref()
    stop()
      .catch(() => {})
      .finally(() => process.exit(code))
  }
  process.on('SIGINT', () => run(0))
  process.on('SIGTERM', () => run(0))
  process.on('SIGHUP', () => run(0))
  ;(process as NodeJS.EventEmitter).on('toolgate:shutdown', () => run(0))
}
