// A tool that its server runs only as a task (the reference `everything` server's
// `simulate-research-query`, 2025-11-25 tasks, `execution.taskSupport: "required"`), through
// Toolgate: agents of both eras call it like any tool (call_tool_write over /mcp, and by its name
// on /mcp/direct) and get its result, because Toolgate runs it as a task on their behalf and waits
// for it. Nothing of the task reaches the agent (no task id, no related-task key). A call whose
// timeout passes first ends with Toolgate's timeout error (and the task is cancelled upstream). A
// question the task asks (an elicitation tied to it) reaches the calling agent, labelled, and the
// agent's answer reaches the task.
import path from 'node:path'
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { describe, expect, it } from 'vitest'
import { EVERYTHING, assertBuilt, startServe, stopProcess, tempDir, waitForServerState, waitForToolStatus, writeJson } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { connectHttpV2, type Era } from '../helpers/mcp-v2-client'
import { textOf } from '../helpers/mcp-client'

useCleanup()

async function serveEverything(extra: Record<string, unknown> = {}) {
  assertBuilt()
  const tmp = tempDir('toolgate-tasks-')
  const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
    mcpServers: { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], quarantined: false } },
    ...extra,
  })
  const serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
  await waitForServerState(serve, 'everything', 'connected')
  await waitForToolStatus(serve, 'everything:simulate-research-query', 'callable')
  return serve
}

describe('a tool that runs only as a task', () => {
  it.each<Era>(['modern', 'legacy'])(
    'is called like any tool and answers its result (%s agent, /mcp and /mcp/direct)',
    async (era) => {
      const serve = await serveEverything()
      const auth = { authorization: `Bearer ${serve.key}` }
      const meta = await connectHttpV2(`${serve.url}/mcp`, auth, era)
      const direct = await connectHttpV2(`${serve.url}/mcp/direct`, auth, era)
      try {
        const r = await meta.call('call_tool_write', { name: 'everything:simulate-research-query', args: { topic: 'tide pools' } }, 90_000)
        expect(r.isError, textOf(r)).toBeFalsy()
        expect(textOf(r)).toContain('Research Report: tide pools')
        // nothing of the task: no id, no related-task key
        expect(JSON.stringify(r)).not.toMatch(/related-task|taskId/)
        const d = await direct.call('everything__simulate-research-query', { topic: 'kelp' }, 90_000)
        expect(d.isError, textOf(d)).toBeFalsy()
        expect(textOf(d)).toContain('Research Report: kelp')
      } finally {
        await meta.close().catch(() => {})
        await direct.close().catch(() => {})
        await stopProcess(serve.child)
      }
    },
    120_000,
  )

  it('a call whose timeout passes before the task ends gets Toolgate’s timeout error', async () => {
    // the research takes several seconds; the call may take one
    const serve = await serveEverything({ call_timeout_ms: 1000 })
    const a = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` }, 'modern')
    try {
      const r = await a.call('call_tool_write', { name: 'everything:simulate-research-query', args: { topic: 'slow' } }, 60_000)
      expect(r.isError).toBe(true)
      expect(textOf(r)).toMatch(/timed out after 1000 ms/)
      // the server is still fine: an ordinary tool answers
      const echo = await a.call('call_tool_read', { name: 'everything:echo', args: { message: 'still here' } })
      expect(textOf(echo)).toContain('still here')
    } finally {
      await a.close().catch(() => {})
      await stopProcess(serve.child)
    }
  }, 60_000)
})

describe('a question asked for a task', () => {
  it.each<Era>(['legacy', 'modern'])(
    'reaches the calling agent, labelled, and its answer reaches the task (%s agent)',
    async (era) => {
      const serve = await serveEverything()
      const asked: Array<Record<string, unknown>> = []
      const client = new Client(
        { name: `tasks-asks-${era}`, version: '1.0.0' },
        { versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } as never, capabilities: { elicitation: { form: {} } } },
      )
      client.setRequestHandler('elicitation/create', async (req) => {
        asked.push(req.params as Record<string, unknown>)
        return { action: 'accept', content: { interpretation: 'comedy' } }
      })
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${serve.key}` } } }),
      )
      try {
        const r = (await client.callTool(
          { name: 'call_tool_write', arguments: { name: 'everything:simulate-research-query', args: { topic: 'python', ambiguous: true } } },
          { timeout: 90_000 },
        )) as never
        expect(textOf(r)).toContain('Research Report: python')
        // the task went on with the agent's answer, not its fallback for an unanswered question
        expect(textOf(r)).toContain('comedy')
        expect(textOf(r)).not.toContain('elicitation unavailable')
        expect(asked).toHaveLength(1)
        expect(String(asked[0].message)).toMatch(/^\[From the MCP server "everything", relayed by Toolgate; not a question of Toolgate's\]/)
        expect(String(asked[0].message)).toContain('multiple interpretations')
      } finally {
        await client.close().catch(() => {})
        await stopProcess(serve.child)
      }
    },
    120_000,
  )
})
