// A tool its server runs only as a task (2025-11-25 tasks: `execution.taskSupport: "required"`;
// docs/passthrough.md, tasks): Toolgate runs the call as a task on the agent's behalf and waits for
// its result (`tasks/result` answers once the task has ended), so the agent makes an ordinary call
// through the same gate (scope, locks, the user's OK, the structured-output check, the activity
// record) and gets an ordinary result; nothing of the task, its id least of all, reaches any agent.
// The call's timeout covers the whole task; a call that the agent cancels, or that times out,
// cancels the task (`tasks/cancel`).
import type { CallToolResult, Client } from '@modelcontextprotocol/client'
import { CallToolResultSchema } from '@modelcontextprotocol/core'
import { z } from 'zod'

const CreateTaskResult = z.looseObject({ task: z.looseObject({ taskId: z.string().min(1).max(1024), status: z.string() }) })
const Loose = z.looseObject({})
/** How long a tasks/cancel may take (it is sent when the call is over for the agent anyway). */
const CANCEL_TIMEOUT_MS = 10_000

type Request = Parameters<Client['request']>[0]

/** Whether a server offers task-augmented tools/call (2025-11-25 `tasks.requests.tools.call`). */
export function offersToolTasks(capabilities: unknown): boolean {
  const tasks = (capabilities as { tasks?: { requests?: { tools?: { call?: unknown } } } } | undefined)?.tasks
  return typeof tasks?.requests?.tools?.call === 'object' && tasks.requests.tools.call !== null
}

/** tools/call as a task, then its result; `params` as for an ordinary tools/call. */
export async function callAsTask(mcp: Client, params: Record<string, unknown>, opts: { timeoutMs: number; signal?: AbortSignal }): Promise<CallToolResult> {
  const deadline = Date.now() + opts.timeoutMs
  const created = await mcp.request({ method: 'tools/call', params: { ...params, task: { ttl: opts.timeoutMs } } } as Request, CreateTaskResult, {
    timeout: opts.timeoutMs,
    signal: opts.signal,
  })
  const taskId = created.task.taskId
  let over = false
  const cancel = (): void => {
    if (over) return
    over = true
    void mcp.request({ method: 'tasks/cancel', params: { taskId } } as Request, Loose, { timeout: CANCEL_TIMEOUT_MS }).catch(() => undefined)
  }
  opts.signal?.addEventListener('abort', cancel, { once: true })
  try {
    const result = await mcp.request({ method: 'tasks/result', params: { taskId } } as Request, CallToolResultSchema, {
      timeout: Math.max(1, deadline - Date.now()),
      signal: opts.signal,
    })
    over = true
    return result
  } catch (err) {
    // timed out (or the connection failed): the task is of no use to anyone now
    cancel()
    throw err
  } finally {
    opts.signal?.removeEventListener('abort', cancel)
  }
}
