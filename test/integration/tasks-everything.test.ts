// A tool that its server runs only as a task (the reference `everything` server's
// `simulate-research-query`, 2025-11-25 tasks, `execution.taskSupport: "required"`), through
// Toolgate: agents of both eras call it like any tool (call_tool_write over /mcp, and by its name
// on /mcp/direct) and get its result, because Toolgate runs it as a task on their behalf and waits
// for it. Nothing of the task reaches the agent (no task id, no related-task key). A call whose
// timeout passes first ends with Toolgate's timeout error (and the task is cancelled upstream).
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import {
  EVERYTHING,
  assertBuilt,
  cleanupProcesses,
  cleanupTemp,
  startServe,
  stopProcess,
  tempDir,
  waitForServerState,
  waitForToolStatus,
  writeJson,
} from '../helpers/cli'
import { connectHttpV2, type Era } from '../helpers/mcp-v2-client'
import { textOf } from '../helpers/mcp-client'

afterAll(async () => {
  await cleanupProcesses()
  cleanupTemp()
})

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
