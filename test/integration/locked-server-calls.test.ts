// Calls to a locked server, from outside (MCP over HTTP and the control API of a real `toolgate serve`): a
// server that is quarantined or switched off answers TOOL_BLOCKED for ANY tool name on it, known
// or not, on call_tool_* and describe_tool; an unknown server is "unknown server"; and an operator
// hold ("quarantined": true) says only the operator can release it, never "ask the user to approve".
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { assertBuilt, fixtureEntry, logLines, startServe, tempDir, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, jsonOf, textOf, type McpHandle } from '../helpers/mcp-client'

useCleanup()

const HINT = 'Run retrieve_tools with include_disabled:true to see locked capabilities and remediation.'

describe('a locked server answers for all of its tools', () => {
  let serve: Serve
  let agent: McpHandle
  let tmp: string

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-locked-server-')
    const tools = writeJson(path.join(tmp, 'tools.json'), [{ name: 'read_notes', description: 'Read the notes', annotations: { readOnlyHint: true } }])
    const entry = (name: string, extra: Record<string, unknown>) => fixtureEntry(tools, path.join(tmp, `${name}.log`), extra)
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {
        // never approved and never inspected: no tool of it is known
        fresh: entry('fresh', {}),
        // the operator's hold
        held: entry('held', { quarantined: true }),
        // switched off before it ever ran
        off: entry('off', { quarantined: false, enabled: false }),
      },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    agent = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
  }, 60_000)

  afterAll(async () => {
    await agent?.close()
    await stopServe(serve)
  })

  it('a tool never seen on a quarantined server: TOOL_BLOCKED (server_quarantined), ask the user to review and approve', async () => {
    for (const tool of ['call_tool_read', 'call_tool_write', 'call_tool_destructive']) {
      const r = await agent.call(tool, { name: 'fresh:anything', args: {} })
      expect(r.isError).toBe(true)
      expect(textOf(r)).toBe(
        `TOOL_BLOCKED (server_quarantined): The server is in quarantine awaiting review; ask the user to review and approve the server in the Toolgate window (or \`toolgate servers approve NAME\`), or call request_access with this tool's name and your reason so the user can review and allow it. ${HINT}`,
      )
    }
    const d = await agent.call('describe_tool', { name: 'fresh:anything' })
    expect(d.isError).toBe(true)
    expect(textOf(d)).toMatch(/^TOOL_BLOCKED \(server_quarantined\): The server is in quarantine awaiting review/)
  })

  it('a switched-off server: TOOL_BLOCKED (server_disabled) for any name', async () => {
    const r = await agent.call('call_tool_read', { name: 'off:whatever_it_is' })
    expect(r.isError).toBe(true)
    expect(textOf(r)).toBe(
      `TOOL_BLOCKED (server_disabled): The server is switched off; ask the user to enable the server first in the Toolgate window or tray (\`toolgate servers enable NAME\`), or call request_access with this tool's name and your reason so the user can allow it in one click. ${HINT}`,
    )
    expect(textOf(await agent.call('describe_tool', { name: 'off:whatever_it_is' }))).toMatch(/^TOOL_BLOCKED \(server_disabled\): /)
  })

  it('an unknown server is "unknown server"', async () => {
    const r = await agent.call('call_tool_read', { name: 'nosuch:tool' })
    expect(r.isError).toBe(true)
    expect(textOf(r)).toMatch(/^unknown server "nosuch"/)
    expect(textOf(await agent.call('describe_tool', { name: 'nosuch:tool' }))).toMatch(/^unknown server "nosuch"/)
  })

  it('an operator hold says only the operator can release it, on every surface, known tool or not', async () => {
    const holdText = (t: string) => {
      expect(t).toMatch(/operator/)
      expect(t).toMatch(/"quarantined": true/)
      expect(t).not.toMatch(/ask the user/i)
      expect(t).not.toMatch(/approve the server/i)
    }
    // unknown tool name
    const unknown = await agent.call('call_tool_read', { name: 'held:anything' })
    expect(textOf(unknown)).toMatch(/^TOOL_BLOCKED \(server_quarantined\): /)
    holdText(textOf(unknown))
    // known tools: inspect it (the user may look), then call, describe, search, list
    expect((await serve.api('POST', '/api/v1/servers/held/inspect')).status).toBe(200)
    for (const r of [await agent.call('call_tool_read', { name: 'held:read_notes' }), await agent.call('describe_tool', { name: 'held:read_notes' })]) {
      expect(r.isError).toBe(true)
      expect(textOf(r)).toMatch(/^TOOL_BLOCKED \(server_quarantined\): /)
      holdText(textOf(r))
    }
    const found = jsonOf<{ disabled?: Array<{ name: string; status: string }>; remediation?: Record<string, string> }>(
      await agent.call('retrieve_tools', { query: 'read notes', include_disabled: true }),
    )
    expect(found.disabled?.map((d) => [d.name, d.status])).toContainEqual(['held:read_notes', 'server_quarantined'])
    holdText(found.remediation?.server_quarantined ?? '')
    const listed = await serve.api<{ tools: Array<{ name: string; remediation?: string }> }>('GET', '/api/v1/servers/held/tools')
    holdText(listed.json.tools.find((t) => t.name === 'held:read_notes')?.remediation ?? '')
    // nothing ever reached the upstream
    expect(logLines(path.join(tmp, 'held.log'))).toEqual([])
  })
})
