// Helpers for end-to-end tests that run the REAL built CLI (bin/toolgate.js → out/main/cli.js)
// as child processes: temp dirs, config files, free ports, `toolgate serve` owners, one-shot
// operator commands, the control API, its SSE event stream, and process bookkeeping.
//
// Every process a test starts is registered here and killed by pid in `cleanupProcesses()`
// (never by name). Upstream processes that an owner started are killed too when the owner was
// killed hard and left them behind (they are found by parent pid before the owner goes away).
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { waitFor } from './wait'

export { waitFor }

export const ROOT = path.resolve(__dirname, '../..')
export const BIN = path.join(ROOT, 'bin/toolgate.js')
export const CLI_JS = path.join(ROOT, 'out/main/cli.js')
export const RENDERER_INDEX = path.join(ROOT, 'out/renderer/index.html')
export const EVERYTHING = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js')
export const FILESYSTEM = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-filesystem/dist/index.js')
export const MEMORY = path.join(ROOT, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js')
export const FIXTURE = path.join(ROOT, 'test/fixtures/bench/fixture-server.mjs')
export const NOISY = path.join(ROOT, 'test/fixtures/servers/noisy-server.mjs')

/** Fails with a clear message when the CLI has not been built (CI builds before `npm test`). */
export function assertBuilt(): void {
  if (!fs.existsSync(CLI_JS)) {
    throw new Error(`the CLI is not built: ${CLI_JS} is missing. Run \`npm run build\` before these integration tests.`)
  }
}

// ---- temp dirs and files ------------------------------------------------------------------

const tempRoots: string[] = []

/** A fresh temp directory, removed by `cleanupTemp()`. */
export function tempDir(prefix = 'toolgate-it-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  tempRoots.push(dir)
  return dir
}

export function cleanupTemp(): void {
  for (const dir of tempRoots.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
}

/**
 * Every file under `dir`, as text (latin1: any byte is kept), for greps that must find nothing.
 * A live Toolgate writes while the tree is read (write-file-atomic's temp file is renamed into
 * place between the listing and the read): when a listed file is gone, the whole tree is read
 * again, so the result is one pass in which every listed file was read (the renamed-to file too).
 */
export function allFiles(dir: string): Array<{ file: string; text: string }> {
  for (let pass = 1; ; pass++) {
    try {
      return readTree(dir)
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' || pass >= 20) throw e
    }
  }
}

function readTree(dir: string): Array<{ file: string; text: string }> {
  const out: Array<{ file: string; text: string }> = []
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name)
    if (e.isDirectory()) out.push(...readTree(p))
    else if (e.isFile()) out.push({ file: p, text: fs.readFileSync(p).toString('latin1') })
  }
  return out
}

