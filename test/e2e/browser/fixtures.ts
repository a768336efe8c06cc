// Playwright fixtures of the browser end-to-end tests: a temp folder and real `toolgate serve` processes per worker, an agent over /mcp, the control API.
import { spawn, type ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { test as base, expect } from '@playwright/test'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'

export { expect }

export const root = path.resolve(__dirname, '../../..')
export const KEY = 'e2e-key-0123456789abcdefghijklmn' // 32 chars
export const SHOTS = path.join(root, 'docs', 'screenshots')
export const EVERYTHING = path.join(root, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js')
export const MEMORY = path.join(root, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js')
export const ECHO = path.join(root, 'test/fixtures/servers/echo-env-server.mjs')
export const FIXTURE = process.env.FIXTURE_SERVER ?? path.join(root, 'test/fixtures/bench/fixture-server.mjs')
export const OAUTH_FIXTURE = path.join(root, 'test/fixtures/servers/oauth-mcp-server.mjs')

export interface McpConfig {
  mcpServers: Record<string, Record<string, unknown>>
}

/** What these tests read of the control API's answers (the contract's field names). */
export interface ServerView {
  name: string
  state: string
  enabled: boolean
  quarantined: boolean
  last_error?: string | null
  counts: Record<string, number>
}
export interface ToolView {
  name: string
  status: string
  description?: string
  call_with?: string
  approval: { status?: string; rejected_at?: string | null }
  confirm?: { user?: boolean }
}
export interface SearchEntry {
  name: string
  status?: string
  description?: string
}
export interface SearchAnswer {
  tools: SearchEntry[]
  disabled?: SearchEntry[]
  locked_ahead?: SearchEntry[]
  notice?: string
}

export interface ControlApi {
  get<T>(p: string): Promise<T>
  post<T>(p: string): Promise<T>
  server(name: string): Promise<ServerView | undefined>
  tool(server: string, id: string): Promise<ToolView | undefined>
  /** GET /api/v1/search as its raw text (compared byte for byte with retrieve_tools) */
  search(q: string, includeDisabled: boolean): Promise<string>
}

export function makeApi(baseUrl: string): ControlApi {
  const req = async (method: string, p: string): Promise<string> => {
    const res = await fetch(baseUrl + p, { method, headers: { Authorization: `Bearer ${KEY}` } })
    const text = await res.text()
    if (!res.ok) throw new Error(`${method} ${p} → ${res.status} ${text}`)
    return text
  }
  const get = async <T>(p: string): Promise<T> => JSON.parse(await req('GET', p)) as T
  return {
    get,
    post: async <T>(p: string): Promise<T> => JSON.parse(await req('POST', p)) as T,
    server: async (name) => (await get<{ servers: ServerView[] }>('/api/v1/servers')).servers.find((s) => s.name === name),
    tool: async (server, id) => (await get<{ tools: ToolView[] }>(`/api/v1/servers/${server}/tools`)).tools.find((t) => t.name === id),
    search: (q, includeDisabled) => req('GET', `/api/v1/search?q=${encodeURIComponent(q)}&limit=15&include_disabled=${includeDisabled}`),
  }
}

export interface Serve {
  base: string
  api: ControlApi
  dataDir: string
  configFile: string
  /** where its stdout and stderr go */
  log: string
  writeConfig(config: McpConfig): void
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = net.createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const addr = s.address()
      const port = typeof addr === 'object' && addr ? addr.port : 0
      s.close(() => resolve(port))
    })
  })
}

export function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode) return Promise.resolve()
  return new Promise((resolve) => {
    const t = setTimeout(() => child.kill('SIGKILL'), 5000)
    child.once('exit', () => {
      clearTimeout(t)
      resolve()
    })
    child.kill('SIGTERM')
  })
}

// a worker that dies without its teardown must not leave servers behind
const children = new Set<ChildProcess>()
process.on('exit', () => {
  for (const c of children) if (c.exitCode === null && !c.signalCode) c.kill('SIGKILL')
})

