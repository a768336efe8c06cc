// Upstream logs relayed to agents, from outside: a real `toolgate serve` whose upstream (the 2025 asker
// fixture) sends notifications/message. A 2025 agent that set a level (HTTP /mcp and `toolgate
// stdio` bridged) hears them at that level and above, naming the server, masked and escaped; one
// that set no level, a higher one, or that has not the server in its scope hears nothing. The
// messages are in Toolgate's log too. Attack: a flood of 500 is cut to the rate limit, for agents
// and for the log, and the log says how many were dropped.
import fs from 'node:fs'
import path from 'node:path'
import { Client, StreamableHTTPClientTransport, type LoggingMessageNotification } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN, cliEnv, ROOT, track, waitFor, type Serve } from '../helpers/cli'
import { askerEntry, serveConnected } from '../helpers/askers'
import { stopServe, useCleanup } from '../helpers/cleanup'

const SECRET = 'sk-live-Zq8XvT4mN2pL7rK9'

useCleanup()

interface Agent {
  client: Client
  heard: Array<LoggingMessageNotification['params']>
  close(): Promise<void>
}

function clientFor(heard: Agent['heard']): Client {
  const client = new Client({ name: 'logs', version: '1.0.0' }, { versionNegotiation: { mode: 'legacy' } as never })
  client.setNotificationHandler('notifications/message', (n) => void heard.push(n.params))
  return client
}

async function httpAgent(serve: Serve, key: string): Promise<Agent> {
  const heard: Agent['heard'] = []
  const client = clientFor(heard)
  await client.connect(new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }))
  return { client, heard, close: () => client.close() }
}

async function stdioAgent(serve: Serve): Promise<Agent> {
  const heard: Agent['heard'] = []
  const client = clientFor(heard)
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'stdio', ...serve.flags],
    env: cliEnv({ TOOLGATE_API_KEY: serve.key }) as Record<string, string>,
    cwd: ROOT,
    stderr: 'pipe',
  })
  await client.connect(transport, { timeout: 60_000 })
  track(transport.pid ?? undefined)
  return { client, heard, close: () => client.close() }
}

const log = (a: Agent, n: number, text: string) =>
  a.client.callTool({ name: 'call_tool_read', arguments: { name: 'old:log', args: { n, text } } }, { timeout: 60_000 })

describe('log messages of upstream servers', () => {
  let serve: Serve
  const logFile = () => fs.readFileSync(path.join(serve.dataDir, 'logs', 'toolgate.log'), 'utf8')

  beforeAll(async () => {
    serve = await serveConnected('toolgate-logs-', {
      mcpServers: {
        old: askerEntry('legacy', { env: { API_TOKEN: SECRET } }),
        other: askerEntry('legacy'),
      },
      agents: [{ name: 'elsewhere', servers: ['other'], permissions: ['read'] }],
    })
  }, 90_000)

  afterAll(() => stopServe(serve))

  it('reach agents that set a level (HTTP and stdio), at that level and above, naming the server, masked and escaped; nobody else', async () => {
    const token = (await serve.api<{ token: string }>('POST', '/api/v1/agents/elsewhere/token')).json.token
    const agents = {
      http: await httpAgent(serve, serve.key),
      stdio: await stdioAgent(serve),
      higher: await httpAgent(serve, serve.key),
      silent: await httpAgent(serve, serve.key),
      outOfScope: await httpAgent(serve, token),
    }
    try {
      await agents.http.client.setLoggingLevel('warning')
      await agents.stdio.client.setLoggingLevel('info')
      await agents.higher.client.setLoggingLevel('error')
      await agents.outOfScope.client.setLoggingLevel('debug')
      // the bridge's own stream opens after connect
      await new Promise((r) => setTimeout(r, 1000))
      await log(agents.silent, 3, `disk nearly full, key ${SECRET}\u202e`)
      for (const name of ['http', 'stdio'] as const) await waitFor(() => agents[name].heard.length >= 3, 10_000, `${name} to hear 3 messages`)
      for (const name of ['http', 'stdio'] as const) {
        const heard = agents[name].heard
        expect(heard.map((m) => m.data)).toEqual([1, 2, 3].map((i) => expect.stringMatching(new RegExp(`^disk nearly full, key .*\\\\u202e #${i}$`))))
        for (const m of heard) {
          expect(m.level).toBe('warning')
          expect(m.logger).toBe('old/asker')
          expect(JSON.stringify(m)).not.toContain(SECRET)
        }
      }
      await new Promise((r) => setTimeout(r, 1000))
      expect(agents.higher.heard).toEqual([])
      expect(agents.silent.heard).toEqual([])
      expect(agents.outOfScope.heard).toEqual([])
      // the log view has them too, masked, with the server's name
      const lines = logFile()
        .split('\n')
        .filter((l) => l.includes('server log message'))
      expect(lines.length).toBeGreaterThanOrEqual(3)
      expect(lines.join('\n')).not.toContain(SECRET)
      expect(JSON.parse(lines[0])).toMatchObject({ server: 'old', mcp_level: 'warning', mcp_logger: 'asker' })
    } finally {
      for (const a of Object.values(agents)) await a.close().catch(() => {})
    }
  }, 90_000)

  it('attack: a flood of 500 messages is cut to the rate limit for agents and the log, and the log says how many were dropped', async () => {
    const a = await httpAgent(serve, serve.key)
    try {
      await a.client.setLoggingLevel('debug')
      // the bucket refills while idle: start full
      await new Promise((r) => setTimeout(r, 3000))
      const t0 = Date.now()
      await log(a, 500, 'flood')
      const took = (Date.now() - t0) / 1000
      await new Promise((r) => setTimeout(r, 1500))
      const flood = a.heard.filter((m) => String(m.data).startsWith('flood'))
      // 50 at once, then 20 a second
      expect(flood.length).toBeGreaterThanOrEqual(50)
      expect(flood.length).toBeLessThanOrEqual(50 + Math.ceil(took * 20) + 20)
      // a message after the flood passes again and the log counts the dropped ones
      await new Promise((r) => setTimeout(r, 1000))
      await log(a, 1, 'after')
      await waitFor(() => a.heard.some((m) => String(m.data).startsWith('after')), 10_000, 'the message after the flood')
      const dropped = logFile()
        .split('\n')
        .filter((l) => l.includes('dropped') && l.includes('log messages of server'))
        .map((l) => (JSON.parse(l) as { dropped: number }).dropped)
      expect(dropped.reduce((x, y) => x + y, 0)).toBe(500 - flood.length)
    } finally {
      await a.close()
    }
  }, 60_000)
})
