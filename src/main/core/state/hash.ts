// Tool and server identity hashes. Canonical JSON = keys sorted at every depth, so two equal
// definitions always hash the same whatever order the upstream sent the keys in.
import { createHash, createHmac } from 'node:crypto'
import { usesStdio, type ServerConfig } from '../../../shared/config-schema'
import type { TemplateDefinition } from '../../../shared/resources'

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
  title?: string
  description?: string
  inputSchema?: Record<string, unknown>
  outputSchema?: Record<string, unknown>
  annotations?: Record<string, unknown>
  ui?: Record<string, unknown>
}

/**
 * The approval hash (state version 2): SHA-256 over everything an agent can read of a tool: name,
 * title, description, inputSchema, outputSchema and every annotation key. Absent and empty
 * title/outputSchema/annotations hash the same.
 */
export function toolHash(t: HashableTool): string {
  const known = hashes.get(t)
  if (known !== undefined) return known
  const parts: Record<string, unknown> = { name: t.name, description: t.description ?? '', inputSchema: t.inputSchema ?? {} }
  if (t.title) parts.title = t.title
  if (t.outputSchema) parts.outputSchema = t.outputSchema
  if (t.annotations && Object.keys(t.annotations).length > 0) parts.annotations = t.annotations
  // an App's UI: only when present, so every other tool keeps the hash it had
  if (t.ui && Object.keys(t.ui).length > 0) parts.ui = t.ui
  const hash = sha256(canonicalJson(parts))
  hashes.set(t, hash)
  return hash
}

/** Hashes of definitions already seen: a listed definition is never changed after it is listed, and is hashed by ingest and by the catalog. */
const hashes = new WeakMap<HashableTool, string>()

export interface HashablePrompt {
  name: string
  title?: string
  description?: string
  arguments?: readonly object[]
  messages_hash?: string
}

/**
 * The approval hash of a prompt: SHA-256 over everything an agent can read of it: name, title,
 * description, arguments and (the hash of) the messages prompts/get answers with no arguments.
 * Tagged so that a prompt never hashes like a tool.
 */
export function promptHash(p: HashablePrompt): string {
  const parts: Record<string, unknown> = { kind: 'prompt', name: p.name, description: p.description ?? '', arguments: p.arguments ?? [] }
  if (p.title) parts.title = p.title
  if (p.messages_hash) parts.messages_hash = p.messages_hash
  return sha256(canonicalJson(parts))
}

/**
 * The approval hash of a resource template: everything an agent reads of it (its name, title,
 * description, MIME type, annotations and App `_meta`, once made safe: resource-text.ts) and the
 * server's own URI template. Tagged so a template never hashes like a tool or a prompt.
 */
export function templateHash(t: TemplateDefinition): string {
  return sha256(canonicalJson({ ...t, kind: 'resource_template' }))
}

/** The approval hash of state version 1 (name, description, schemas; title and annotations left out): only to migrate old records. */
export function toolHashV1(t: HashableTool): string {
  const parts: Record<string, unknown> = { name: t.name, description: t.description ?? '', inputSchema: t.inputSchema ?? {} }
  if (t.outputSchema) parts.outputSchema = t.outputSchema
  return sha256(canonicalJson(parts))
}

/**
 * What the user approves when approving a server: for stdio the command, args, cwd and env (env
 * only when set, so a server without env keeps the identity it had before env counted); else the URL.
 */
export function serverIdentity(s: ServerConfig): string {
  if (!usesStdio(s)) return sha256(canonicalJson({ url: s.url ?? '' }))
  const launch: Record<string, unknown> = { command: s.command ?? '', args: s.args ?? [], cwd: s.cwd ?? '' }
  if (s.env && Object.keys(s.env).length > 0) launch.env = s.env
  return sha256(canonicalJson(launch))
}

/**
 * The review token of a server's launch (`launch_hash` on every server view): HMAC-SHA256 of its
 * serverIdentity() (command, args, cwd, env, URL) and of what else the review shows about how it
 * runs: its isolation (`sandbox`) and the headers an HTTP server is sent. Keyed by the data dir's
 * review key (state/data-keys.ts), it cannot be used to guess env values or secrets offline.
 * Approving or inspecting with it acts on exactly the launch the user saw: an edit between review
 * and approval (`sandbox: false`, a header) is refused, not approved unseen.
 */
export function launchHash(key: Buffer, s: ServerConfig): string {
  const shown = canonicalJson({ identity: serverIdentity(s), sandbox: s.sandbox ?? null, headers: s.headers ?? {} })
  return createHmac('sha256', key).update(shown).digest('hex')
}

/** The server identity of state version 1 (env left out): only to migrate old approvals. */
export function serverIdentityV1(s: ServerConfig): string {
  return sha256(canonicalJson(usesStdio(s) ? { command: s.command ?? '', args: s.args ?? [], cwd: s.cwd ?? '' } : { url: s.url ?? '' }))
}
