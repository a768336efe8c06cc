// Helpers for the fault, hardening and fuzz tests (test/integration/faults-*.test.ts, fuzz-*.test.ts):
// the misbehaving fixtures under test/fixtures/faults/, an MCP client on a running `serve`,
// log-file access, process checks and a deterministic PRNG with random-JSON generators.
// Builds on ./cli and ./mcp-client (which are shared and not edited here).
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { BIN, FIXTURE, ROOT, assertBuilt, cliEnv, descendantPids, freePort, processRunning, readInstance, track, waitFor, type Env, type Serve } from './cli'
import { connectHttp, textOf, type McpHandle, type ToolResult } from './mcp-client'

export const MISBEHAVING = path.join(ROOT, 'test/fixtures/faults/misbehaving-server.mjs')
export const GATED = path.join(ROOT, 'test/fixtures/faults/gated-fixture.mjs')

/**
 * The sandbox of a fault fixture: the folders of its files (--log, --init-gate, ...) granted.
 * With --pid-file it runs unsandboxed: the tests compare the pid it writes with the host's
 * processes, and inside the sandbox's PID namespace a process sees another pid
 * (test/integration/sandbox-*.test.ts check shutdown and supervision of sandboxed servers).
 */
function fixtureSandbox(flags: string[]): Record<string, unknown> {
  if (flags.includes('--pid-file')) return { sandbox: false }
  const dirs = flags.filter((f, i) => i > 0 && flags[i - 1].startsWith('--') && path.isAbsolute(f)).map((f) => path.dirname(f))
  return dirs.length ? { sandbox: { fs_write: [...new Set(dirs)] } } : {}
}

/** A stdio server entry for test/fixtures/faults/misbehaving-server.mjs with these flags. */
export function misbehavingEntry(flags: string[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [MISBEHAVING, ...flags], quarantined: false, ...fixtureSandbox(flags), ...extra }
}

/** The shared fixture server behind a --down-file gate (see gated-fixture.mjs). */
export function gatedEntry(toolsFile: string, logFile: string, downFile: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const flags = ['--down-file', downFile, '--tools', toolsFile, '--log', logFile]
  return { command: process.execPath, args: [GATED, '--fixture', FIXTURE, ...flags], quarantined: false, ...fixtureSandbox(flags), ...extra }
}

/** An MCP client over Streamable HTTP on a running `serve`, with the admin key. */
export function mcpOn(serve: Serve): Promise<McpHandle> {
  return connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
}

export interface ServerEntry {
  name: string
  protocol: string
  enabled: boolean
  quarantined: boolean
  state: string
  last_error?: string
  tools?: Record<string, number>
}

/** `upstream_servers list` through an MCP session. */
export async function agentServers(h: McpHandle): Promise<ServerEntry[]> {
  const r = await h.call('upstream_servers', { operation: 'list' })
  return (JSON.parse(textOf(r)) as { servers: ServerEntry[] }).servers
}

export async function agentServer(h: McpHandle, name: string): Promise<ServerEntry | undefined> {
  return (await agentServers(h)).find((s) => s.name === name)
}

/** Polls `upstream_servers list` until `pred` holds for the entry of `name`; returns that entry. */
export async function waitForAgentServer(
  h: McpHandle,
  name: string,
  pred: (s: ServerEntry) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<ServerEntry> {
  let last: ServerEntry | undefined
  return waitFor(
    async () => {
      last = await agentServer(h, name)
      return last && pred(last) ? last : undefined
    },
    timeoutMs,
    `${name}: ${what}`,
    50,
  ).catch((e: Error) => {
    throw new Error(`${e.message}; last seen: ${JSON.stringify(last)}`)
  })
}

/** The text of every text block of a result, joined (for error messages). */
export function allText(r: ToolResult): string {
  return r.content
    .filter((c) => c.type === 'text')
    .map((c) => c.text ?? '')
    .join('\n')
}

/** `<data-dir>/logs/toolgate.log`, or '' when it does not exist yet. */
export function logText(dataDir: string): string {
  try {
    return fs.readFileSync(path.join(dataDir, 'logs', 'toolgate.log'), 'utf8')
  } catch {
    return ''
  }
}

/** Parsed JSON lines of a file a fixture appends to (missing file → []). */
export function jsonLines<T = Record<string, unknown>>(file: string): T[] {
  if (!fs.existsSync(file)) return []
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l) as T]
      } catch {
        return [] // a line being written right now
      }
    })
}