export function writeJson(file: string, value: unknown): string {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  // write to a temp file and rename, so a watcher never sees a half-written file
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`
  fs.writeFileSync(tmp, JSON.stringify(value, null, 2) + '\n')
  fs.renameSync(tmp, file)
  return file
}

/** The lines the fixture server appended to its --log file (one per tools/call that reached it). */
export function logLines(file: string): Array<{ tool: string; arguments: Record<string, unknown> }> {
  if (!fs.existsSync(file)) return []
  return fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as { tool: string; arguments: Record<string, unknown> })
}

export interface FixtureTool {
  name: string
  description: string
  inputSchema?: Record<string, unknown>
  annotations?: Record<string, unknown>
}

/**
 * A stdio server entry for the shared fixture server serving `toolsFile`, logging calls to
 * `logFile`. It runs sandboxed like any server, so the log's folder is granted to it.
 */
export function fixtureEntry(toolsFile: string, logFile: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [FIXTURE, '--tools', toolsFile, '--log', logFile], sandbox: { fs_write: [path.dirname(logFile)] }, ...extra }
}

export function everythingEntry(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { command: process.execPath, args: [EVERYTHING, 'stdio'], ...extra }
}

// ---- ports --------------------------------------------------------------------------------

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      srv.close(() => (addr && typeof addr === 'object' ? resolve(addr.port) : reject(new Error('no port'))))
    })
  })
}

// ---- processes ----------------------------------------------------------------------------

const tracked = new Set<number>()

/** Registers a pid this test started, so `cleanupProcesses()` kills it (and what it left behind). */
export function track(pid: number | undefined): void {
  if (pid) tracked.add(pid)
}

/** True while the process exists and is not a zombie. */
export function processRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

/** Live (non-zombie) pids whose parent and process group (from /proc/<pid>/stat) `keep` accepts. */
function livePidsWhere(keep: (p: { ppid: number; pgrp: number }) => boolean): number[] {
  const out: number[] = []
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8')
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (rest[0] !== 'Z' && keep({ ppid: Number(rest[1]), pgrp: Number(rest[2]) })) out.push(Number(entry))
    } catch {
      // gone while we looked
    }
  }
  return out
}

/** Live (non-zombie) child pids of `ppid`, from /proc. */
export function childPids(ppid: number): number[] {
  return livePidsWhere((p) => p.ppid === ppid)
}

/** Live (non-zombie) members of process group `pgid`, from /proc. */
export function groupPids(pgid: number): number[] {
  return livePidsWhere((p) => p.pgrp === pgid)
}

/** All live descendants of `pid` (children, grandchildren, ...). */
export function descendantPids(pid: number): number[] {
  const out: number[] = []
  const queue = [pid]
  while (queue.length) {
    for (const c of childPids(queue.shift() as number)) {
      out.push(c)
      queue.push(c)
    }
  }
  return out
}

export function cmdline(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ')
  } catch {
    return ''
  }
}

/** The live processes running exactly `sleep <seconds>` (a fake pasta's namespace child: a test picks an odd `seconds` of its own); none while `seconds` is empty. */
export function sleepingFor(seconds: string): number[] {
  if (seconds === '') return []
  return fs
    .readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .map(Number)
    .filter((pid) => cmdline(pid).trim() === `sleep ${seconds}` && processRunning(pid))
}

/** The sandbox's own processes around a server: they carry the server's argv too. */
const SANDBOX_PROCESSES = new Set([
  'bwrap', // outside, and as PID 1 inside
  'pasta', // the server's network namespace (passt), which runs bwrap
  'passt',
  'setpriv', // kills pasta with Toolgate (--pdeathsig), then runs it
  'setsid', // pasta's own process group, killed whole when it is gone
])

/** A sandbox process (bwrap, pasta, setpriv around it): not the server itself. */
export function isSandboxWrapper(pid: number): boolean {
  return SANDBOX_PROCESSES.has(path.basename(cmdline(pid).split(' ')[0]))
}

/**
 * Live processes (anywhere) whose command line contains `needle`: used to count upstream
 * processes. The sandbox's own processes around a server are not counted.
 */
export function processesMatching(needle: string): number[] {
  const out: number[] = []
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    const pid = Number(entry)
    if (cmdline(pid).includes(needle) && processRunning(pid) && !isSandboxWrapper(pid)) out.push(pid)
  }
  return out
}

/** The process that started `pid`, looking through the sandbox processes in between. */
export function launcherPid(pid: number): number | null {
  let p = parentPid(pid)
  while (p !== null && isSandboxWrapper(p)) p = parentPid(p)
  return p
}

function safeKill(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal)
  } catch {
    // already gone
  }
}

/** SIGKILL a tracked process and every descendant it still has (collected before the kill). */
export async function killTree(pid: number): Promise<void> {
  const all = [pid, ...descendantPids(pid)]
  for (const p of all) safeKill(p, 'SIGKILL')
  await waitFor(() => all.every((p) => !processRunning(p)), 10_000, `processes ${all.join(', ')} to die`).catch(() => {})
}

/** Kills every process registered with `track()` that is still running (call in afterAll). */
export async function cleanupProcesses(): Promise<void> {
  const pids = [...tracked]
  tracked.clear()
  await Promise.all(pids.filter(processRunning).map(killTree))
}

/** Also kill processes an owner left behind after a hard kill (upstreams reparented to init). */
export function trackDescendants(pid: number): void {
  for (const p of descendantPids(pid)) tracked.add(p)
}

// ---- running the CLI ----------------------------------------------------------------------

export interface Env {
  [k: string]: string | undefined
}

/**
 * Where this run's toolgate children keep V8's compiled code ($TOOLGATE_COMPILE_CACHE_DIR): the
 * launcher keeps it in the data dir, and tests start on fresh ones, so without it every start
 * would compile everything (more CPU under load than a user's start). One temp folder per test
 * run, made and removed by test/global-setup.ts; a worker started without it (another runner)
 * makes its own and removes it when it exits. Never in the home: a folder per checkout there
 * was never removed.
 */
export const TEST_COMPILE_CACHE = process.env.TOOLGATE_TEST_COMPILE_CACHE || ownCompileCache()

function ownCompileCache(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-test-compile-cache-'))
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** The environment for a toolgate child: no inherited TOOLGATE_* settings (but TEST_COMPILE_CACHE), plus `extra`. */
export function cliEnv(extra: Env = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const k of Object.keys(env)) if (k.startsWith('TOOLGATE_')) delete env[k]
  env.TOOLGATE_COMPILE_CACHE_DIR = TEST_COMPILE_CACHE
  delete env.NODE_OPTIONS
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete env[k]
    else env[k] = v
  }
  return env
}

export interface CliResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
  ms: number
}

/** Runs `node bin/toolgate.js ...args` to completion. */
export async function runCli(args: string[], opts: { env?: Env; timeoutMs?: number; input?: string } = {}): Promise<CliResult> {
  assertBuilt()
  const started = Date.now()
  const child = spawn(process.execPath, [BIN, ...args], { env: cliEnv(opts.env), cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] })
  track(child.pid)
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  child.stdin.end(opts.input ?? '')
  const timeoutMs = opts.timeoutMs ?? 60_000
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      void killTree(child.pid as number)
      reject(new Error(`toolgate ${args.join(' ')} did not finish within ${timeoutMs} ms\nstdout: ${stdout}\nstderr: ${stderr}`))
    }, timeoutMs)
    child.once('error', reject)
    child.once('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started })
    })
  })
}

// ---- `toolgate serve` ---------------------------------------------------------------------

export interface Instance {
  pid: number
  url: string | null
  mcp_url: string | null
  kind: string
  api_key_file: string | null
}

export function readInstance(dataDir: string): Instance | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, 'instance.json'), 'utf8')) as Instance
  } catch {
    return null
  }
}

export function lockFile(dataDir: string): string {
  return path.join(dataDir, 'toolgate.lock')
}

export interface Serve {
  child: ChildProcess
  pid: number
  port: number
  url: string
  key: string
  configPath: string
  dataDir: string
  /** everything the process wrote to stderr so far */
  stderr(): string
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  /** GET/POST the control API with the admin key; returns status and parsed JSON (and raw text) */
  api<T = unknown>(method: 'GET' | 'POST', p: string, headers?: Record<string, string>): Promise<{ status: number; json: T; text: string }>
  /** the CLI's --config/--data-dir flags for this instance */
  flags: string[]
}

export const TEST_KEY = 'it-admin-key-0123456789abcdef'

/** One control-API request with the admin key: status, parsed JSON (if any) and the raw text. */
export async function controlApi<T = unknown>(
  baseUrl: string,
  key: string,
  method: 'GET' | 'POST',
  p: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: T; text: string }> {
  const res = await fetch(baseUrl + p, { method, headers: { authorization: `Bearer ${key}`, ...headers } })
  const text = await res.text()
  let json: unknown = undefined
  try {
    json = JSON.parse(text)
  } catch {
    // not JSON
  }
  return { status: res.status, json: json as T, text }
}

/** Any control-API request to a serve with the admin key and an optional JSON body (PUT/DELETE too). */
export async function apiRequest(
  s: { url: string; key: string },
  method: string,
  p: string,
  body?: unknown,
): Promise<{ status: number; json: any; text: string }> {
  const res = await fetch(s.url + p, {
    method,
    headers: { authorization: `Bearer ${s.key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
  const text = await res.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: res.status, json, text }
}