/** Polls `fn` until it returns something truthy (the old runner's `until`, for values read off the API or the disk). */
export async function until<T>(what: string, fn: () => T | Promise<T>, timeout = 15_000): Promise<NonNullable<T>> {
  const end = Date.now() + timeout
  let last: unknown
  for (;;) {
    try {
      const v = await fn()
      if (v) return v as NonNullable<T>
    } catch (err) {
      last = err
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last instanceof Error ? `: ${last.message}` : ''}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

/** Starts `toolgate serve` on a free port with its config and data dir in `dir`; resolves when the control API answers. */
async function startServe(dir: string, config: McpConfig, track: (c: ChildProcess) => void): Promise<Serve> {
  fs.mkdirSync(dir, { recursive: true })
  const dataDir = path.join(dir, 'data')
  const configFile = path.join(dir, 'mcp_config.json')
  const writeConfig = (c: McpConfig) => fs.writeFileSync(configFile, JSON.stringify(c, null, 2))
  writeConfig(config)
  const port = await freePort()
  const baseUrl = `http://127.0.0.1:${port}`
  const logFile = path.join(dir, 'serve.log')
  const log = fs.openSync(logFile, 'a')
  const child = spawn(
    process.execPath,
    [path.join(root, 'bin/toolgate.js'), 'serve', '--config', configFile, '--data-dir', dataDir, '--listen', `127.0.0.1:${port}`],
    { env: { ...process.env, TOOLGATE_API_KEY: KEY }, stdio: ['ignore', log, log] },
  )
  fs.closeSync(log)
  track(child)
  let exited: number | null = null
  child.on('exit', (code) => {
    exited = code ?? -1
  })
  const api = makeApi(baseUrl)
  await until(
    'toolgate serve to answer',
    async () => {
      if (exited !== null) throw new Error(`toolgate serve exited with ${exited}; see ${logFile}`)
      return (await api.get<{ version?: string }>('/api/v1/status')).version
    },
    20_000,
  )
  return { base: baseUrl, api, dataDir, configFile, log: logFile, writeConfig }
}

interface ToolResult {
  isError?: boolean
  content: Array<{ type: string; text?: string }>
}
export interface Agent {
  /** retrieve_tools over /mcp, as its raw JSON text */
  retrieve(query: string, includeDisabled: boolean): Promise<string>
  /** any Toolgate tool: the whole result */
  call(name: string, args: Record<string, unknown>): Promise<ToolResult>
  /** one tool call: whether it failed and the text of its first content block */
  callText(name: string, args: Record<string, unknown>): Promise<{ isError: boolean; text: string }>
  close(): Promise<void>
}

/** A real MCP session on /mcp named "e2e-agent" (what an agent sees). */
export async function makeAgent(baseUrl: string): Promise<Agent> {
  const client = new Client({ name: 'e2e-agent', version: '1.0.0' })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${KEY}` } } }))
  const call = async (name: string, args: Record<string, unknown>): Promise<ToolResult> => {
    const r = await client.callTool({ name, arguments: args })
    return { isError: r.isError === true, content: Array.isArray(r.content) ? (r.content as ToolResult['content']) : [] }
  }
  return {
    retrieve: async (query, includeDisabled) => (await call('retrieve_tools', { query, limit: 15, include_disabled: includeDisabled })).content[0]?.text ?? '',
    call,
    callText: async (name, args) => {
      const r = await call(name, args)
      return { isError: r.isError === true, text: r.content[0]?.text ?? '' }
    },
    close: () => client.close(),
  }
}

interface WorkerFixtures {
  /** a temp folder of this worker, removed at its end */
  workDir: string
  /** starts a real `toolgate serve` in a fresh folder under workDir; stopped at the worker's end */
  toolgate: { start(config: McpConfig): Promise<Serve> }
}

export const test = base.extend<object, WorkerFixtures>({
  workDir: [
    // eslint-disable-next-line no-empty-pattern
    async ({}, use) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolgate-e2e-'))
      await use(dir)
      fs.rmSync(dir, { recursive: true, force: true })
    },
    { scope: 'worker' },
  ],
  toolgate: [
    async ({ workDir }, use) => {
      const started = new Set<ChildProcess>()
      let n = 0
      await use({
        start: (config) =>
          startServe(path.join(workDir, `serve-${++n}`), config, (c) => {
            started.add(c)
            children.add(c)
          }),
      })
      await Promise.all([...started].map(stopChild))
      for (const c of started) children.delete(c)
    },
    { scope: 'worker' },
  ],
})
