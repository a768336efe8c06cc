// The stdio bridge: a transparent JSON-RPC relay from stdin/stdout to the live owner's /mcp,
// with its own session (and agent scope). Each message is one POST on a keep-alive connection;
// the owner answers with plain JSON (or, should it stream, SSE), which is written back as is.
// If the owner goes away, every request answers with an error that says so; a restarted
// `toolgate stdio` takes over the data dir. A session the owner expired (idle, issue 11 point 5)
// is opened again transparently with the client's own initialize.
import http from 'node:http'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import { LineStdioTransport } from '../core/agent/stdio-transport'
import type { Instance } from '../core/state/lock'

type Id = string | number

interface Reply {
  status: number
  type: string
  session: string | undefined
  body: string
}

function isRequest(m: JSONRPCMessage): m is JSONRPCMessage & { id: Id; method: string } {
  return 'method' in m && 'id' in m && m.id !== undefined
}

/** The JSON-RPC messages in a reply body: a JSON message or array, or SSE `data:` events. */
export function messagesOf(type: string, body: string): JSONRPCMessage[] {
  if (!body.trim()) return []
  if (type.includes('text/event-stream')) {
    const out: JSONRPCMessage[] = []
    for (const event of body.split(/\r?\n\r?\n/)) {
      const data = event
        .split(/\r?\n/)
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).trimStart())
        .join('\n')
      if (data) out.push(JSON.parse(data) as JSONRPCMessage)
    }
    return out
  }
  const parsed = JSON.parse(body) as JSONRPCMessage | JSONRPCMessage[]
  return Array.isArray(parsed) ? parsed : [parsed]
}

export async function runBridge(o: { instance: Instance; key: string; agent?: string; dataDir: string }): Promise<void> {
  const url = new URL(o.instance.mcp_url as string)
  const agent = new http.Agent({ keepAlive: true })
  const local = new LineStdioTransport()
  let session: string | undefined
  let protocol: string | undefined
  // Until the initialize answer has given us a session id, later messages wait for it.
  let sessionReady: Promise<void> = Promise.resolve()
  let initialize: JSONRPCMessage | null = null

  const gone = (): string =>
    `Toolgate's owner process (pid ${o.instance.pid}, ${o.instance.url}) for ${o.dataDir} is gone or not answering. Restart this MCP client (or start \`toolgate serve\` / the Toolgate app) to reconnect; a restarted \`toolgate stdio\` takes over on its own.`

  const send = (method: 'POST' | 'DELETE', body?: string): Promise<Reply> =>
    new Promise((resolve, reject) => {
      const headers: Record<string, string> = {
        authorization: `Bearer ${o.key}`,
        accept: 'application/json, text/event-stream',
      }
      if (body !== undefined) {
        headers['content-type'] = 'application/json'
        headers['content-length'] = String(Buffer.byteLength(body))
      }
      if (o.agent) headers['x-toolgate-agent'] = o.agent
      if (session) headers['mcp-session-id'] = session
      if (protocol) headers['mcp-protocol-version'] = protocol
      const req = http.request(url, { method, agent, headers }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            type: String(res.headers['content-type'] ?? ''),
            session: typeof res.headers['mcp-session-id'] === 'string' ? res.headers['mcp-session-id'] : undefined,
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        )
        res.on('error', reject)
      })
      req.on('error', reject)
      req.end(body)
    })

  const fail = (m: JSONRPCMessage, why: string): void => {
    if (isRequest(m)) void local.send({ jsonrpc: '2.0', id: m.id, error: { code: -32000, message: why } } as JSONRPCMessage)
  }

  /** The owner forgot our session (idle expiry): open a new one with the client's initialize. */
  const reopen = async (): Promise<boolean> => {
    if (!initialize) return false
    session = undefined
    const r = await send('POST', JSON.stringify(initialize))
    if (r.status >= 400 || !r.session) return false
    session = r.session
    await send('POST', JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }))
    return true
  }

  const relay = async (m: JSONRPCMessage): Promise<void> => {
    let reply: Reply
    try {
      reply = await send('POST', JSON.stringify(m))
      if (reply.status === 404 && session && !(isRequest(m) && m.method === 'initialize') && (await reopen())) {
        reply = await send('POST', JSON.stringify(m))
      }
    } catch (err) {
      return fail(m, `${gone()} (${(err as Error).message})`)
    }
    if (reply.session) session = reply.session
    let messages: JSONRPCMessage[] = []
    try {
      messages = messagesOf(reply.type, reply.body)
    } catch {
      return fail(m, `Toolgate answered HTTP ${reply.status} with a body that is not JSON-RPC`)
    }
    if (reply.status >= 400 && messages.length === 0) return fail(m, `Toolgate answered HTTP ${reply.status}: ${reply.body.slice(0, 300)}`)
    for (const msg of messages) {
      // an HTTP-level error (no session, ...) comes with id null: give it the request's id
      const fixed = 'error' in msg && (msg as { id?: unknown }).id == null && isRequest(m) ? ({ ...msg, id: m.id } as JSONRPCMessage) : msg
      if ('result' in fixed && isRequest(m) && m.method === 'initialize') {
        const v = (fixed.result as { protocolVersion?: unknown }).protocolVersion
        if (typeof v === 'string') protocol = v
      }
      void local.send(fixed)
    }
  }

  local.onmessage = (m: JSONRPCMessage) => {
    if (isRequest(m) && m.method === 'initialize') {
      session = undefined
      initialize = m
      sessionReady = relay(m)
      return
    }
    void sessionReady.then(() => relay(m))
  }
  local.onclose = () => {
    const end = (): never => process.exit(0)
    if (!session) end()
    send('DELETE').then(end, end)
  }
  await local.start()
}
