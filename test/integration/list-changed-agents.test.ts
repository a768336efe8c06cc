// list_changed for agents, from outside (a real `toolgate serve`, real upstreams, agents of both eras over
// HTTP /mcp and over `toolgate stdio` bridged to it): list_changed reaches an agent when what it
// would list changed, and only then; bursts are coalesced. Attack: a flood of 200 list_changed of
// each kind in 2 s costs the upstream at most one re-list per kind per second (counted by the
// upstream itself), and agents hear nothing of it (their view did not change).
import fs from 'node:fs'
import path from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { apiRequest, BIN, cliEnv, ROOT, startServe, tempDir, track, waitFor, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'

const FLOOD = path.join(ROOT, 'test/fixtures/servers/flood-server.mjs')
const PASSTHROUGH = path.join(ROOT, 'test/fixtures/servers/passthrough-server.mjs')

useCleanup()

type Era = 'legacy' | 'modern'
interface Listener {
  heard: { tools: number; prompts: number }
  client: Client
  close(): Promise<void>
}

function clientFor(era: Era, heard: Listener['heard']): Client {
  const mode = era === 'modern' ? { pin: '2026-07-28' } : 'legacy'
  return new Client(
    { name: `list-changed-${era}`, version: '1.0.0' },
    {
      versionNegotiation: { mode } as never,
      listChanged: {
        tools: { autoRefresh: false, debounceMs: 0, onChanged: () => void heard.tools++ },
        prompts: { autoRefresh: false, debounceMs: 0, onChanged: () => void heard.prompts++ },
      },
    },
  )
}

async function httpListener(serve: Serve, era: Era, key: string): Promise<Listener> {
  const heard = { tools: 0, prompts: 0 }
  const client = clientFor(era, heard)
  await client.connect(new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
  return { heard, client, close: () => client.close() }
}

async function stdioListener(serve: Serve, era: Era, agent?: string): Promise<Listener> {
  const heard = { tools: 0, prompts: 0 }
  const client = clientFor(era, heard)
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'stdio', ...serve.flags, ...(agent ? ['--agent', agent] : [])],
    env: cliEnv({ TOOLGATE_API_KEY: serve.key }) as Record<string, string>,
    cwd: ROOT,
    stderr: 'pipe',
  })
  await client.connect(transport, { timeout: 60_000 })
  track(transport.pid ?? undefined)
  return { heard, client, close: () => client.close() }
}

