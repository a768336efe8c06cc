// Reads what people copy from a README into server entries for the Add server form: a Claude
// Desktop / Cursor / VS Code `mcpServers` (or `servers`) JSON, a single entry, a `claude mcp add …`
// (or `add-json`) line, or a plain command line such as `npx -y @scope/server-x --flag`. Pure.
import type { ServerInput } from './server-entry'
import { SERVER_NAME_RE } from './config-schema'

export type SnippetResult = { servers: ServerInput[] } | { error: string }

/** Splits a command line the way a POSIX shell would (quotes, backslashes, line continuations); no expansion. */
export function shellWords(line: string): string[] {
  const words: string[] = []
  let cur = ''
  let inWord = false
  let i = 0
  const s = line.replace(/\\\r?\n/g, ' ')
  while (i < s.length) {
    const c = s[i]
    if (c === "'") {
      const end = s.indexOf("'", i + 1)
      if (end < 0) throw new Error('a single quote is not closed')
      cur += s.slice(i + 1, end)
      inWord = true
      i = end + 1
    } else if (c === '"') {
      i++
      for (;;) {
        if (i >= s.length) throw new Error('a double quote is not closed')
        const d = s[i]
        if (d === '"') break
        if (d === '\\' && i + 1 < s.length && '"\\$`'.includes(s[i + 1])) {
          cur += s[i + 1]
          i += 2
          continue
        }
        cur += d
        i++
      }
      inWord = true
      i++
    } else if (c === '\\' && i + 1 < s.length) {
      cur += s[i + 1]
      inWord = true
      i += 2
    } else if (/\s/.test(c)) {
      if (inWord) words.push(cur)
      cur = ''
      inWord = false
      i++
    } else {
      cur += c
      inWord = true
      i++
    }
  }
  if (inWord) words.push(cur)
  return words
}

/** A valid server name from anything: `@modelcontextprotocol/server-github` → `github`. */
export function nameFrom(text: string): string {
  let base = text.replace(/@[\d^~<>=.x*-]+$/i, '') // a version pin
  base = base.split(/[/\\]/).filter(Boolean).pop() ?? base
  base = base
    .replace(/\.(m?js|cjs|py|ts)$/i, '')
    .replace(/^(mcp-server-|server-)/i, '')
    .replace(/(-mcp-server|-mcp|_mcp)$/i, '')
  const clean = base.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '')
  return clean && SERVER_NAME_RE.test(clean) ? clean : 'server'
}

type Json = Record<string, unknown>
const isObj = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v)
const strMap = (v: unknown): Record<string, string> | undefined =>
  isObj(v)
    ? Object.fromEntries(
        Object.entries(v)
          .filter(([, x]) => typeof x === 'string' || typeof x === 'number')
          .map(([k, x]) => [k, String(x)]),
      )
    : undefined

function protocolOf(type: unknown): ServerInput['protocol'] | undefined {
  if (type === 'sse') return 'sse'
  if (type === 'http' || type === 'streamable-http' || type === 'streamableHttp') return 'http'
  if (type === 'stdio') return 'stdio'
  return undefined
}

function fromEntry(name: string, e: Json): ServerInput | null {
  const url = typeof e.url === 'string' ? e.url : typeof e.serverUrl === 'string' ? e.serverUrl : undefined
  const command = typeof e.command === 'string' ? e.command : undefined
  if (!url && !command) return null
  const env = strMap(e.env)
  const headers = strMap(e.headers)
  const protocol = protocolOf(e.type ?? e.transport)
  const out: ServerInput = {
    name: name && SERVER_NAME_RE.test(name) ? name : name ? nameFrom(name) : guessName(command ?? url ?? '', Array.isArray(e.args) ? e.args : []),
  }
  if (command) {
    out.command = command
    if (Array.isArray(e.args)) out.args = e.args.map(String)
    if (env && Object.keys(env).length) out.env = env
    if (typeof e.cwd === 'string') out.cwd = e.cwd
  } else {
    out.url = url
    if (headers && Object.keys(headers).length) out.headers = headers
  }
  if (protocol && protocol !== 'stdio') out.protocol = protocol
  return out
}

function fromJson(value: unknown): SnippetResult {
  if (!isObj(value)) return { error: 'the JSON must be an object, like {"mcpServers": {"name": {"command": "…", "args": […]}}}' }
  const holder = isObj(value.mcpServers)
    ? value.mcpServers
    : isObj(value.servers)
      ? value.servers
      : isObj(value.mcp) && isObj(value.mcp.servers)
        ? value.mcp.servers
        : null
  if (Array.isArray(value.mcpServers)) {
    const servers = value.mcpServers.filter(isObj).map((e) => fromEntry(String(e.name ?? ''), e))
    return done(servers)
  }
  if (holder) return done(Object.entries(holder).map(([n, e]) => (isObj(e) ? fromEntry(n, e) : null)))
  if (typeof value.command === 'string' || typeof value.url === 'string') {
    const guess = typeof value.name === 'string' ? value.name : guessName(String(value.command ?? value.url), (value.args as unknown[]) ?? [])
    return done([fromEntry(guess, value)])
  }
  const entries = Object.entries(value).filter(([, e]) => isObj(e) && (typeof e.command === 'string' || typeof e.url === 'string'))
  if (entries.length) return done(entries.map(([n, e]) => fromEntry(n, e as Json)))
  return { error: 'no server found in this JSON: expected "mcpServers" with entries that have "command" or "url"' }
}

function done(list: Array<ServerInput | null>): SnippetResult {
  const servers = list.filter((s): s is ServerInput => s !== null)
  return servers.length ? { servers } : { error: 'no server found: each entry needs "command" (stdio) or "url" (HTTP)' }
}

