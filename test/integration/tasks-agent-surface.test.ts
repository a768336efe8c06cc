// What docs/passthrough.md#tasks promises agents about tasks, checked on the wire of both eras
// (raw HTTP against a real `toolgate serve` with the reference `everything` server, whose 2025
// tasks are real): Toolgate declares no tasks capability, serves none of the task methods
// (tasks/get, tasks/result, tasks/list, tasks/cancel answer an error, never a task), and an agent
// that asks for a task in its tools/call gets the ordinary result, with no task id in it.
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EVERYTHING, assertBuilt, rawRequest, startServe, tempDir, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { answerOf, MODERN_BARE, modernPost, type Rpc } from '../helpers/modern-http'

useCleanup()

describe('tasks on the agent side: none handed out, in either era', () => {
  let serve: Serve
  let session: string

  beforeAll(async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-tasks-surface-')
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], quarantined: false, lifecycle: 'always' } },
    })
    serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    await waitForServerState(serve, 'everything', 'connected')
  }, 60_000)

  afterAll(() => stopServe(serve))

  const legacy = async (id: number, method: string, params: Record<string, unknown> = {}): Promise<Rpc & { status: number }> => {
    const r = await rawRequest(`${serve.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${serve.key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2025-11-25',
        ...(session ? { 'mcp-session-id': session } : {}),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    })
    if (!session && typeof r.headers['mcp-session-id'] === 'string') session = r.headers['mcp-session-id']
    return { status: r.status, ...answerOf(r.body) }
  }
  const modern = async (id: number, method: string, params: Record<string, unknown> = {}, name?: string): Promise<Rpc & { status: number }> => {
    const r = await modernPost(serve, serve.key, method, params, { id, envelope: MODERN_BARE, ...(name ? { name } : {}) })
    return { status: r.status, ...answerOf(r.body) }
  }

  it('2025: no tasks capability; the task methods answer an error; a call that asks for a task gets the ordinary result', async () => {
    const init = await legacy(1, 'initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } })
    expect(init.result?.protocolVersion).toBe('2025-11-25')
    expect(init.result?.capabilities).not.toHaveProperty('tasks')
    expect(Object.keys((init.result?.capabilities as Record<string, unknown>) ?? {})).toEqual(expect.arrayContaining(['tools', 'prompts', 'resources']))
    await rawRequest(`${serve.url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${serve.key}`, 'content-type': 'application/json', 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    })
    for (const [i, method] of ['tasks/get', 'tasks/result', 'tasks/list', 'tasks/cancel'].entries()) {
      const r = await legacy(10 + i, method, method === 'tasks/list' ? {} : { taskId: 'everything-task-1' })
      expect(r.error?.code, `${method}: ${JSON.stringify(r)}`).toBe(-32601)
      expect(r.result).toBeUndefined()
    }
    const asked = await legacy(20, 'tools/call', {
      name: 'call_tool_read',
      arguments: { name: 'everything:echo', args: { message: 'as a task?' } },
      task: { ttl: 60_000 },
    })
    expect(asked.error).toBeUndefined()
    expect(JSON.stringify(asked.result)).toContain('Echo: as a task?')
    expect(asked.result).not.toHaveProperty('task')
    expect(JSON.stringify(asked.result)).not.toMatch(/taskId|related-task/)
  })

  it('2026-07-28: server/discover names no tasks extension; tasks/get answers an error; a call that asks for a task gets the ordinary result', async () => {
    const discover = await modern(1, 'server/discover')
    expect(discover.error).toBeUndefined()
    expect(JSON.stringify(discover.result)).not.toMatch(/tasks/)
    const get = await modern(2, 'tasks/get', { taskId: 'everything-task-1' })
    expect(get.error, JSON.stringify(get)).toBeDefined()
    expect(get.result).toBeUndefined()
    const asked = await modern(
      3,
      'tools/call',
      { name: 'call_tool_read', arguments: { name: 'everything:echo', args: { message: 'modern task?' } }, task: { ttl: 60_000 } },
      'call_tool_read',
    )
    expect(asked.error).toBeUndefined()
    expect(JSON.stringify(asked.result)).toContain('Echo: modern task?')
    expect(JSON.stringify(asked.result)).not.toMatch(/taskId|related-task/)
  })
})