/** Live pids among `pids` (from /proc; zombies count as gone). */
export function alive(pids: number[]): number[] {
  return pids.filter(processRunning)
}

/** Every live descendant of `pid` whose command line matches `re` (upstream processes of an owner). */
export function upstreamPids(pid: number, re = /fixture-server|gated-fixture|misbehaving-server|server-everything/): number[] {
  return descendantPids(pid).filter((p) => re.test(cmdlineOf(p)))
}

function cmdlineOf(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ')
  } catch {
    return ''
  }
}

export function readState(dataDir: string): StateFile {
  return JSON.parse(fs.readFileSync(path.join(dataDir, 'state.json'), 'utf8')) as StateFile
}

export interface StateFile {
  version: number
  fail_closed?: { since: string; moved_to: string; servers?: string[] }
  servers: Record<string, { approved_identity?: string; baseline_taken?: boolean; user_quarantined?: boolean; needs_review?: boolean }>
  tools: Record<string, { approved?: { hash: string }; user_disabled?: boolean }>
}

// ---- `serve` on a listen address of our choice (the shared startServe binds 127.0.0.1) -----

export interface RawServe {
  pid: number
  port: number
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  stderr(): string
  kill(signal?: NodeJS.Signals): void
}

/** Spawns `toolgate serve --listen HOST:PORT` and waits until instance.json names it. */
export async function startServeOn(o: { host: string; configPath: string; dataDir: string; key: string; env?: Env }): Promise<RawServe> {
  assertBuilt()
  const port = await freePort()
  const child = spawn(process.execPath, [BIN, 'serve', '--config', o.configPath, '--data-dir', o.dataDir, '--listen', `${o.host}:${port}`], {
    env: cliEnv({ TOOLGATE_API_KEY: o.key, ...o.env }),
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  track(child.pid)
  let err = ''
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d))
  child.stdout?.resume()
  let gone = false
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      gone = true
      resolve({ code, signal })
    }),
  )
  await waitFor(
    () => {
      if (gone) throw new Error(`serve exited early:\n${err}`)
      return readInstance(o.dataDir)?.pid === child.pid
    },
    30_000,
    `serve on ${o.host}:${port}`,
  )
  return { pid: child.pid as number, port, exited, stderr: () => err, kill: (s = 'SIGTERM') => child.kill(s) }
}

// ---- deterministic randomness -------------------------------------------------------------