/** The parent pid of a process (from /proc), or null when it is gone. */
export function parentPid(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
  } catch {
    return null
  }
}

/** The admin key Toolgate generated into `<data-dir>/api_key`, or null. */
export function keyFromDataDir(dataDir: string): string | null {
  try {
    return fs.readFileSync(path.join(dataDir, 'api_key'), 'utf8').trim() || null
  } catch {
    return null
  }
}

/**
 * Starts `toolgate serve` on a free port with TOOLGATE_API_KEY = `key` (or, with `key: null`, no
 * key in the environment: Toolgate generates `<data-dir>/api_key` and the tests read it from
 * there), and resolves when instance.json names this process and the control API answers.
 */
export async function startServe(o: ServeOptions): Promise<Serve> {
  // A free port is found by binding port 0 and closing it, so another process (a parallel test
  // file) can take it before serve binds it: when serve exits on EADDRINUSE on a port this helper
  // chose, try again on a new one. A port the test chose itself is never retried.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServeOnce(o, o.port ?? (await freePort()))
    } catch (e) {
      if (o.port !== undefined || attempt >= 3 || !(e instanceof Error) || !e.message.includes('EADDRINUSE')) throw e
    }
  }
}

interface ServeOptions {
  configPath: string
  dataDir: string
  key?: string | null
  env?: Env
  port?: number
  /** node flags before the script (e.g. --expose-gc) */
  nodeArgs?: string[]
}

