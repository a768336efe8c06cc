// Tool and server identity hashes. Canonical JSON = keys sorted at every depth, so two equal
// definitions always hash the same whatever order the upstream sent the keys in.
import { createHash } from 'node:crypto'
import { usesStdio, type ServerConfig } from '../../../shared/config-schema'

export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null'
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`
  const obj = value as Record<string, unknown>
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort()
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}

export interface HashableTool {
  name: string
  description?: string
  inputSchema?: Record<string, unknown>
  outputSchema?: Record<string, unknown>
}

/** SHA-256 over name, description, inputSchema (and outputSchema when present); annotations excluded. */
export function toolHash(t: HashableTool): string {
  const parts: Record<string, unknown> = { name: t.name, description: t.description ?? '', inputSchema: t.inputSchema ?? {} }
  if (t.outputSchema) parts.outputSchema = t.outputSchema
  return sha256(canonicalJson(parts))
}

/** What the user approves when approving a server: command+args+cwd for stdio, else the URL. */
export function serverIdentity(s: ServerConfig): string {
  return sha256(canonicalJson(usesStdio(s) ? { command: s.command ?? '', args: s.args ?? [], cwd: s.cwd ?? '' } : { url: s.url ?? '' }))
}
