// Confirmation of risky calls for an agent on `toolgate stdio` (the embedded owner, as
// Claude Desktop or Cursor start it): while its call waits for the user, an agent that sent a
// progressToken hears so at once (MCP notifications/progress with a message), so a client that
// restarts its timeout on progress keeps waiting; the user answers from the terminal
// (`toolgate confirmations`), which finds the running owner through the data dir.
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Progress } from '@modelcontextprotocol/sdk/types.js'
import { assertBuilt, fixtureEntry, logLines, runCli, tempDir, waitFor, writeJson } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { connectStdio, textOf, waitForUpstreams, type McpHandle, type ToolResult } from '../helpers/mcp-client'

useCleanup()

describe('confirmation over `toolgate stdio`', () => {
  let agent: McpHandle
  let tmp: string
  let flags: string[]
  const log = () => logLines(path.join(tmp, 'notes.log'))
  const waitingId = (re: RegExp) =>
    waitFor(
      async () =>
        (await runCli(['confirmations', ...flags])).stdout
          .split('\n')
          .find((l) => re.test(l))
          ?.split(/\s+/)[0],
      20_000,
      `a waiting call matching ${re}`,
    )

  beforeAll(async () => {
    assertBuilt()
    tmp = tempDir('toolgate-confirm-stdio-')
    const tools = writeJson(path.join(tmp, 'tools.json'), [{ name: 'edit_notes', description: 'Edit the notes', annotations: { readOnlyHint: false } }])
    const config = writeJson(path.join(tmp, 'mcp_config.json'), {
      agents: [{ name: 'editor', servers: '*', permissions: ['read', 'write'] }],
      mcpServers: { notes: fixtureEntry(tools, path.join(tmp, 'notes.log'), { quarantined: false, confirm: 'write', confirm_timeout_s: 30 }) },
    })
    flags = ['--config', config, '--data-dir', path.join(tmp, 'data')]
    agent = await connectStdio([...flags, '--agent', 'editor'])
    await waitForUpstreams(agent, ['notes'])
  }, 90_000)

  afterAll(async () => {
    await agent?.close()
  })

  it('the waiting agent hears at once that its call waits for the user, with the time left; allowed from the CLI, the call runs', async () => {
    const heard: Progress[] = []
    const call = agent.client.callTool({ name: 'call_tool_write', arguments: { name: 'notes:edit_notes', args: { text: 'hello' } } }, undefined, {
      onprogress: (p) => heard.push(p),
      resetTimeoutOnProgress: true,
      timeout: 60_000,
    }) as Promise<ToolResult>
    const first = await waitFor(() => heard[0], 20_000, 'a progress notification')
    expect(first.total).toBe(30)
    expect(first.progress).toBeLessThan(30)
    expect(first.message).toMatch(
      /^Waiting for the user to allow or deny this call of notes:edit_notes in Toolgate \(\d+ s left\); it runs only if they allow it\.$/,
    )
    expect(log()).toEqual([])

    const id = await waitingId(/notes:edit_notes/)
    const allowed = await runCli(['confirmations', 'allow', id as string, ...flags])
    expect(allowed.code, allowed.stderr).toBe(0)
    const r = await call
    expect(r.isError, textOf(r)).toBeFalsy()
    expect(log()).toEqual([{ tool: 'edit_notes', arguments: { text: 'hello' } }])
  }, 90_000)

  it('without a progressToken the call just waits; deny answers CALL_DECLINED', async () => {
    const call = agent.call('call_tool_write', { name: 'notes:edit_notes', args: { text: 'nope' } })
    const id = await waitingId(/"text":"nope"/)
    expect((await runCli(['confirmations', 'deny', id as string, ...flags])).code).toBe(0)
    expect(textOf(await call)).toMatch(/^CALL_DECLINED: the user declined this call of notes:edit_notes/)
    expect(log()).toHaveLength(1)
  }, 90_000)
})
