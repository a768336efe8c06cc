// Build the SDK client transport for an upstream from its config entry.
//   stdio            StdioClientTransport: safe default env + config env, cwd, stderr piped to the log
//   streamable-http  StreamableHTTPClientTransport with the config headers
//   sse              SSEClientTransport with the config headers
// `auto` means stdio when a command is given, else Streamable HTTP with SSE as the fallback.
// The stdio transport is a subclass of the SDK's, so SDK v2's protocol probe (`server/discover`)
// runs on this one child instead of a second, sibling process (one launch, one sandbox).
import fs from 'node:fs'
import { Readable } from 'node:stream'
import type { ChildProcess } from 'node:child_process'
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/client/stdio'
import { SSEClientTransport, StreamableHTTPClientTransport, type FetchLike, type Transport } from '@modelcontextprotocol/client'
import { usesStdio, type ServerConfig } from '../../../shared/config-schema'
import type { Logger } from '../log'
import type { TransportKind } from './types'
import { launchSpec, type SandboxRequest } from './sandbox'
import { limitEventSize } from './event-size'
import { boundedLines, LineBudget, type StderrLine } from './stderr-lines'
import { killGroup, trackGroup } from './process-group'
import type { UpstreamAuth } from '../oauth/session'

const STDERR_TAIL_LINES = 30
const STDERR_LINE_MAX = 2000
/** what is kept of one stderr line before it is masked and cut to STDERR_LINE_MAX: room for a secret that crosses the cut */
const STDERR_KEEP_CHARS = STDERR_LINE_MAX + 64 * 1024
/** A server's stderr lines in the log: this many at once, then STDERR_LINES_PER_S a second; the rest are counted (as its log messages: server-logs.ts) */
const STDERR_BURST_LINES = 200
const STDERR_LINES_PER_S = 20
/** After the child exits, how long to wait for its pipes to close before declaring it closed. */
const EXIT_TO_CLOSE_GRACE_MS = 1000
/** stop(): how long an upstream gets to exit on stdin EOF before SIGTERM (the SDK waits 2 s). */
const STDIN_EOF_GRACE_MS = 500
const TERM_TO_KILL_MS = 1500

export { usesStdio }

/** The transports to try, in order. */
export function transportKinds(config: ServerConfig): TransportKind[] {
  if (usesStdio(config)) return ['stdio']
  switch (config.protocol) {
    case 'sse':
      return ['sse']
    case 'http':
    case 'streamable-http':
      return ['streamable-http']
    default:
      return ['streamable-http', 'sse']
  }
}

export interface BuiltTransport {
  kind: TransportKind
  transport: Transport
  /** pid of the stdio child (null before start / for HTTP); kept after the child is gone */
  readonly pid: number | null
  /** "exited with code 3: <last stderr line>" once a stdio child is gone, else null */
  exitInfo(): string | null
  /** Close the transport; for stdio, resolves only when the child process is gone. */
  shutdown(): Promise<void>
}

export interface TransportContext {
  logger: Logger
  /** stdio read buffer limit; a single bigger message closes the connection */
  maxMessageBytes: number
  /** masks this server's secrets (stderr lines may echo them) */
  redact: (text: string) => string
  /** stdio: the sandbox to start it in (docs/isolation.md); absent = the default data dir's */
  sandbox?: SandboxRequest
  /** HTTP: the connection's OAuth session (bearer tokens, renewal on expiry and on 401) */
  auth?: UpstreamAuth | null
}

export function buildTransport(config: ServerConfig, kind: TransportKind, ctx: TransportContext): BuiltTransport {
  switch (kind) {
    case 'stdio':
      return buildStdio(config, ctx)
    case 'streamable-http': {
      const { url, headers } = httpTarget(config)
      const { fetch, authProvider } = httpAuth(ctx)
      return httpTransport(kind, new StreamableHTTPClientTransport(url, { requestInit: { headers }, fetch, authProvider }))
    }
    case 'sse': {
      const { url, headers } = httpTarget(config)
      const { fetch, authProvider } = httpAuth(ctx)
      return httpTransport(kind, new SSEClientTransport(url, { requestInit: { headers }, fetch, authProvider }))
    }
  }
}