describe('list_changed for agents', () => {
  let serve: Serve
  let tmp: string
  let ptState: string
  const writePrompts = (prompts: unknown[]) => fs.writeFileSync(ptState, JSON.stringify({ prompts, resources: [], templates: [] }))
  const counts = async (client: Client, server: string) => {
    const r = await client.callTool({ name: 'call_tool_read', arguments: { name: `${server}:counts`, args: {} } })
    return JSON.parse((r.content as Array<{ text: string }>)[0].text) as { tools_list: number; prompts_list: number; prompts_get: number; flooding: boolean }
  }

  beforeAll(async () => {
    tmp = tempDir('toolgate-list-changed-')
    ptState = path.join(tmp, 'pt.json')
    writePrompts([{ name: 'greet', description: 'Say hello', text: 'Hello' }])
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {
        old: { command: process.execPath, args: [FLOOD, '--legacy'], quarantined: false },
        new: { command: process.execPath, args: [FLOOD], quarantined: false },
        pt: { command: process.execPath, args: [PASSTHROUGH], env: { PASSTHROUGH_STATE: ptState }, quarantined: false, sandbox: { fs_read: [tmp] } },
      },
      agents: [{ name: 'flood-only', servers: ['old', 'new'], permissions: ['read'] }],
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    for (const s of ['old', 'new', 'pt']) await waitForServerState(serve, s, 'connected')
  }, 90_000)

  afterAll(() => stopServe(serve))

  it('a prompt approved by the user reaches agents of both eras as prompts/list_changed; an agent without that server hears nothing', async () => {
    const token = (await serve.api<{ token: string }>('POST', '/api/v1/agents/flood-only/token')).json.token
    const listeners = {
      legacyHttp: await httpListener(serve, 'legacy', serve.key),
      modernHttp: await httpListener(serve, 'modern', serve.key),
      legacyStdio: await stdioListener(serve, 'legacy'),
      modernStdio: await stdioListener(serve, 'modern'),
      outOfScope: await httpListener(serve, 'legacy', token),
    }
    try {
      // the listen streams (2026-07-28) and GET streams (2025) open after connect
      await new Promise((r) => setTimeout(r, 1000))
      writePrompts([
        { name: 'greet', description: 'Say hello', text: 'Hello' },
        { name: 'fresh', description: 'A new prompt', text: 'New text' },
      ])
      await waitFor(
        async () =>
          (await serve.api<{ prompts: Array<{ prompt: string; status: string }> }>('GET', '/api/v1/servers/pt/prompts')).json.prompts.some(
            (p) => p.prompt === 'fresh',
          ),
        20_000,
        'the new prompt listed',
      )
      // new and waiting for review: no agent's list changed yet
      await new Promise((r) => setTimeout(r, 1500))
      for (const l of Object.values(listeners)) expect(l.heard.prompts).toBe(0)
      const row = (await serve.api<{ prompts: Array<{ prompt: string; approval: { hash: string } }> }>('GET', '/api/v1/servers/pt/prompts')).json.prompts.find(
        (p) => p.prompt === 'fresh',
      )
      expect((await apiRequest(serve, 'POST', '/api/v1/servers/pt/prompts/fresh/approve', { hash: row?.approval.hash })).status).toBe(200)
      for (const [name, l] of Object.entries(listeners)) {
        if (name === 'outOfScope') continue
        await waitFor(() => l.heard.prompts >= 1, 10_000, `${name} to hear prompts/list_changed`)
        expect((await l.client.listPrompts()).prompts.map((p) => p.name)).toContain('pt__fresh')
      }
      await new Promise((r) => setTimeout(r, 1500))
      expect(listeners.outOfScope.heard.prompts).toBe(0)
      for (const l of Object.values(listeners)) expect(l.heard.tools).toBe(0)
    } finally {
      for (const l of Object.values(listeners)) await l.close().catch(() => {})
    }
  }, 90_000)

  it('attack: 200 list_changed of each kind in 2 s cost at most one re-list per kind per second, and agents hear nothing', async () => {
    const agent = await httpListener(serve, 'legacy', serve.key)
    const modern = await httpListener(serve, 'modern', serve.key)
    try {
      await new Promise((r) => setTimeout(r, 1000))
      const before = { old: await counts(agent.client, 'old'), new: await counts(agent.client, 'new') }
      for (const s of ['old', 'new'])
        await agent.client.callTool({
          name: 'call_tool_read',
          arguments: { name: `${s}:flood`, args: { count: 200, over_ms: 2000, kinds: ['tools', 'prompts'] } },
        })
      await waitFor(async () => !(await counts(agent.client, 'old')).flooding && !(await counts(agent.client, 'new')).flooding, 20_000, 'the floods to end')
      // the last coalesced re-lists run within a second of the last notification
      await new Promise((r) => setTimeout(r, 2500))
      for (const s of ['old', 'new'] as const) {
        const after = await counts(agent.client, s)
        // 2 s of flood: the first at once, then at most one per second, and one after the last
        expect(after.tools_list - before[s].tools_list, `${s}: tools/list`).toBeLessThanOrEqual(4)
        expect(after.prompts_list - before[s].prompts_list, `${s}: prompts/list`).toBeLessThanOrEqual(4)
        expect(after.tools_list - before[s].tools_list, `${s}: tools/list`).toBeGreaterThanOrEqual(1)
      }
      // nothing an agent lists changed: no agent is told otherwise
      expect(agent.heard).toEqual({ tools: 0, prompts: 0 })
      expect(modern.heard).toEqual({ tools: 0, prompts: 0 })
      // and Toolgate still answers at once
      const t0 = Date.now()
      await agent.client.listTools()
      expect(Date.now() - t0).toBeLessThan(2000)
    } finally {
      await agent.close().catch(() => {})
      await modern.close().catch(() => {})
    }
  }, 60_000)
})
