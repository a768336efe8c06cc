// Logging: pino to stderr and <data-dir>/logs/toolgate.log (cut at LOG_MAX_BYTES, one old file kept). Never stdout (stdio mode carries
// JSON-RPC there). Secrets are redacted by path; C1 controls, bidi and invisible characters (an
// upstream's stderr, a tool name) are written as \u escapes like the CLI shows them, so a log
// read in a terminal cannot be driven or reordered by them.
import fs from 'node:fs'
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

/**
 * The log file is started again past this size (TOOLGATE_LOG_MAX_BYTES overrides), the previous
 * one kept as toolgate.log.1: at most twice this on disk. Servers write into it (their stderr
 * lines, their log messages: each limited to 20 a second), and a hostile one at that rate wrote
 * ~14 GB a day into a file nothing ever cut.
 */
export const LOG_MAX_BYTES = 20 * 1024 * 1024

function logMaxBytes(): number {
  const env = Number(process.env.TOOLGATE_LOG_MAX_BYTES)
  return Number.isInteger(env) && env > 0 ? env : LOG_MAX_BYTES
}

/** `file` moved to `file.1` (replacing it): null when moved, else why not. */
function rotate(file: string): string | null {
  try {
    fs.renameSync(file, `${file}.1`)
    return null
  } catch (e) {
    return (e as Error).message
  }
}

/**
 * The log file's destination: started again (the old one kept as .1) once it grew past `max`.
 * Where the move fails (toolgate.log.1 is a folder, or a file nobody may replace), the file is
 * emptied in place instead, with a line that says why; where that fails too, nothing more is
 * written to it (stderr still is). Either way the file stays bounded.
 */
function cappedFile(file: string, max: number): pino.DestinationStream & { flushSync(): void } {
  let size = 0
  try {
    size = fs.statSync(file).size
  } catch {
    // not there yet
  }
  let stopped = false
  ensurePrivateFile(file)
  const dest = pino.destination({ dest: file, sync: true })
  const restart = (): void => {
    const failed = rotate(file)
    size = 0
    if (failed === null) {
      ensurePrivateFile(file)
      dest.reopen()
      return
    }
    try {
      // the destination appends: its next write lands at the start of the emptied file
      fs.truncateSync(file, 0)
    } catch {
      stopped = true
      return
    }
    const note = escapeJsonControls(
      `${JSON.stringify({ level: 40, time: Date.now(), pid: process.pid, msg: `${file} could not be moved to ${path.basename(file)}.1 (${failed}): emptied in place instead, so it stays under ${max} bytes` })}\n`,
    )
    dest.write(note)
    size = Buffer.byteLength(note)
  }
  if (size > max) restart()
  return {
    write: (line: string) => {
      if (stopped) return
      dest.write(line)
      size += Buffer.byteLength(line)
      if (size > max) restart()
    },
    flushSync: () => dest.flushSync(),
  }
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
    streams.push({ level: level as pino.Level, stream: escapingStream(cappedFile(file, logMaxBytes())) })
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