/**
 * fetch refuses URLs with credentials ("Request cannot be constructed from a URL that includes
 * credentials"), so `https://user:pass@host/mcp` becomes an Authorization: Basic header
 * (unless the config sets Authorization itself) and a URL without userinfo.
 */
export function httpTarget(config: ServerConfig): { url: URL; headers: Record<string, string> } {
  if (!config.url) throw new Error(`server "${config.name}" has no "url"`)
  const url = new URL(config.url)
  const headers: Record<string, string> = { ...(config.headers ?? {}) }
  if (url.username || url.password) {
    const hasAuth = Object.keys(headers).some((k) => k.toLowerCase() === 'authorization')
    if (!hasAuth) {
      const user = decodeURIComponent(url.username)
      const pass = decodeURIComponent(url.password)
      headers.Authorization = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`
    }
    url.username = ''
    url.password = ''
  }
  return { url, headers }
}

/** The fetch and the SDK auth provider of an HTTP transport: OAuth's when the connection has a session. */
function httpAuth(ctx: TransportContext) {
  const base = limitedFetch(ctx.maxMessageBytes)
  return ctx.auth ? { fetch: ctx.auth.fetch(base), authProvider: ctx.auth.provider } : { fetch: base, authProvider: undefined }
}

/**
 * fetch with a size limit on POST responses (the answers to requests): the SDK reads them whole
 * into memory, so an upstream answering with gigabytes must be cut off. Long-lived GET event
 * streams carry many small messages over time: there each event is limited (event-size.ts).
 */
function limitedFetch(maxBytes: number): FetchLike {
  return async (input, init) => {
    const res = await fetch(input, init)
    // Only successful answers with a body are wrapped (redirects and 204/205 pass through as-is).
    if (!res.body || !res.ok || res.status === 204 || res.status === 205) return res
    if ((init?.method ?? 'GET').toUpperCase() !== 'POST') {
      const tooBig = (n: number): Error =>
        new Error(`an event of the upstream's event stream is over ${maxBytes} bytes (${n} bytes so far); refusing to read it`)
      return new Response(limitEventSize(res.body, maxBytes, tooBig), { status: res.status, statusText: res.statusText, headers: res.headers })
    }
    const tooBig = (n: number): Error => new Error(`the upstream's response is over ${maxBytes} bytes (${n} bytes so far); refusing to read it`)
    const declared = Number(res.headers.get('content-length') ?? NaN)
    if (declared > maxBytes) {
      await res.body.cancel().catch(() => undefined)
      throw tooBig(declared)
    }
    let seen = 0
    const counted = res.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          seen += chunk.byteLength
          if (seen > maxBytes) controller.error(tooBig(seen))
          else controller.enqueue(chunk)
        },
      }),
    )
    return new Response(counted, { status: res.status, statusText: res.statusText, headers: res.headers })
  }
}

function httpTransport(kind: TransportKind, transport: Transport): BuiltTransport {
  return {
    kind,
    transport,
    pid: null,
    exitInfo: () => null,
    async shutdown() {
      // Best effort: end the session on the server (DELETE), then abort open streams.
      if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
        await withTimeout(transport.terminateSession(), 2000).catch(() => undefined)
      }
      await transport.close().catch(() => undefined)
    },
  }
}

/**
 * StdioClientTransport plus what supervision needs and the SDK does not expose: the exit code,
 * a wait for the child to be really gone (the SDK sends SIGKILL last but does not wait), and a
 * close notification when the child exits while a grandchild keeps its stdout open.
 */
class SupervisedStdioTransport extends StdioClientTransport {
  private child: ChildProcess | undefined
  private exited: Promise<void> = Promise.resolve()
  private exitText: string | null = null
  private childPid: number | null = null

  constructor(
    params: ConstructorParameters<typeof StdioClientTransport>[0],
    private readonly stderrTail: () => string | null,
    /** the command leads a process group of its own: killed whole once the child is gone */
    private readonly ownGroup = false,
  ) {
    super(params)
  }

