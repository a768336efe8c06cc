// ClosingServer (agent-server/closing-server.ts) closes as the SDK's Server does, except that the
// "Connection closed" error it builds has no stack frames: a handler still running is aborted
// with the same reason (class, code, name, message), a request the server still waits on is
// rejected alike, onclose runs once and is left as the SDK leaves it, stack capture is on again
// for the close callbacks and abort listeners, and Error.stackTraceLimit is what it was after.
import { describe, expect, it } from 'vitest'
import { Client } from '@modelcontextprotocol/client'
import { InMemoryTransport, SdkError, Server, type CallToolResult } from '@modelcontextprotocol/server'
import { ClosingServer } from '../../src/main/core/agent-server/closing-server'

interface Seen {
  reason: unknown
  /** an Error made by an abort listener of the running handler */
  listenerError: Error | null
  /** an Error made by the server's onclose */
  oncloseError: Error | null
  oncloseCalls: number
  pendingRejection: unknown
  oncloseAfter: unknown
  limitAfter: number
}

const frames = (e: unknown): number => ((e as Error).stack ?? '').split('\n').filter((l) => l.trimStart().startsWith('at ')).length

async function closeWhileBusy(make: () => Server): Promise<Seen> {
  const server = make()
  const seen: Seen = { reason: null, listenerError: null, oncloseError: null, oncloseCalls: 0, pendingRejection: null, oncloseAfter: null, limitAfter: -1 }
  let running: () => void = () => {}
  const started = new Promise<void>((r) => (running = r))
  server.setRequestHandler('tools/call', async (_req, ctx): Promise<CallToolResult> => {
    await new Promise<void>((resolve) => {
      ctx.mcpReq.signal.addEventListener('abort', () => {
        seen.reason = ctx.mcpReq.signal.reason
        seen.listenerError = new Error('made by an abort listener')
        resolve()
      })
      running()
    })
    return { content: [] }
  })
  const onclose = (): void => {
    seen.oncloseCalls++
    seen.oncloseError = new Error('made by onclose')
  }
  server.onclose = onclose
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  const client = new Client({ name: 'closing', version: '1' }, { capabilities: { elicitation: {} } })
  await server.connect(serverSide)
  await client.connect(clientSide)
  // a request of the server's own, left waiting: the close rejects it
  client.setRequestHandler('elicitation/create', () => new Promise(() => {}))
  const pending = server.elicitInput({ mode: 'form', message: 'wait', requestedSchema: { type: 'object', properties: {} } }).catch((e: unknown) => e)
  const call = client.callTool({ name: 'busy', arguments: {} }).catch((e: unknown) => e)
  await started
  await server.close()
  seen.pendingRejection = await pending
  seen.oncloseAfter = server.onclose === onclose ? 'as set' : server.onclose
  seen.limitAfter = Error.stackTraceLimit
  await call
  await client.close()
  return seen
}

const describeError = (e: unknown) => ({
  isSdkError: e instanceof SdkError,
  code: (e as SdkError).code,
  name: (e as Error).name,
  message: (e as Error).message,
})

describe('ClosingServer closes as the SDK Server does', () => {
  it('aborts a running handler and rejects a waiting request with the same error, without its stack frames', async () => {
    const limit = Error.stackTraceLimit
    const sdk = await closeWhileBusy(() => new Server({ name: 's', version: '1' }, { capabilities: { tools: {} } }))
    const ours = await closeWhileBusy(() => new ClosingServer({ name: 's', version: '1' }, { capabilities: { tools: {} } }))
    expect(describeError(ours.reason)).toEqual(describeError(sdk.reason))
    expect(describeError(ours.reason).isSdkError).toBe(true)
    expect(describeError(ours.pendingRejection)).toEqual(describeError(sdk.pendingRejection))
    expect(ours.reason).toBe(ours.pendingRejection)
    expect(ours.oncloseCalls).toBe(1)
    expect(sdk.oncloseCalls).toBe(1)
    expect(ours.oncloseAfter).toEqual(sdk.oncloseAfter)
    // the one difference: no frames captured for the SDK's error
    expect(frames(sdk.reason)).toBeGreaterThan(0)
    expect(frames(ours.reason)).toBe(0)
    // capture is on for the callbacks, and as it was after the close
    expect(frames(ours.oncloseError)).toBeGreaterThan(0)
    expect(frames(ours.listenerError)).toBeGreaterThan(0)
    expect(ours.limitAfter).toBe(limit)
    expect(Error.stackTraceLimit).toBe(limit)
  })
})
