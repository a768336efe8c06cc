// The stdio bridge: a transparent JSON-RPC relay from stdin/stdout to the live owner's /mcp,
// in both protocol eras. Each message is one POST on a keep-alive connection; the owner answers
// with an SSE stream (or plain JSON), whose messages are written to stdout as they arrive, so
// progress notifications reach the client while the call runs.
// - 2025 (initialize): the bridge holds its own session upstream (and agent scope). A `ping`
//   before initialize is answered here (`{}`, as the embedded stdio does); a JSON-RPC batch of a
//   2025-03-26 session is split by the line transport and answered as one array.
// - 2026-07-28 (the per-request _meta envelope): no session; each request goes out with the
//   headers the protocol wants (MCP-Protocol-Version, Mcp-Method, Mcp-Name), and the client's
//   notifications/cancelled for a request closes that request's stream (how 2026-07-28 cancels).
// - Requests of the owner to the client (a 2025 session: elicitation/create, sampling, roots,
//   ping; on a call's stream or the session's own GET stream, which the bridge keeps open) reach
//   the client under the bridge's own ids, and only answers to those go back (bridge-asks.ts).
// The owner can go away (its client quit, or it crashed): the bridge notices within a few
// hundred ms (the owner's pid and the data dir lock are watched), fails the request in flight
// with a clear error, and reconnects: to whichever process took the data dir over, or it takes
// it over itself. The client's MCP session is kept: the bridge opens a new session upstream with
// the client's own initialize, and later requests go through as if nothing happened.
import fs from 'node:fs'
import http from 'node:http'
import type { Readable, Writable } from 'node:stream'
import type { JSONRPCMessage } from '@modelcontextprotocol/server'
import { LineStdioTransport } from '../core/agent-server/stdio-transport'
import { OwnerRequests } from './bridge-asks'
import { DataDirLock, pidAlive } from '../core/state/lock'
import { bodyReader, envelopeVersion, modernHeaders } from './bridge-wire'

export { bodyReader, envelopeVersion, messagesOf, modernHeaders } from './bridge-wire'

type Id = string | number

/** Where the bridge relays to: one owner's /mcp and the key to use there. */
export interface Target {
  mcpUrl: string
  key: string
  pid: number
}

function isRequest(m: JSONRPCMessage): m is JSONRPCMessage & { id: Id; method: string } {
  return 'method' in m && 'id' in m && m.id !== undefined
}

export interface BridgeOptions {
  first: Target
  agent?: string
  dataDir: string
  /** Reaches the owner again after the current one went away, or becomes it; the new target. */
  reconnect(): Promise<Target>
  /** Runs when the client closes stdin, before the process exits (stops an owner taken over). */
  onClose(): Promise<void>
  /** The client's side; stdin/stdout unless given (tests run a bridge in-process). */
  io?: { input: Readable; output: Writable }
}

/** How often the bridge looks whether its owner is still there. */
const WATCH_MS = 150