async function startServeOnce(o: ServeOptions, port: number): Promise<Serve> {
  assertBuilt()
  let key = o.key === null ? '' : (o.key ?? TEST_KEY)
  const flags = ['--config', o.configPath, '--data-dir', o.dataDir]
  const child = spawn(process.execPath, [...(o.nodeArgs ?? []), BIN, 'serve', ...flags, '--listen', `127.0.0.1:${port}`], {
    env: cliEnv({ TOOLGATE_API_KEY: key || undefined, ...o.env }),
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  track(child.pid)
  let err = ''
  let out = ''
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d))
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (out += d))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  let gone: { code: number | null; signal: NodeJS.Signals | null } | null = null
  void exited.then((e) => (gone = e))
  const url = `http://127.0.0.1:${port}`
  const api = <T>(method: 'GET' | 'POST', p: string, headers: Record<string, string> = {}) => controlApi<T>(url, key, method, p, headers)
  await waitFor(
    async () => {
      if (gone) throw new Error(`toolgate serve exited early (${JSON.stringify(gone)}):\n${err}${out}`)
      const inst = readInstance(o.dataDir)
      if (inst?.pid !== child.pid) return false
      if (!key) key = keyFromDataDir(o.dataDir) ?? ''
      if (!key) return false
      return (await api('GET', '/api/v1/status')).status === 200
    },
    30_000,
    `toolgate serve on port ${port} to be ready`,
  ).catch((e: Error) => {
    throw new Error(`${e.message}\nserve stderr:\n${err}`)
  })
  return {
    child,
    pid: child.pid as number,
    port,
    url,
    get key() {
      return key
    },
    configPath: o.configPath,
    dataDir: o.dataDir,
    stderr: () => err,
    exited,
    api,
    flags,
  }
}

/** SIGTERM and wait for the exit; SIGKILL (tree) if it does not exit within `ms`. */
export async function stopProcess(child: ChildProcess, ms = 15_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) return { code: child.exitCode, signal: child.signalCode as NodeJS.Signals | null }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  )
  child.kill('SIGTERM')
  const timer = setTimeout(() => void killTree(child.pid as number), ms)
  const r = await exited
  clearTimeout(timer)
  return r
}

