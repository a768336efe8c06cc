// Exit codes: 2 for bad command lines and bad config, 1 for everything else that failed.
import { ApiError } from '../../shared/api'
import { ConfigError } from '../core/config/load'
import { sayErr } from './output'

export class UsageError extends Error {}

export function fail(err: unknown): never {
  if (err instanceof ConfigError || err instanceof UsageError) {
    sayErr(`toolgate: ${err.message}`)
    process.exit(2)
  }
  const msg = err instanceof ApiError ? err.message : ((err as Error)?.message ?? String(err))
  sayErr(`toolgate: ${msg}`)
  process.exit(1)
}
