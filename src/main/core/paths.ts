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
  fs.mkdirSync(dataDir, { recursive: true })
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
