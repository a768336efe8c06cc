// Where things live: data dir, config file, API key.
import crypto from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

export function resolveDataDir(flag?: string): string {
  return path.resolve(flag ?? process.env.TOOLGATE_DATA_DIR ?? path.join(os.homedir(), '.toolgate'))
}

export function resolveConfigPath(dataDir: string, flag?: string): string {
  return path.resolve(flag ?? path.join(dataDir, 'mcp_config.json'))
}

/**
 * Creates `dir` readable by this user only (0700), or tightens an existing one that this user
 * owns (never a shared or sticky directory such as /tmp): the data dir and logs/ hold state,
 * keys and logs.
 */
export function ensurePrivateDir(dir: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  tighten(dir, 0o700, true)
}

/** Creates `file` if missing and makes it 0600 (when this user owns it). */
export function ensurePrivateFile(file: string): void {
  fs.closeSync(fs.openSync(file, 'a', 0o600))
  tighten(file, 0o600, false)
}

function tighten(p: string, mode: number, dir: boolean): void {
  try {
    const st = fs.statSync(p)
    const mine = typeof process.getuid !== 'function' || st.uid === process.getuid()
    if (!mine || (dir && (st.mode & 0o1000) !== 0)) return
    if ((st.mode & 0o777 & ~mode) !== 0) fs.chmodSync(p, st.mode & mode)
  } catch {
    // best effort: a file system without modes
  }
}

export const DEFAULT_LISTEN = '127.0.0.1:8719'

export function parseListen(listen: string): { host: string; port: number } {
  const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(listen)
  if (!m) throw new Error(`listen must be HOST:PORT, got "${listen}"`)
  const port = Number(m[2])
  if (port > 65535) throw new Error(`port ${port} is out of range in "${listen}"`)
  return { host: m[1], port }
}

export function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === 'localhost' || host === '::1' || host.startsWith('127.')
}

/** The admin API key: env TOOLGATE_API_KEY, then config api_key, then <data-dir>/api_key (generated). */
export function resolveApiKey(dataDir: string, configKey: string | undefined, create: boolean): { key: string | null; file: string | null } {
  if (process.env.TOOLGATE_API_KEY) return { key: process.env.TOOLGATE_API_KEY, file: null }
  if (configKey) return { key: configKey, file: null }
  const file = path.join(dataDir, 'api_key')
  if (fs.existsSync(file)) return { key: fs.readFileSync(file, 'utf8').trim(), file }
  if (!create) return { key: null, file }
  ensurePrivateDir(dataDir)
  const key = crypto.randomBytes(24).toString('base64url')
  fs.writeFileSync(file, key + '\n', { mode: 0o600 })
  return { key, file }
}

/** The install root (the folder with Toolgate's package.json), found from the built bundle's location. */
export function appRoot(): string {
  let dir = __dirname
  for (let i = 0; i < 6; i++) {
    try {
      const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name?: string }
      if (pkg.name === 'toolgate') return dir
    } catch {
      // keep walking up
    }
    dir = path.dirname(dir)
  }
  return process.cwd()
}
