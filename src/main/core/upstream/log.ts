// Every log line about an upstream carries `server`: bind it once (unless the caller already did).
import type { Logger } from '../log'

export function serverLogger(logger: Logger, server: string): Logger {
  return logger.bindings().server === server ? logger : logger.child({ server })
}