  override async start(): Promise<void> {
    await super.start()
    const child = this.internalChild()
    if (child) this.track(child)
  }

  /** Watch the child's exit (idempotent; also called by shutdown, which may run before start resolved). */
  private track(child: ChildProcess): void {
    if (this.child === child) return
    this.child = child
    this.childPid = child.pid ?? null
    const group = this.ownGroup ? this.childPid : null
    if (group !== null) trackGroup(group)
    this.exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) {
        if (group !== null) killGroup(group)
        return resolve()
      }
      child.once('exit', (code, signal) => {
        // pasta's namespace child, if pasta went before it ran bwrap (process-group.ts)
        if (group !== null) killGroup(group)
        const how = signal ? `was killed by ${signal}` : `exited with code ${code}`
        const tail = this.stderrTail()
        this.exitText = tail ? `${how}: ${tail}` : how
        resolve()
        // If a grandchild holds the pipes open, 'close' never comes and neither would onclose.
        setTimeout(() => {
          if (this.pid !== null) this.onclose?.()
        }, EXIT_TO_CLOSE_GRACE_MS).unref()
      })
    })
  }

  /** The SDK keeps the ChildProcess in a private field (1.32.2 and 2.4.0: `_process`); read it defensively. */
  private internalChild(): ChildProcess | undefined {
    const child: unknown = (this as unknown as { _process?: unknown })._process
    return child !== null && typeof child === 'object' && 'once' in child && 'kill' in child ? (child as ChildProcess) : undefined
  }

  get knownPid(): number | null {
    return this.childPid
  }

  get exitDescription(): string | null {
    return this.exitText
  }

  /** Close and make sure the process is gone: stdin EOF, then SIGTERM, then SIGKILL. */
  async shutdown(): Promise<void> {
    const internal = this.internalChild()
    // Never spawned (e.g. ENOENT): nothing to wait for; the SDK's close would idle for 2 s.
    if (!this.child && internal?.pid === undefined) return
    if (internal?.pid !== undefined) this.track(internal)
    const child = this.child
    const alive = (): boolean => child !== undefined && child.exitCode === null && child.signalCode === null
    // The SDK's close() ends stdin and waits 2 s, sends SIGTERM and waits 2 s, then SIGKILLs;
    // escalate sooner ourselves so stop() of a stubborn server takes ~2 s, not ~4 s.
    const timers: NodeJS.Timeout[] = []
    if (alive()) {
      timers.push(setTimeout(() => alive() && child?.kill('SIGTERM'), STDIN_EOF_GRACE_MS))
      timers.push(setTimeout(() => alive() && child?.kill('SIGKILL'), STDIN_EOF_GRACE_MS + TERM_TO_KILL_MS))
    }
    await super.close().catch(() => undefined)
    for (const t of timers) clearTimeout(t)
    if (!child) return
    if (alive() && !(await settlesWithin(this.exited, TERM_TO_KILL_MS))) child.kill('SIGKILL')
    // Resolves on 'exit', which libuv emits after reaping: the pid is then really gone.
    if (!(await settlesWithin(this.exited, TERM_TO_KILL_MS))) {
      throw new Error(`process ${child.pid} did not exit after SIGKILL`)
    }
  }
}

