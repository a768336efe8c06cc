// Requests the owner sends to the agent's client through the stdio bridge (2025 sessions: an
// elicitation/create, sampling/createMessage, roots/list or ping, on a call's stream or on the
// session's own GET stream), and the client's answers back. Each request reaches the client under
// an id of the bridge's own (never the owner's: a new session upstream numbers its requests from 0
// again), so an answer can only land on the request it answers: an answer to an id the client was
// never sent, to a withdrawn one, or given twice is dropped here and never reaches the owner. The
// owner's notifications/cancelled for a request it withdrew is passed on under the client's id;
// when the session upstream ends (the owner went away or forgot it), every question still open on
// it is withdrawn in the client the same way.
import type { JSONRPCMessage } from '@modelcontextprotocol/server'

type Id = string | number

interface Asked {
  /** the owner's session the request came on */
  session: string
  /** the owner's id of the request */
  ownerId: Id
}

/** Why a question was withdrawn when its session upstream ended. */
export const SESSION_ENDED_REASON = "Toolgate's session for this client ended (its owner process changed); the question was withdrawn"

export class OwnerRequests {
  private next = 0
  /** open requests by the id the client was given */
  private readonly asked = new Map<number, Asked>()

  /** Open requests (the client was sent them and has not answered). */
  get open(): number {
    return this.asked.size
  }

  /**
   * A message of the owner that came on a stream of `session` (null: a 2026-07-28 request's
   * stream, which has no session to answer into): what goes to the client, or null for nothing.
   */
  fromOwner(m: JSONRPCMessage, session: string | null): JSONRPCMessage | null {
    if (!('method' in m)) return m // an answer to the client's own request
    const id = (m as { id?: unknown }).id
    if (typeof id === 'string' || typeof id === 'number') {
      // 2026-07-28 has no requests from the server (input_required replaces them): nowhere to answer
      if (session === null) return null
      const mine = ++this.next
      this.asked.set(mine, { session, ownerId: id })
      return { ...m, id: mine } as JSONRPCMessage
    }
    if (m.method === 'notifications/cancelled' && session !== null) {
      const params = (m as { params?: { requestId?: unknown; reason?: unknown } }).params
      const mine = this.find(session, params?.requestId)
      // the owner cancels one of its own requests: the client knows it by the bridge's id; one it
      // was never sent (or already answered) is nothing to the client (it could name another)
      if (mine === undefined) return null
      this.asked.delete(mine)
      return { ...m, params: { ...params, requestId: mine } } as JSONRPCMessage
    }
    return m
  }

  /**
   * The client's answer (a JSON-RPC result or error): the session it goes to and the message
   * under the owner's id, or null when the client was not sent that id or it is no longer open.
   */
  answer(m: JSONRPCMessage): { session: string; message: JSONRPCMessage } | null {
    const id = (m as { id?: unknown }).id
    if (typeof id !== 'number') return null
    const a = this.asked.get(id)
    if (!a) return null
    this.asked.delete(id)
    return { session: a.session, message: { ...m, id: a.ownerId } as JSONRPCMessage }
  }

  /** The session upstream ended: the client's open questions on it, withdrawn (notifications/cancelled for each). */
  endSession(session: string): JSONRPCMessage[] {
    const out: JSONRPCMessage[] = []
    for (const [mine, a] of this.asked) {
      if (a.session !== session) continue
      this.asked.delete(mine)
      out.push({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: mine, reason: SESSION_ENDED_REASON } } as JSONRPCMessage)
    }
    return out
  }

  private find(session: string, ownerId: unknown): number | undefined {
    for (const [mine, a] of this.asked) if (a.session === session && a.ownerId === ownerId) return mine
    return undefined
  }
}
