// GET /api/v1/agents and `toolgate agents list` against a real `toolgate serve`: a configured agent
// with its token and reach, a local client grouped by the client name it sent in initialize (a
// name an agent controls: escaped for the terminal), and the context cost in tokens.
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { AgentView } from '../../src/shared/agents'
import { fixtureEntry, runCli, startServe, stopProcess, tempDir, waitForServerState, writeJson, type FixtureTool } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'

const TOOLS: FixtureTool[] = [
  { name: 'read_notes', description: 'Read the notes in the notebook', annotations: { readOnlyHint: true } },
  { name: 'write_note', description: 'Write a note into the notebook', annotations: { readOnlyHint: false } },
]

useCleanup()

describe('agents over a live `toolgate serve`', () => {
  it('lists each agent and local client with scope, token, reach, recent activity and context cost; the CLI prints it escaped', async () => {
    const tmp = tempDir()
    const toolsFile = writeJson(path.join(tmp, 'tools.json'), TOOLS)
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      agents: [{ name: 'reader', servers: ['notes'], permissions: ['read'] }],
      mcpServers: { notes: { ...fixtureEntry(toolsFile, path.join(tmp, 'calls.log')), quarantined: false } },
    })
    const serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    try {
      await waitForServerState(serve, 'notes', 'connected')
      await serve.api('POST', '/api/v1/agents/reader/token')
      // a local client whose name carries a terminal escape sequence
      const evil = 'evil\u001b]0;owned\u0007client'
      const client = new Client({ name: evil, version: '1' })
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${serve.key}` } } }),
      )
      await client.callTool({ name: 'call_tool_read', arguments: { name: 'notes:read_notes', args: {} } })
      await client.close()

      const { json } = await serve.api<{ agents: AgentView[] }>('GET', '/api/v1/agents')
      const reader = json.agents.find((a) => a.name === 'reader')!
      expect(reader).toMatchObject({ kind: 'agent', servers: ['notes'], permissions: ['read'] })
      expect(reader.tokens).toBe(1)
      expect(reader.token_list).toHaveLength(1)
      expect(reader.token_list[0].id).toMatch(/^tok_/)
      expect(reader.reach).toEqual([{ server: 'notes', reachable: true, callable: 1, needs_permission: { write: 1 } }])
      expect(reader.context.encoding).toBe('o200k_base')
      expect(reader.context.callable_tools).toBe(1)
      expect(reader.ask_in_client).toEqual({ on: false, source: 'default', locked: false })
      expect(reader.context.at_connect).toBeGreaterThan(100)
      const local = json.agents.find((a) => a.kind === 'local')!
      expect(local.name).toBe(evil)
      expect(local.recent[0]).toMatchObject({ kind: 'call', tool: 'notes:read_notes', outcome: 'ok' })
      expect(local.context.callable_tools).toBe(2)
      expect(local.context.all_callable).toBeGreaterThan(0)

      const table = await runCli(['agents', 'list', ...serve.flags])
      expect(table.code).toBe(0)
      expect(table.stdout).toMatch(new RegExp(`reader\\s+notes\\s+read\\s+1\\s+off\\s+1\\s+${reader.context.at_connect} / ${reader.context.all_callable}`))
      expect(table.stdout).not.toContain('\u001b')
      const cli = await runCli(['agents', 'list', '--details', ...serve.flags])
      expect(cli.code).toBe(0)
      expect(cli.stdout).not.toContain('\u001b')
      expect(cli.stdout).toContain('evil\\u001b]0;owned\\u0007client')
      expect(cli.stdout).toMatch(/reader +\(agent\)/)
      expect(cli.stdout).toContain(`${reader.context.at_connect} tokens at connect`)
      const asJson = JSON.parse((await runCli(['agents', 'list', '--json', ...serve.flags])).stdout) as { agents: AgentView[] }
      expect(asJson.agents.map((a) => a.name)).toEqual(json.agents.map((a) => a.name))
    } finally {
      await stopProcess(serve.child)
    }
  }, 90_000)
})
