// Upstream logs for 2026-07-28 agents, from outside: there is no session to set a level on, so a
// request asks for log messages with `_meta["io.modelcontextprotocol/logLevel"]` and hears them on
// its own stream while it runs. A real `toolgate serve` with a 2026-07-28 upstream (the asker
// fixture on SDK v2: it logs only when the request it serves asked, at that level) and 2025 ones
// (SDK 1.x: they log on their session); SDK v2 clients pinned to 2026-07-28 over HTTP /mcp and
// `toolgate stdio` (bridged). What they hear names the server, is masked, and is at the level asked
// and above. A request that asked nothing hears nothing; an agent hears only the servers its own
// request reached (not another agent's concurrent call to a server out of its scope).
import type { LoggingMessageNotification } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { waitFor, type Serve } from '../helpers/cli'
import { askerEntry, serveConnected } from '../helpers/askers'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttpV2, connectStdioV2, type V2Handle } from '../helpers/mcp-v2-client'
import { textOf } from '../helpers/mcp-client'

const SECRET = 'sk-live-Hq3ZuV8mW1pT6rN4'
const LEVEL_KEY = 'io.modelcontextprotocol/logLevel'

useCleanup()

type Heard = Array<LoggingMessageNotification['params']>

function listen(h: V2Handle): Heard {
  const heard: Heard = []
  h.client.setNotificationHandler('notifications/message', (n) => void heard.push(n.params))
  return heard
}

/** call_tool_read of server:log, asking for log messages at `level` (none: not asking). */
async function log(h: V2Handle, server: string, text: string, level?: string): Promise<string> {
  const r = await h.client.callTool(
    { name: 'call_tool_read', arguments: { name: `${server}:log`, args: { n: 3, text } }, ...(level ? { _meta: { [LEVEL_KEY]: level } } : {}) },
    { timeout: 60_000 },
  )
  return textOf(r as never)
}

describe('log messages of upstream servers for 2026-07-28 agents', () => {
  let serve: Serve
  let token: string
  const handles: V2Handle[] = []

  beforeAll(async () => {
    serve = await serveConnected('toolgate-logs-modern-', {
      mcpServers: {
        new: askerEntry('modern', { env: { API_TOKEN: SECRET } }),
        old: askerEntry('legacy', { env: { API_TOKEN: SECRET } }),
        other: askerEntry('legacy'),
      },
      agents: [{ name: 'elsewhere', servers: ['other'], permissions: ['read'] }],
    })
    token = (await serve.api<{ token: string }>('POST', '/api/v1/agents/elsewhere/token')).json.token
  }, 90_000)

  afterAll(async () => {
    for (const h of handles) await h.close().catch(() => {})
    await stopServe(serve)
  })

  it('a request that asks for a level hears the messages of the server it calls on its own stream, at that level and above, naming the server, masked (HTTP)', async () => {
    const h = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` }, 'modern')
    handles.push(h)
    const heard = listen(h)
    // a 2026-07-28 upstream: asked for warning, it sends warnings only (its debug line is not sent)
    expect(await log(h, 'new', `new-warn key ${SECRET}`, 'warning')).toBe('logged 3')
    // a 2025 upstream logs on its session: Toolgate passes the warnings on to the request
    expect(await log(h, 'old', `old-warn key ${SECRET}`, 'warning')).toBe('logged 3')
    // debug: the 2026-07-28 upstream sends its debug line too
    expect(await log(h, 'new', `new-debug key ${SECRET}`, 'debug')).toBe('logged 3')
    // the messages came with their requests: nothing arrives later
    const before = heard.length
    await new Promise((r) => setTimeout(r, 500))
    expect(heard.length).toBe(before)
    const data = heard.map((m) => String(m.data))
    expect(data.filter((d) => d.startsWith('new-warn')).length).toBe(3)
    for (const m of heard) expect(JSON.stringify(m)).not.toContain(SECRET)
    expect(heard.filter((m) => String(m.data).startsWith('new-warn')).map((m) => [m.level, m.logger])).toEqual(Array(3).fill(['warning', 'new/asker']))
    expect(heard.filter((m) => String(m.data).startsWith('old-warn')).map((m) => [m.level, m.logger])).toEqual(Array(3).fill(['warning', 'old/asker']))
    expect(heard.filter((m) => String(m.data).startsWith('new-debug')).map((m) => m.level)).toEqual(['debug', 'warning', 'warning', 'warning'])
    expect(data.filter((d) => d.startsWith('new-warn'))).toEqual([1, 2, 3].map((i) => expect.stringMatching(new RegExp(`^new-warn key .* #${i}$`))))
  })

  it('a request that asks for nothing hears nothing', async () => {
    const h = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` }, 'modern')
    handles.push(h)
    const heard = listen(h)
    expect(await log(h, 'new', 'quiet-new')).toBe('logged 3')
    expect(await log(h, 'old', 'quiet-old')).toBe('logged 3')
    await new Promise((r) => setTimeout(r, 500))
    expect(heard).toEqual([])
  })

  it('over `toolgate stdio` (bridged to the owner), 2026-07-28', async () => {
    const h = await connectStdioV2([...serve.flags], 'modern', { TOOLGATE_API_KEY: serve.key })
    handles.push(h)
    const heard = listen(h)
    expect(await log(h, 'new', `stdio-new key ${SECRET}`, 'info')).toBe('logged 3')
    await waitFor(() => heard.length >= 3, 5_000, 'three messages on stdio')
    expect(heard.map((m) => [m.level, m.logger])).toEqual(Array(3).fill(['warning', 'new/asker']))
    expect(JSON.stringify(heard)).not.toContain(SECRET)
  }, 90_000)

  it('attack: an agent hears only the servers its own request reached, never another agent’s concurrent call to a server out of its scope', async () => {
    const admin = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` }, 'modern')
    const scoped = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${token}` }, 'modern')
    handles.push(admin, scoped)
    const heard = listen(scoped)
    // both at once: the admin's call to old (out of the scoped agent's scope) logs on old's session meanwhile
    const [mine] = await Promise.all([
      log(scoped, 'other', 'other-line', 'debug'),
      log(admin, 'old', `old-secret-line key ${SECRET}`),
      log(admin, 'new', 'new-line', 'debug'),
    ])
    expect(mine).toBe('logged 3')
    // a request for a server out of its scope is refused and hears nothing either
    expect(await log(scoped, 'old', 'refused-line', 'debug')).toMatch(/not in scope|unknown|not/)
    await new Promise((r) => setTimeout(r, 500))
    expect(heard.map((m) => m.logger)).toEqual(Array(3).fill('other/asker'))
    expect(heard.map((m) => String(m.data))).toEqual([1, 2, 3].map((i) => `other-line #${i}`))
  })
})
