// Round three attack, from outside: can an agent learn of a server out of its
// scope, or of changes there, through list_changed? A real `toolgate serve`, agents of both eras
// on /mcp/direct (whose tools list holds upstream tools) and /mcp, the passthrough fixture as
// "other" (out of the reader's scope) and "pt" (in it). A prompt approved on "other" changes the
// unscoped agent's prompts list (it hears prompts/list_changed: the control) and nothing of the
// reader's: the reader hears nothing.
import fs from 'node:fs'
import path from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { describe, expect, it } from 'vitest'
import {
  apiRequest,
  assertBuilt,
  fixtureEntry,
  ROOT,
  startServe,
  stopProcess,
  tempDir,
  waitFor,
  waitForServerState,
  waitForToolStatus,
  writeJson,
} from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'

const SERVER = path.join(ROOT, 'test/fixtures/servers/passthrough-server.mjs')

useCleanup()

type Era = 'legacy' | 'modern'

async function listener(url: string, key: string, era: Era): Promise<{ heard: { tools: number; prompts: number }; client: Client }> {
  const heard = { tools: 0, prompts: 0 }
  const client = new Client(
    { name: `attack-r3-list-${era}`, version: '1.0.0' },
    {
      versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } as never,
      listChanged: {
        tools: { autoRefresh: false, debounceMs: 0, onChanged: () => void heard.tools++ },
        prompts: { autoRefresh: false, debounceMs: 0, onChanged: () => void heard.prompts++ },
      },
    },
  )
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
  return { heard, client }
}

describe.each<Era>(['legacy', 'modern'])('attack: list_changed of a server out of scope (%s era)', (era) => {
  it('the reader hears nothing of "other"; the unscoped agent hears its prompt arrive', async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-attack-r3-lc-')
    const other = path.join(tmp, 'other.json')
    const pt = path.join(tmp, 'pt.json')
    fs.writeFileSync(other, JSON.stringify({ prompts: [{ name: 'greet', description: 'Say hello', text: 'Hello' }] }))
    fs.writeFileSync(pt, JSON.stringify({ prompts: [] }))
    const entry = (s: string) => ({ command: process.execPath, args: [SERVER], env: { PASSTHROUGH_STATE: s }, quarantined: false, sandbox: { fs_read: [tmp] } })
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { other: entry(other), pt: entry(pt) },
      agents: [{ name: 'reader', servers: ['pt'], permissions: ['read'] }],
    })
    const serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    const token = (await serve.api<{ token: string }>('POST', '/api/v1/agents/reader/token')).json.token
    for (const s of ['other', 'pt']) await waitForServerState(serve, s, 'connected')
    const l = {
      admin: await listener(`${serve.url}/mcp`, serve.key, era),
      readerMeta: await listener(`${serve.url}/mcp`, token, era),
      readerDirect: await listener(`${serve.url}/mcp/direct`, token, era),
    }
    try {
      // the listen streams (2026-07-28) and GET streams (2025) open after connect
      await new Promise((r) => setTimeout(r, 1000))
      fs.writeFileSync(
        other,
        JSON.stringify({
          prompts: [
            { name: 'greet', description: 'Say hello', text: 'Hello' },
            { name: 'fresh', description: 'New', text: 'New' },
          ],
        }),
      )
      const row = await waitFor(
        async () =>
          (await serve.api<{ prompts: Array<{ prompt: string; approval: { hash: string } }> }>('GET', '/api/v1/servers/other/prompts')).json.prompts.find(
            (p) => p.prompt === 'fresh',
          ),
        20_000,
        'the new prompt listed',
      )
      expect((await apiRequest(serve, 'POST', '/api/v1/servers/other/prompts/fresh/approve', { hash: row.approval.hash })).status).toBe(200)
      await waitFor(() => l.admin.heard.prompts >= 1, 10_000, 'the unscoped agent to hear prompts/list_changed')
      // the same time again for anything addressed to the reader to arrive
      await new Promise((r) => setTimeout(r, 1500))
      expect({ meta: l.readerMeta.heard, direct: l.readerDirect.heard }).toEqual({ meta: { tools: 0, prompts: 0 }, direct: { tools: 0, prompts: 0 } })
    } finally {
      for (const x of Object.values(l)) await x.client.close().catch(() => {})
      await stopProcess(serve.child)
    }
  }, 90_000)
})

describe.each<Era>(['legacy', 'modern'])('the direct view hears its own tools change, and only its own (%s era)', (era) => {
  it('a tool switched off in scope: tools/list_changed; out of scope: nothing', async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-attack-r3-lc-direct-')
    const servers: Record<string, unknown> = {}
    for (const name of ['mine', 'other']) {
      fs.mkdirSync(path.join(tmp, name))
      const tools = writeJson(path.join(tmp, name, 'tools.json'), [{ name: 'a', description: `Tool a of ${name}`, annotations: { readOnlyHint: true } }])
      servers[name] = fixtureEntry(tools, path.join(tmp, name, 'calls.log'), { quarantined: false })
    }
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: servers,
      agents: [{ name: 'reader', servers: ['mine'], permissions: ['read'] }],
    })
    const serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    for (const id of ['mine:a', 'other:a']) await waitForToolStatus(serve, id, 'callable')
    const token = (await serve.api<{ token: string }>('POST', '/api/v1/agents/reader/token')).json.token
    const l = { admin: await listener(`${serve.url}/mcp/direct`, serve.key, era), reader: await listener(`${serve.url}/mcp/direct`, token, era) }
    try {
      await new Promise((r) => setTimeout(r, 1000))
      // out of the reader's scope: the admin's direct list changes, the reader's does not
      expect((await apiRequest(serve, 'POST', '/api/v1/servers/other/tools/a/disable', {})).status).toBe(200)
      await waitFor(() => l.admin.heard.tools >= 1, 10_000, 'the admin’s direct view to hear tools/list_changed')
      await new Promise((r) => setTimeout(r, 1500))
      expect(l.reader.heard.tools).toBe(0)
      // in the reader's scope: it hears its list change
      expect((await apiRequest(serve, 'POST', '/api/v1/servers/mine/tools/a/disable', {})).status).toBe(200)
      await waitFor(() => l.reader.heard.tools >= 1, 10_000, 'the reader’s direct view to hear tools/list_changed')
      expect((await l.reader.client.listTools()).tools.map((t) => t.name)).not.toContain('mine__a')
    } finally {
      for (const x of Object.values(l)) await x.client.close().catch(() => {})
      await stopProcess(serve.child)
    }
  }, 90_000)
})
