// MCP clients for end-to-end tests: the SDK Client over stdio (spawning `toolgate stdio`) and
// over Streamable HTTP, plus the dependency-free StdioMcpClient from test/fixtures/bench for checks
// on the raw lines a process writes to stdout.
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import type { ChildProcess } from 'node:child_process'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { expect } from 'vitest'
import { BIN, ROOT, assertBuilt, cliEnv, track, waitFor, type Env } from './cli'

export interface ToolResult {
  content: Array<{ type: string; text?: string; data?: string; mimeType?: string; [k: string]: unknown }>
  isError?: boolean
  structuredContent?: unknown
  [k: string]: unknown
}

/** The text of the first text block of a tool result. */
export function textOf(r: ToolResult): string {
  const block = r.content.find((c) => c.type === 'text')
  if (!block || typeof block.text !== 'string') throw new Error(`no text block in ${JSON.stringify(r)}`)
  return block.text
}

/** The JSON in the first text block of a tool result. */
export function jsonOf<T = Record<string, unknown>>(r: ToolResult): T {
  const t = textOf(r)
  try {
    return JSON.parse(t) as T
  } catch {
    throw new Error(`tool result is not JSON: ${t}`)
  }
}

export interface McpHandle {
  client: Client
  /** pid of the spawned process (stdio only) */
  pid?: number
  stderr(): string
  call(name: string, args?: Record<string, unknown>, timeoutMs?: number): Promise<ToolResult>
  close(): Promise<void>
}

/** A call_tool_read of `id` (server:tool) that must succeed (else the test fails showing the answer): the answer's text. */
export async function readOk(mcp: McpHandle, id: string, args: Record<string, unknown> = {}): Promise<string> {
  const r = await mcp.call('call_tool_read', { name: id, args })
  expect(r.isError, textOf(r)).toBeFalsy()
  return textOf(r)
}

function wrap(client: Client, extra: { pid?: number; stderr?: () => string; close?: () => Promise<void> } = {}): McpHandle {
  return {
    client,
    pid: extra.pid,
    stderr: extra.stderr ?? (() => ''),
    call: async (name, args = {}, timeoutMs = 60_000) =>
      (await client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs })) as unknown as ToolResult,
    close: extra.close ?? (() => client.close()),
  }
}

/** Spawns `toolgate stdio ...args` and connects the SDK client to it (initialize included). */
export async function connectStdio(args: string[], env: Env = {}, nodeArgs: string[] = []): Promise<McpHandle> {
  assertBuilt()
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...nodeArgs, BIN, 'stdio', ...args],
    env: cliEnv(env) as Record<string, string>,
    cwd: ROOT,
    stderr: 'pipe',
  })
  let err = ''
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString('utf8')))
  const client = new Client({ name: 'toolgate-it', version: '1.0.0' })
  try {
    await client.connect(transport, { timeout: 60_000 })
  } catch (e) {
    track(transport.pid ?? undefined)
    throw new Error(`could not connect to toolgate stdio: ${(e as Error).message}\nstderr:\n${err}`)
  }
  track(transport.pid ?? undefined)
  return wrap(client, { pid: transport.pid ?? undefined, stderr: () => err })
}

/** Connects the SDK client to a Streamable HTTP endpoint with the given headers. */
export async function connectHttp(url: string, headers: Record<string, string>): Promise<McpHandle> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } })
  const client = new Client({ name: 'toolgate-it-http', version: '1.0.0' })
  await client.connect(transport, { timeout: 30_000 })
  return wrap(client, {
    close: async () => {
      await transport.terminateSession().catch(() => {})
      await client.close()
    },
  })
}

/** Polls `upstream_servers list` until every named server is in `state`. */
export async function waitForUpstreams(h: McpHandle, names: string[], state = 'connected', timeoutMs = 45_000): Promise<void> {
  let last = ''
  await waitFor(
    async () => {
      const r = await h.call('upstream_servers', { operation: 'list' })
      last = textOf(r)
      const servers = (JSON.parse(last) as { servers: Array<{ name: string; state: string }> }).servers
      return names.every((n) => servers.find((s) => s.name === n)?.state === state)
    },
    timeoutMs,
    `upstreams ${names.join(', ')} to be ${state}`,
    100,
  ).catch((e: Error) => {
    throw new Error(`${e.message}; last upstream_servers list: ${last}`)
  })
}

// ---- the raw, SDK-free stdio client from test/fixtures/bench/lib/mcp-stdio.mjs ---------------

export interface RawStdioClient {
  child: ChildProcess
  /** non-JSON lines seen on stdout (undefined until the first one) */
  badLines?: number
  notifications: Array<Record<string, unknown>>
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  request(method: string, params?: Record<string, unknown>, timeoutMs?: number): Promise<Record<string, unknown>>
  notify(method: string, params?: Record<string, unknown>): void
  initialize(timeoutMs?: number): Promise<Record<string, unknown>>
  listTools(): Promise<{ tools: Array<{ name: string; description?: string }> }>
  callTool(name: string, args?: Record<string, unknown>, timeoutMs?: number): Promise<ToolResult>
  close(): Promise<void>
}

export const STDIO_LIB = path.join(ROOT, 'test/fixtures/bench/lib/mcp-stdio.mjs')

export interface RawSession {
  client: RawStdioClient
  /** every line the process wrote to stdout, verbatim */
  stdoutLines: string[]
  stderr(): string
}

/** Spawns `toolgate stdio ...args` under the shared raw client; records every stdout line too. */
export async function rawStdio(args: string[], env: Env = {}): Promise<RawSession> {
  assertBuilt()
  const mod = (await import(pathToFileURL(STDIO_LIB).href)) as {
    StdioMcpClient: new (cmd: string, args: string[], opts: { env: NodeJS.ProcessEnv; cwd: string; stderr: 'pipe' }) => RawStdioClient
  }
  const client = new mod.StdioMcpClient(process.execPath, [BIN, 'stdio', ...args], { env: cliEnv(env), cwd: ROOT, stderr: 'pipe' })
  track(client.child.pid)
  const stdoutLines: string[] = []
  let partial = ''
  client.child.stdout?.on('data', (d: Buffer) => {
    partial += d.toString('utf8')
    const parts = partial.split('\n')
    partial = parts.pop() as string
    stdoutLines.push(...parts)
  })
  let err = ''
  client.child.stderr?.on('data', (d: Buffer) => (err += d.toString('utf8')))
  return { client, stdoutLines, stderr: () => err }
}