/** Waits until the control API reports `server` in `state` (e.g. "connected"). */
export async function waitForServerState(s: Serve, server: string, state: string, timeoutMs = 30_000): Promise<void> {
  let last = ''
  await waitFor(
    async () => {
      const r = await s.api<{ servers: Array<{ name: string; state: string; last_error: string | null }> }>('GET', '/api/v1/servers')
      const entry = r.json.servers.find((x) => x.name === server)
      last = JSON.stringify(entry)
      return entry?.state === state
    },
    timeoutMs,
    `server ${server} to be ${state}`,
  ).catch((e: Error) => {
    throw new Error(`${e.message}; last seen: ${last}`)
  })
}

export interface ToolRow {
  name: string
  status: string
  description?: string
  approval: { status: string; hash: string; previous_description?: string }
}

export async function toolRow(s: Serve, id: string): Promise<ToolRow | undefined> {
  const server = id.slice(0, id.indexOf(':'))
  const r = await s.api<{ tools: ToolRow[] }>('GET', `/api/v1/servers/${encodeURIComponent(server)}/tools`)
  return r.json.tools?.find((t) => t.name === id)
}

export async function waitForToolStatus(s: Serve, id: string, status: string, timeoutMs = 20_000): Promise<ToolRow> {
  let last: ToolRow | undefined
  return waitFor(
    async () => {
      last = await toolRow(s, id)
      return last?.status === status ? last : undefined
    },
    timeoutMs,
    `${id} to be ${status}`,
  ).catch((e: Error) => {
    throw new Error(`${e.message}; last seen: ${JSON.stringify(last)}`)
  })
}

// ---- raw HTTP (for Host/Origin and oversized bodies, which fetch cannot send) ---------------

export interface RawResponse {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

export function rawRequest(url: string, o: { method?: string; headers?: Record<string, string | number>; body?: string | Buffer } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const u = new URL(url)
    const req = http.request(
      { host: u.hostname, port: u.port, path: u.pathname + u.search, method: o.method ?? 'GET', headers: o.headers, agent: false },
      (res) => {
        let body = ''
        res.setEncoding('utf8')
        res.on('data', (d: string) => (body += d))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
        res.on('error', reject)
      },
    )
    // the server may answer (413) and stop reading before the whole body is written
    req.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code !== 'EPIPE' && e.code !== 'ECONNRESET') reject(e)
    })
    if (o.body !== undefined) req.write(o.body)
    req.end()
  })
}

// ---- the control API's SSE stream ----------------------------------------------------------

export interface SseEvent {
  type: string
  data: Record<string, unknown>
}

export interface EventStream {
  events: SseEvent[]
  next(type: string, timeoutMs?: number, pred?: (e: SseEvent) => boolean): Promise<SseEvent>
  close(): void
}

/** Opens GET /api/v1/events; resolves once the stream is open (the first comment arrived). */
export function openEvents(s: Serve): Promise<EventStream> {
  return new Promise((resolve, reject) => {
    const events: SseEvent[] = []
    let buf = ''
    let opened = false
    const req = http.get(`${s.url}/api/v1/events`, { headers: { authorization: `Bearer ${s.key}` }, agent: false }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`GET /api/v1/events answered ${res.statusCode}`))
      res.setEncoding('utf8')
      res.on('data', (d: string) => {
        buf += d
        let i: number
        while ((i = buf.indexOf('\n\n')) >= 0) {
          const block = buf.slice(0, i)
          buf = buf.slice(i + 2)
          let type = ''
          let data = ''
          for (const line of block.split('\n')) {
            if (line.startsWith('event: ')) type = line.slice(7)
            else if (line.startsWith('data: ')) data += line.slice(6)
          }
          if (!opened) {
            opened = true
            resolve(stream)
          }
          if (type) events.push({ type, data: data ? (JSON.parse(data) as Record<string, unknown>) : {} })
        }
      })
      res.on('error', () => {})
    })
    req.on('error', (e) => (opened ? undefined : reject(e)))
    const stream: EventStream = {
      events,
      next: (type, timeoutMs = 15_000, pred = () => true) => waitFor(() => events.find((e) => e.type === type && pred(e)), timeoutMs, `SSE event ${type}`),
      close: () => req.destroy(),
    }
  })
}