/** mulberry32: a tiny seeded PRNG, so a failing fuzz case can be replayed from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export class Rand {
  readonly next: () => number
  constructor(readonly seed: number) {
    this.next = prng(seed)
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1))
  }
  bool(p = 0.5): boolean {
    return this.next() < p
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]
  }

  /** Short strings that are likely to hurt: unicode, control chars, path tricks, injections. */
  static readonly NASTY = [
    '',
    ' ',
    ':',
    '::',
    'a:b:c',
    '__proto__',
    'constructor',
    'prototype',
    'toString',
    'hasOwnProperty',
    '../../etc/passwd',
    '%00',
    '%',
    '%E0%A4%A',
    '\u0000',
    '\u202e\u0041',
    '\ud800',
    '😀'.repeat(3),
    '<script>alert(1)</script>',
    "'; DROP TABLE tools; --",
    '${process.exit()}',
    '{{7*7}}',
    'null',
    'undefined',
    'NaN',
    '-1',
    '1e309',
    ' '.repeat(100),
    '\n\r\t',
    'everything:echo',
    'fx:quick',
  ]

  string(maxLen = 40): string {
    const r = this.next()
    if (r < 0.35) return this.pick(Rand.NASTY)
    const len = this.int(0, maxLen)
    let s = ''
    for (let i = 0; i < len; i++) {
      const k = this.next()
      if (k < 0.6) s += String.fromCharCode(this.int(0x20, 0x7e))
      else if (k < 0.75) s += String.fromCharCode(this.int(0, 0x1f))
      else if (k < 0.9) s += String.fromCharCode(this.int(0x80, 0x2fff))
      else s += String.fromCodePoint(this.int(0x1f300, 0x1f64f))
    }
    return s
  }

  number(): number {
    return this.pick([
      0,
      -0,
      1,
      -1,
      0.5,
      1e308,
      -1e308,
      Number.MAX_SAFE_INTEGER,
      Number.MIN_SAFE_INTEGER,
      2 ** 53 + 1,
      this.int(-1000, 1000),
      this.next() * 1e6,
    ])
  }

  key(): string {
    // never the shared fixture's behavior keys (sleep_ms, crash, fail, big): fuzzing must not crash the upstream on purpose
    const k = this.bool(0.3)
      ? this.pick(['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'query', 'name', 'args', 'limit', 'operation', ''])
      : this.string(12)
    return ['sleep_ms', 'crash', 'fail', 'big'].includes(k) ? `${k}_` : k
  }

  /** Random JSON value, nested up to `depth`. */
  json(depth = 3): unknown {
    const r = this.next()
    if (depth <= 0 || r < 0.45) {
      const leaf = this.int(0, 4)
      if (leaf === 0) return null
      if (leaf === 1) return this.bool()
      if (leaf === 2) return this.number()
      return this.string()
    }
    if (r < 0.7) return Array.from({ length: this.int(0, 5) }, () => this.json(depth - 1))
    const o: Record<string, unknown> = {}
    for (let i = this.int(0, 5); i > 0; i--) {
      Object.defineProperty(o, this.key(), { value: this.json(depth - 1), enumerable: true, configurable: true, writable: true })
    }
    return o
  }

  /** A deeply nested structure (arrays or objects) `depth` levels deep. */
  deep(depth: number): unknown {
    let v: unknown = 'bottom'
    for (let i = 0; i < depth; i++) v = this.bool() ? [v] : { n: v }
    return v
  }
}

/** A 1 MB string (or `bytes` long), never all one character class. */
export function hugeString(bytes = 1024 * 1024): string {
  const unit = 'huge-input-ÄÖÜ-😀-'
  return unit.repeat(Math.ceil(bytes / unit.length)).slice(0, bytes)
}

/** Messages that betray an internal failure rather than a clear error for the caller. */
export const INTERNAL_ERROR_RE =
  /TypeError|ReferenceError|RangeError|SyntaxError: Unexpected|Cannot read propert|Cannot set propert|is not a function|is not iterable|undefined is not|Maximum call stack|\bat [\w.<>]+ \(.*:\d+:\d+\)/

/** Copy a state file aside (for debugging a failed round). */
export function snapshot(file: string, dir: string, label: string): void {
  try {
    fs.copyFileSync(file, path.join(dir, `${path.basename(file)}.${label}`))
  } catch {
    // nothing to snapshot
  }
}

export { FIXTURE }

/** Every live pid below `pid` (for orphan checks), recorded before a signal. */
export function treeOf(pid: number): number[] {
  return descendantPids(pid)
}

/** Waits until none of `pids` is running. */
export async function waitGone(pids: number[], what: string, timeoutMs = 15_000): Promise<void> {
  await waitFor(() => alive(pids).length === 0, timeoutMs, what).catch((e: Error) => {
    throw new Error(
      `${e.message}; still running: ${alive(pids)
        .map((p) => `${p} (${cmdlineOf(p)})`)
        .join(', ')}`,
    )
  })
}
