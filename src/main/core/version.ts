// The product version: package.json's "version", the one source for `toolgate --version`, the UI,
// /api/v1/status and the MCP server info (read at run time, so a build never disagrees with it).
import fs from 'node:fs'
import path from 'node:path'
import { appRoot } from './paths'

function readVersion(): string {
  try {
    const pkg = JSON.parse(fs.readFileSync(path.join(appRoot(), 'package.json'), 'utf8')) as { version?: unknown }
    if (typeof pkg.version === 'string') return pkg.version
  } catch {
    // fall through
  }
  return '0.0.0-unknown'
}

export const VERSION = readVersion()
