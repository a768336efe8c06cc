// MCP clients on SDK v2 (@modelcontextprotocol/client) for end-to-end tests: over stdio (spawning
// `toolgate stdio`) and over Streamable HTTP, in the era the test asks for: `modern` pins
// 2026-07-28 (server/discover, the per-request envelope), `auto` negotiates, `legacy` is the 2025
// initialize handshake. The v1 SDK clients of mcp-client.ts stay the "old client" side.
import { Client, StreamableHTTPClientTransport, type ClientOptions } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { BIN, ROOT, assertBuilt, cliEnv, track, type Env } from './cli'
import type { ToolResult } from './mcp-client'

export type Era = 'modern' | 'auto' | 'legacy'

export interface V2Handle {
  client: Client
  pid?: number
  stderr(): string
  call(name: string, args?: Record<string, unknown>, timeoutMs?: number): Promise<ToolResult>
  close(): Promise<void>
}

function options(era: Era, extra: ClientOptions = {}): ClientOptions {
  const mode = era === 'modern' ? { pin: '2026-07-28' } : era
  return { versionNegotiation: { mode }, ...extra }
}

function wrap(client: Client, extra: { pid?: number; stderr?: () => string; close?: () => Promise<void> } = {}): V2Handle {
  return {
    client,
    pid: extra.pid,
    stderr: extra.stderr ?? (() => ''),
    call: async (name, args = {}, timeoutMs = 60_000) => (await client.callTool({ name, arguments: args }, { timeout: timeoutMs })) as unknown as ToolResult,
    close: extra.close ?? (() => client.close()),
  }
}

/** Spawns `toolgate stdio ...args` and connects an SDK v2 client to it in `era`. */
export async function connectStdioV2(args: string[], era: Era, env: Env = {}, clientOptions: ClientOptions = {}): Promise<V2Handle> {
  assertBuilt()
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'stdio', ...args],
    env: cliEnv(env) as Record<string, string>,
    cwd: ROOT,
    stderr: 'pipe',
  })
  let err = ''
  transport.stderr?.on('data', (d: Buffer) => (err += d.toString('utf8')))
  const client = new Client({ name: `toolgate-it-v2-${era}`, version: '2.0.0' }, options(era, clientOptions))
  try {
    await client.connect(transport, { timeout: 60_000 })
  } catch (e) {
    track(transport.pid ?? undefined)
    throw new Error(`could not connect to toolgate stdio (${era}): ${(e as Error).message}\nstderr:\n${err}`)
  }
  track(transport.pid ?? undefined)
  return wrap(client, { pid: transport.pid ?? undefined, stderr: () => err })
}

/** Connects an SDK v2 client to a Streamable HTTP endpoint in `era`, with the given headers. */
export async function connectHttpV2(url: string, headers: Record<string, string>, era: Era, clientOptions: ClientOptions = {}): Promise<V2Handle> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } })
  const client = new Client({ name: `toolgate-it-http-v2-${era}`, version: '2.0.0' }, options(era, clientOptions))
  await client.connect(transport, { timeout: 30_000 })
  return wrap(client)
}

/** What a client heard: one count per kind of notifications/…/list_changed. */
export interface HeardListChanged {
  tools: number
  prompts: number
  resources: number
}

/** Client options that count every list_changed into `heard` (no auto refresh, no debounce). */
export function countListChanged(heard: HeardListChanged): ClientOptions {
  return {
    listChanged: {
      tools: { autoRefresh: false, debounceMs: 0, onChanged: () => void heard.tools++ },
      prompts: { autoRefresh: false, debounceMs: 0, onChanged: () => void heard.prompts++ },
      resources: { autoRefresh: false, debounceMs: 0, onChanged: () => void heard.resources++ },
    },
  }
}
