// Exit codes: 2 for bad command lines and bad config, 1 for everything else that failed.
import { ApiError } from '../../shared/api'
import { ConfigError } from '../core/config/load'

export class UsageError extends Error {}

export function fail(err: unknown): never {
  if (err instanceof ConfigError || err instanceof UsageError) {
    process.stderr.write(`toolgate: ${err.message}\n`)
    process.exit(2)
  }
  const msg = err instanceof ApiError ? err.message : ((err as Error)?.message ?? String(err))
  process.stderr.write(`toolgate: ${msg}\n`)
  process.exit(1)
}