/** The name a command line suggests: the package of npx/uvx/pipx/bunx, else the script or the command. */
function guessName(command: string, args: unknown[]): string {
  const words = args.map(String)
  const runner = /(^|\/)(npx|uvx|pipx|bunx|pnpx)$/.test(command) || (/(^|\/)(pnpm|yarn|npm)$/.test(command) && ['dlx', 'exec', 'x'].includes(words[0]))
  const operands = words.filter((w) => !w.startsWith('-') && !['dlx', 'exec', 'x', 'run'].includes(w))
  if (runner && operands.length) return nameFrom(operands[0])
  if (/(^|\/)(node|python3?|deno|bun)$/.test(command) && operands.length) return nameFrom(operands[0])
  if (/(^|\/)docker$/.test(command)) {
    const image = [...operands].reverse().find((w) => /[/:]/.test(w) || /^[a-z0-9-]+$/.test(w))
    if (image) return nameFrom(image.split(':')[0])
  }
  return nameFrom(command)
}

const CLAUDE_FLAGS = new Set(['-e', '--env', '-H', '--header', '-t', '--transport', '-s', '--scope', '--client-id', '--callback-port'])

/** `claude mcp add [-s scope] [-t transport] [-e K=V]… [-H "K: V"]… NAME COMMAND|URL [ARGS…]` (and `add-json NAME JSON`). */
function fromClaude(words: string[]): SnippetResult {
  const rest = words.slice(3)
  if (words[2] === 'add-json') {
    const [name, json] = rest.filter((w) => !w.startsWith('-'))
    if (!name || !json) return { error: 'claude mcp add-json needs a name and the JSON' }
    try {
      const e = JSON.parse(json) as unknown
      if (!isObj(e)) return { error: 'the JSON of add-json must be an object' }
      return done([fromEntry(name, e)])
    } catch (err) {
      return { error: `the JSON of add-json is not valid: ${(err as Error).message}` }
    }
  }
  const env: Record<string, string> = {}
  const headers: Record<string, string> = {}
  let transport: string | undefined
  const operands: string[] = []
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i]
    if (w === '--') {
      operands.push(...rest.slice(i + 1))
      break
    }
    const [flag, inline] = w.startsWith('--') && w.includes('=') ? [w.slice(0, w.indexOf('=')), w.slice(w.indexOf('=') + 1)] : [w, undefined]
    if (operands.length >= 2 && !CLAUDE_FLAGS.has(flag)) {
      operands.push(w) // the server's own arguments
      continue
    }
    const value = (): string => inline ?? rest[++i] ?? ''
    if (flag === '-e' || flag === '--env') {
      const kv = value()
      const eq = kv.indexOf('=')
      if (eq > 0) env[kv.slice(0, eq)] = kv.slice(eq + 1)
    } else if (flag === '-H' || flag === '--header') {
      const hv = value()
      const colon = hv.indexOf(':')
      if (colon > 0) headers[hv.slice(0, colon).trim()] = hv.slice(colon + 1).trim()
    } else if (flag === '-t' || flag === '--transport') transport = value()
    else if (flag === '-s' || flag === '--scope' || flag === '--client-id' || flag === '--callback-port') value()
    else if (w.startsWith('-') && operands.length === 0) continue
    else operands.push(w)
  }
  const [name, target, ...args] = operands
  if (!name || !target) return { error: 'claude mcp add needs a name and a command or URL: claude mcp add NAME -- COMMAND ARGS…' }
  const http = transport === 'http' || transport === 'sse' || /^https?:\/\//i.test(target)
  const out: ServerInput = { name: SERVER_NAME_RE.test(name) ? name : nameFrom(name) }
  if (http) {
    out.url = target
    if (Object.keys(headers).length) out.headers = headers
    if (transport === 'sse') out.protocol = 'sse'
  } else {
    out.command = target
    if (args.length) out.args = args
    if (Object.keys(env).length) out.env = env
  }
  return { servers: [out] }
}

/** Parses one pasted snippet. */
export function parseClientSnippet(text: string): SnippetResult {
  const trimmed = text.trim().replace(/^\$\s+/, '')
  if (!trimmed) return { error: 'paste a client snippet: mcpServers JSON, a claude mcp add line, or a command such as npx -y …' }
  if (trimmed.startsWith('{') || trimmed.startsWith('"')) {
    try {
      return fromJson(JSON.parse(trimmed.startsWith('"') ? `{${trimmed}}` : trimmed))
    } catch (err) {
      return { error: `this looks like JSON but is not valid: ${(err as Error).message}` }
    }
  }
  let words: string[]
  try {
    words = shellWords(trimmed)
  } catch (err) {
    return { error: `cannot read this command line: ${(err as Error).message}` }
  }
  if (words[0] === 'claude' && words[1] === 'mcp' && (words[2] === 'add' || words[2] === 'add-json')) return fromClaude(words)
  const env: Record<string, string> = {}
  while (words.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0])) {
    const w = words.shift() as string
    env[w.slice(0, w.indexOf('='))] = w.slice(w.indexOf('=') + 1)
  }
  if (words[0] === 'env') words.shift()
  if (!words.length) return { error: 'no command found in this line' }
  if (/^https?:\/\//i.test(words[0])) return { servers: [{ name: nameFrom(new URL(words[0]).hostname.split('.')[0] ?? 'server'), url: words[0] }] }
  const [command, ...args] = words
  return {
    servers: [{ name: guessName(command, args), command, ...(args.length ? { args } : {}), ...(Object.keys(env).length ? { env } : {}) }],
  }
}
