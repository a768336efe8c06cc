// The activity record of an agent's prompts/get and resources/read: times the request, tells a
// refusal by the gate from a failure after it, and writes the record before the answer (or the
// error) reaches the agent, as a call's record is.
import { ProtocolError, ProtocolErrorCode, type ServerContext } from '@modelcontextprotocol/server'
import type { ReadRecord } from '../activity/recorder'

/** Records one read for the session of `ctx` (mcp-server.ts names the agent and its client). */
export type RecordRead = (ctx: ServerContext, r: ReadRecord) => void

/** What the handler learns while it works: the server the read is for, and whether the gate let it through. */
export interface ReadNote {
  server: string | null
  passed: boolean
}

/** Runs one read and records it (ok, refused, error); without `record` it only runs it. */
export async function recordedRead<T>(
  record: RecordRead | undefined,
  ctx: ServerContext,
  what: ReadRecord['what'],
  name: string,
  work: (note: ReadNote) => Promise<T>,
): Promise<T> {
  if (!record) return work({ server: null, passed: false })
  const note: ReadNote = { server: null, passed: false }
  const t0 = performance.now()
  try {
    const result = await work(note)
    record(ctx, { what, server: note.server, name, outcome: 'ok', durationMs: performance.now() - t0 })
    return result
  } catch (e) {
    const code = e instanceof ProtocolError ? e.code : ProtocolErrorCode.InternalError
    // the gate's no (unknown, out of scope, locked, agent gone) is a refusal; anything after it failed
    const refused = !note.passed && (code === ProtocolErrorCode.InvalidParams || code === ProtocolErrorCode.InvalidRequest)
    record(ctx, {
      what,
      server: note.server,
      name,
      outcome: refused ? 'refused' : 'error',
      code,
      error: e instanceof Error ? e.message : String(e),
      durationMs: performance.now() - t0,
    })
    throw e
  }
}
