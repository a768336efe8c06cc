// Logging: pino to stderr and <data-dir>/logs/toolgate.log. Never stdout (stdio mode carries
// JSON-RPC there). Secrets are redacted by path; C1 controls, bidi and invisible characters (an
// upstream's stderr, a tool name) are written as \u escapes like the CLI shows them, so a log
// read in a terminal cannot be driven or reordered by them.
import path from 'node:path'
import pino from 'pino'
import { escapeJsonControls } from '../../shared/text'
import { ensurePrivateDir, ensurePrivateFile } from './paths'

export type Logger = pino.Logger

export interface LogOptions {
  dataDir?: string
  level?: string
  /** false to keep stderr quiet (tests, `toolgate search`) */
  stderr?: boolean
}

/** A destination that writes each JSON line with its unsafe characters as \u escapes (the same JSON value). */
export function escapingStream(dest: pino.DestinationStream & { flushSync?: () => void }): pino.DestinationStream & { flushSync(): void } {
  return {
    write: (line: string) => dest.write(escapeJsonControls(line)),
    flushSync: () => dest.flushSync?.(),
  }
}

export function createLogger(opts: LogOptions = {}): Logger {
  const level = opts.level ?? process.env.TOOLGATE_LOG_LEVEL ?? 'info'
  const streams: pino.StreamEntry[] = []
  if (opts.stderr !== false) streams.push({ level: level as pino.Level, stream: escapingStream(pino.destination({ fd: 2, sync: true })) })
  if (opts.dataDir) {
    // the data dir and logs/ are 0700 and the log file 0600 (logs name servers, paths and errors)
    ensurePrivateDir(opts.dataDir)
    const dir = path.join(opts.dataDir, 'logs')
    ensurePrivateDir(dir)
    const file = path.join(dir, 'toolgate.log')
    ensurePrivateFile(file)
    streams.push({ level: level as pino.Level, stream: escapingStream(pino.destination({ dest: file, sync: true })) })
  }
  return pino(
    {
      level,
      base: { pid: process.pid },
      redact: {
        paths: ['env', '*.env', 'headers', '*.headers', 'api_key', '*.api_key', 'token', '*.token', 'authorization', '*.authorization'],
        censor: '[redacted]',
      },
    },
    streams.length ? pino.multistream(streams) : pino.destination('/dev/null'),
  )
}

/** A logger that drops everything (unit tests). */
export function silentLogger(): Logger {
  return pino({ level: 'silent' })
}