export async function runBridge(o: BridgeOptions): Promise<void> {
  const agent = new http.Agent({ keepAlive: true })
  const local = o.io ? new LineStdioTransport(o.io.input, o.io.output) : new LineStdioTransport()
  let target = o.first
  let session: string | undefined
  let protocol: string | undefined
  /** the client's own initialize, replayed to open a new session upstream */
  let initialize: (JSONRPCMessage & { id: Id; method: string }) | null = null
  /** later messages wait for this: the initialize answer, or a reconnect */
  let ready: Promise<void> = Promise.resolve()
  let reconnecting: Promise<void> | null = null
  let reinits = 0

  const goneText = (t: Target): string =>
    `Toolgate's owner process (pid ${t.pid}) for ${o.dataDir} went away while this request was running; the bridge reconnects on its own (to the new owner, or it becomes the owner): retry the request.`

  /** One POST (or DELETE); each message of the reply is handed to onMessage as it arrives. */
  const send = (
    t: Target,
    method: 'POST' | 'DELETE',
    body: string | undefined,
    /** each JSON-RPC message of the reply, with the reply's status and the session it was sent on (null: none) */
    onMessage: (m: JSONRPCMessage, status: number, sid: string | null) => void,
    /** the session to send on: the current one unless given (null: none, for a new initialize) */
    sid: string | null = session ?? null,
    /** 2026-07-28: the request's own headers (and no session); `onRequest` gets the request, to close it */
    modern?: { headers: Record<string, string>; onRequest(req: http.ClientRequest): void },
  ) =>
    new Promise<{ status: number; session: string | undefined; messages: number; text: string }>((resolve, reject) => {
      const headers: Record<string, string> = {
        authorization: `Bearer ${t.key}`,
        accept: 'application/json, text/event-stream',
      }
      if (body !== undefined) {
        headers['content-type'] = 'application/json'
        headers['content-length'] = String(Buffer.byteLength(body))
      }
      if (o.agent) headers['x-toolgate-agent'] = o.agent
      if (modern) Object.assign(headers, modern.headers)
      else {
        if (sid) headers['mcp-session-id'] = sid
        if (protocol) headers['mcp-protocol-version'] = protocol
      }
      const req = http.request(t.mcpUrl, { method, agent, headers }, (res) => {
        let messages = 0
        let text = ''
        const reader = bodyReader(String(res.headers['content-type'] ?? ''), (m) => {
          // only JSON-RPC goes to the client (a 401 or 403 body is Toolgate's own error JSON)
          if ((m as { jsonrpc?: unknown }).jsonrpc !== '2.0') return
          messages++
          onMessage(m, res.statusCode ?? 0, modern ? null : sid)
        })
        res.setEncoding('utf8')
        res.on('data', (c: string) => {
          if (text.length < 300) text += c
          reader.feed(c)
        })
        res.on('end', () => {
          try {
            reader.end()
          } catch {
            // a body that is not JSON-RPC: reported below by its status and text
          }
          const sid = res.headers['mcp-session-id']
          resolve({ status: res.statusCode ?? 0, session: typeof sid === 'string' ? sid : undefined, messages, text })
        })
        res.on('error', reject)
        // the owner went away mid-answer (its socket destroyed): no 'end' will come
        res.on('close', () => {
          if (!res.complete) reject(new Error('the connection to the owner closed mid-answer'))
        })
      })
      req.on('error', reject)
      modern?.onRequest(req)
      req.end(body)
    })

  /** To the client, without waiting for its stdout; a stdout that fails closes the transport (and so the bridge): the rejection has nothing to add. */
  const toClient = (m: JSONRPCMessage): void => {
    local.send(m).catch(() => {})
  }

  const fail = (m: JSONRPCMessage, why: string): void => {
    if (isRequest(m)) toClient({ jsonrpc: '2.0', id: m.id, error: { code: -32000, message: why } } as JSONRPCMessage)
  }

  /** The owner's requests to the client (elicitation, sampling, roots, ping) and the client's answers to them. */
  const asks = new OwnerRequests()
  /** A message of the owner, from a stream of session `sid` (null: a 2026-07-28 request's), to the client. */
  const fromOwner = (m: JSONRPCMessage, sid: string | null): void => {
    const out = asks.fromOwner(m, sid)
    if (out) toClient(out)
  }
  /** The client answers a request of the owner: to the session that asked, under the owner's id; never resent elsewhere. */
  const answerOwner = (m: JSONRPCMessage): void => {
    const to = asks.answer(m)
    // never sent to this client, withdrawn, or answered already: nothing of it reaches the owner
    if (!to) return
    send(target, 'POST', JSON.stringify(to.message), () => {}, to.session).catch(() => {})
  }

  /**
   * A 2025 session's own stream (GET /mcp): what the owner sends outside any request (a request
   * of an upstream relayed to this client, a list_changed, a resource update) reaches the client.
   * One per session; opened again when it drops while the session lasts; a session the owner no
   * longer knows (404) or a stream it refuses is left until the next session.
   */
  let listening: { sid: string; req: http.ClientRequest } | null = null
  let closed = false
  const listenOn = (t: Target, sid: string): void => {
    if (closed || listening?.sid === sid) return
    listening?.req.destroy()
    const headers: Record<string, string> = { authorization: `Bearer ${t.key}`, accept: 'text/event-stream', 'mcp-session-id': sid }
    if (protocol) headers['mcp-protocol-version'] = protocol
    if (o.agent) headers['x-toolgate-agent'] = o.agent
    let again = true
    const req = http.request(t.mcpUrl, { method: 'GET', agent, headers }, (res) => {
      if (res.statusCode !== 200) {
        again = false
        res.resume()
        return
      }
      const reader = bodyReader('text/event-stream', (m) => {
        if ((m as { jsonrpc?: unknown }).jsonrpc === '2.0') fromOwner(m, sid)
      })
      res.setEncoding('utf8')
      res.on('data', (c: string) => reader.feed(c))
    })
    const ended = (): void => {
      if (listening?.req !== req) return
      listening = null
      // the stream dropped while the session goes on: listen again (a new session listens itself)
      if (again && !closed && session === sid) setTimeout(() => session === sid && listenOn(target, sid), 1000).unref()
    }
    req.on('error', ended)
    req.on('close', ended)
    listening = { sid, req }
    req.end()
  }

  /** The session upstream is now `sid`: questions still open on the one before are withdrawn in the client. */
  const useSession = (sid: string): void => {
    if (session !== undefined && session !== sid) for (const c of asks.endSession(session)) toClient(c)
    session = sid
  }

  /** Opens a new upstream session with the client's initialize (its answer is not the client's). */
  // The old session stays current until the new one is open: a request sent meanwhile carries the
  // old id (its 404 then waits for this reopen) and never goes out with no session at all (that is
  // a 400 the client would see; security-agents failed CI on it).
  const reopen = async (t: Target): Promise<boolean> => {
    if (!initialize) return true
    const r = await send(t, 'POST', JSON.stringify({ ...initialize, id: `toolgate-bridge-reinit-${++reinits}` }), () => {}, null)
    if (r.status >= 400 || !r.session) return false
    await send(t, 'POST', JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), () => {}, r.session)
    useSession(r.session)
    listenOn(t, r.session)
    return true
  }

  /**
   * The owner answered 404 for the session `expired`: open a new one, once for all the requests
   * that were in flight (each would otherwise open its own, up to the per-credential cap).
   */
  let reopening: Promise<boolean> | null = null
  const reopenExpired = (t: Target, expired: string): Promise<boolean> => {
    if (reopening) return reopening
    // another request saw the same 404 and has opened a new session already
    if (session !== expired) return Promise.resolve(session !== undefined)
    reopening = reopen(t).finally(() => {
      reopening = null
    })
    return reopening
  }

  /** The owner `from` is gone: find or become the next one, then reopen the session there. */
  const takeOver = (from: Target): Promise<void> => {
    if (target !== from) return ready
    if (reconnecting) return reconnecting
    reconnecting = (async () => {
      for (;;) {
        const next = await o.reconnect()
        target = next
        try {
          if (await reopen(next)) return
        } catch {
          // the new owner went away too: go round again
        }
      }
    })().finally(() => {
      reconnecting = null
    })
    ready = reconnecting.catch(() => {})
    return reconnecting
  }

  const relay = async (m: JSONRPCMessage, retried = false): Promise<void> => {
    // a session is being opened again: this request goes out on the new one
    if (reopening) await reopening.catch(() => false)
    const t = target
    const forward = (msg: JSONRPCMessage, sid: string | null): void => {
      // an HTTP-level error (no session, ...) comes with id null: give it the request's id
      const fixed = 'error' in msg && (msg as { id?: unknown }).id == null && isRequest(m) ? ({ ...msg, id: m.id } as JSONRPCMessage) : msg
      if ('result' in fixed && isRequest(m) && m.method === 'initialize') {
        const v = (fixed.result as { protocolVersion?: unknown }).protocolVersion
        if (typeof v === 'string') {
          protocol = v
          // the line transport answers JSON-RPC batches only where the version has them (2025-03-26)
          local.setProtocolVersion(v)
        }
      }
      fromOwner(fixed, sid)
    }
    // A 404 may be the owner's "unknown or expired session" error: held back until the session
    // is opened again (the client then gets the resent request's answer, not that error).
    const held: Array<[JSONRPCMessage, string | null]> = []
    const sent = session
    try {
      let r = await send(t, 'POST', JSON.stringify(m), (msg, status, sid) => {
        if (status === 404) held.push([msg, sid])
        else forward(msg, sid)
      })
      // Our key is refused: another process listens at that address now (a new owner took the
      // port over). The message was not handled: send it again once the bridge has reconnected.
      if (r.status === 401 && !retried) {
        await takeOver(t).catch(() => {})
        return relay(m, true)
      }
      if (r.session) useSession(r.session)
      // the owner forgot the session (it expired, or this owner is new): open one and resend once
      if (r.status === 404 && sent && !(isRequest(m) && m.method === 'initialize') && (await reopenExpired(t, sent))) {
        r = await send(t, 'POST', JSON.stringify(m), (msg, _status, sid) => forward(msg, sid))
      } else for (const [msg, sid] of held) forward(msg, sid)
      if (r.status >= 400 && r.messages === 0) fail(m, `Toolgate answered HTTP ${r.status}: ${r.text.slice(0, 300)}`)
      // the client's session is set up: its own stream carries what the owner says outside requests
      if ('method' in m && m.method === 'notifications/initialized' && r.status < 300 && session) listenOn(t, session)
    } catch (err) {
      // Refused: the owner never saw this message, so it is sent again once a new owner is there.
      // Any other failure may have happened mid-call: that request gets the error.
      if ((err as NodeJS.ErrnoException).code === 'ECONNREFUSED' && !retried) {
        await takeOver(t).catch(() => {})
        return relay(m, true)
      }
      fail(m, `${goneText(t)} (${(err as Error).message})`)
      void takeOver(t).catch(() => {})
    }
  }

  /** The owner is gone when its pid is dead or the data dir lock no longer names it. */
  const ownerGone = (t: Target): boolean => {
    if (t.pid === process.pid) return false
    if (!pidAlive(t.pid)) return true
    try {
      return fs.readFileSync(DataDirLock.lockPath(o.dataDir), 'utf8').trim() !== String(t.pid)
    } catch {
      return true
    }
  }
  const watch = setInterval(() => {
    if (!reconnecting && ownerGone(target)) void takeOver(target).catch(() => {})
  }, WATCH_MS)
  watch.unref()

  /** 2026-07-28 requests in flight, by id: the client's notifications/cancelled closes one */
  const inFlight = new Map<Id, http.ClientRequest>()

  /** A 2026-07-28 message: no session, one self-contained POST; the owner serves it statelessly. */
  const relayModern = async (m: JSONRPCMessage & { method: string }, version: string, retried = false): Promise<void> => {
    if (m.method === 'notifications/cancelled') {
      const id = (m as { params?: { requestId?: unknown } }).params?.requestId
      const req = typeof id === 'string' || typeof id === 'number' ? inFlight.get(id) : undefined
      // closing the request's stream is the cancellation (there is no session to tell)
      if (req) {
        inFlight.delete(id as Id)
        req.destroy()
      }
      return
    }
    const t = target
    const id = isRequest(m) ? m.id : undefined
    const track = (req: http.ClientRequest): void => {
      if (id !== undefined) inFlight.set(id, req)
    }
    try {
      const r = await send(t, 'POST', JSON.stringify(m), (msg) => fromOwner(msg, null), null, { headers: modernHeaders(m, version), onRequest: track })
      if (r.status === 401 && !retried) {
        await takeOver(t).catch(() => {})
        return relayModern(m, version, true)
      }
      if (r.status >= 400 && r.messages === 0) fail(m, `Toolgate answered HTTP ${r.status}: ${r.text.slice(0, 300)}`)
    } catch (err) {
      if (id !== undefined && !inFlight.has(id)) return // cancelled by the client: no answer is due
      if ((err as NodeJS.ErrnoException).code === 'ECONNREFUSED' && !retried) {
        await takeOver(t).catch(() => {})
        return relayModern(m, version, true)
      }
      fail(m, `${goneText(t)} (${(err as Error).message})`)
      void takeOver(t).catch(() => {})
    } finally {
      if (id !== undefined) inFlight.delete(id)
    }
  }

  local.onmessage = (m: JSONRPCMessage) => {
    // an answer of the client: to a request of the owner (or to nothing it was sent)
    if (!('method' in m)) return answerOwner(m)
    const version = 'method' in m ? envelopeVersion(m) : undefined
    if (version !== undefined && 'method' in m) {
      void ready.then(() => relayModern(m, version))
      return
    }
    // a 2025 client may ping before initialize: answered here, as the embedded stdio does
    if (isRequest(m) && m.method === 'ping' && initialize === null) {
      toClient({ jsonrpc: '2.0', id: m.id, result: {} } as JSONRPCMessage)
      return
    }
    if (isRequest(m) && m.method === 'initialize') {
      initialize = m
      // a new session: what the client was asked on the old one is withdrawn
      if (session !== undefined) for (const c of asks.endSession(session)) toClient(c)
      session = undefined
      ready = ready.then(() => relay(m))
      return
    }
    void ready.then(() => relay(m))
  }
  local.onclose = () => {
    clearInterval(watch)
    closed = true
    listening?.req.destroy()
    listening = null
    const end = (): void => {
      o.onClose()
        .catch(() => {})
        .finally(() => process.exit(0))
    }
    if (!session || target.pid === process.pid) return end()
    send(target, 'DELETE', undefined, () => {}).then(end, end)
  }
  await local.start()
}