function buildStdio(config: ServerConfig, ctx: TransportContext): BuiltTransport {
  if (!config.command) throw new Error(`server "${config.name}" has no "command"`)
  if (config.cwd !== undefined && !isDirectory(config.cwd)) {
    throw new Error(`working directory "${config.cwd}" does not exist or is not a directory`)
  }
  /** the last lines (masked and cut when read: a flood's dropped lines cost no masking) */
  const tail: StderrLine[] = []
  const shown = ({ text, length }: StderrLine): string => {
    const raw = ctx.redact(text)
    return raw.length > STDERR_LINE_MAX || length > text.length ? `${raw.slice(0, STDERR_LINE_MAX)}… [${Math.max(raw.length, length)} chars]` : raw
  }
  const sandbox = ctx.sandbox ? { ...ctx.sandbox, logger: ctx.logger } : undefined
  const spec = launchSpec({ ...config, command: config.command }, { ...getDefaultEnvironment(), ...(config.env ?? {}) }, sandbox)
  const transport = new SupervisedStdioTransport(
    {
      command: spec.command,
      args: spec.args,
      env: spec.env,
      cwd: spec.cwd,
      stderr: 'pipe',
      maxBufferSize: ctx.maxMessageBytes,
    },
    () => summarizeStderr(tail.map(shown)),
    spec.ownGroup === true,
  )
  const stderr = transport.stderr
  if (stderr instanceof Readable) {
    // lines kept to a bounded length (stderr-lines.ts): an endless line ended Toolgate under readline;
    // and a bounded number of them logged: each is a synchronous write of the main thread, and
    // 330,000 lines in 10 s grew the log by 344 MB and slowed every request meanwhile
    const budget = new LineBudget(STDERR_BURST_LINES, STDERR_LINES_PER_S)
    let dropped = 0
    let report: NodeJS.Timeout | null = null
    boundedLines(stderr, STDERR_KEEP_CHARS, (l) => {
      if (!l.text.trim() || spec.noise?.test(l.text)) return
      tail.push(l)
      if (tail.length > STDERR_TAIL_LINES) tail.shift()
      if (budget.take()) return void ctx.logger.info({ stream: 'stderr' }, shown(l))
      dropped++
      report ??= setTimeout(() => {
        report = null
        ctx.logger.warn({ stream: 'stderr', dropped }, `dropped ${dropped} stderr line(s) of this server (more than ${STDERR_LINES_PER_S} a second)`)
        dropped = 0
      }, 1000).unref()
    })
  }
  return {
    kind: 'stdio',
    transport,
    get pid() {
      return transport.pid ?? transport.knownPid
    },
    exitInfo: () => transport.exitDescription,
    shutdown: () => transport.shutdown().finally(() => spec.cleanup()),
  }
}

/**
 * The most telling line of a dying process's stderr. Node ends a crash with stack frames and a
 * "Node.js v20…" line; the reason ("Error: Cannot find module 'x'") comes before them.
 */
export function summarizeStderr(lines: readonly string[]): string | null {
  const useful = withoutErrorProperties(lines).filter((l) => !/^\s+at\s/.test(l) && !/^Node\.js v\d/.test(l) && !/^\s*[\^~]+\s*$/.test(l) && l.trim() !== '')
  const telling = /\b(error|exception|fatal|panic|cannot|can't|could not|failed|denied|not found|no such|invalid|missing|refused|EADDRINUSE|ENOENT|EACCES)\b/i
  for (let i = useful.length - 1; i >= 0; i--) if (telling.test(useful[i])) return useful[i].trim().slice(0, 500)
  return useful.length ? useful[useful.length - 1].trim().slice(0, 500) : null
}

/**
 * Leaves out the property dump Node prints after an error's stack (`    at … {`, `  errno: -2,`,
 * `  code: 'ENOENT',`, `  path: '…'`, `}`): it comes last, so "code: 'ENOENT'" would be picked over
 * the line that names the file ("Error: ENOENT: no such file or directory, open '/home/me/.config/app/x'").
 */
function withoutErrorProperties(lines: readonly string[]): string[] {
  const out: string[] = []
  let inDump = false
  for (const line of lines) {
    if (inDump) inDump = !/^\}\s*$/.test(line)
    else if (/^\s+at\s.*\{\s*$/.test(line)) inDump = true
    else out.push(line)
  }
  return out
}

function isDirectory(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory()
  } catch {
    return false
  }
}

async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms)
  })
  try {
    return await Promise.race([p.then(() => true), timeout])
  } finally {
    clearTimeout(timer)
  }
}

export async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms)
  })
  try {
    return await Promise.race([p, timeout])
  } finally {
    clearTimeout(timer)
  }
}
