// Attack on the tool list with an upstream's definitions (tools.ts), from outside: a real `toolgate
// serve` with a raw hostile upstream whose tools/list holds, beside a plain tool, one whose
// inputSchema nests 20,000 levels deep (120 KB of brackets). Toolgate copies, masks, hashes and shows
// a definition with recursive walks: that one tool overflowed the stack ('could not record tool
// approvals'), and the server's whole list was lost, its plain tool too ("has not run yet"). The
// tool nested too deep is now left out with a warning; the others are listed and callable.
import { describe, expect, it } from 'vitest'
import { waitForToolStatus } from '../helpers/cli'
import { serveHostile } from '../helpers/hostile-serve'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, readOk, type McpHandle } from '../helpers/mcp-client'
import type { ServerInfo } from '../../src/shared/api'

const DEPTH = 20_000

useCleanup()

describe('attack: a tool definition nested 20,000 levels deep', () => {
  it('is left out with a warning; the server’s other tools are listed and callable', async () => {
    const deep = '['.repeat(DEPTH) + ']'.repeat(DEPTH)
    const plain = { name: 'plain', description: 'A plain tool', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }
    const { serve } = await serveHostile(
      'toolgate-attack-tool-depth-',
      {
        toolsRaw: `[${JSON.stringify(plain)},{"name":"deep","description":"Deep","inputSchema":{"type":"object","properties":{"x":{"default":${deep}}}}}]`,
        results: { plain: { content: [{ type: 'text', text: 'PLAIN' }] } },
      },
      { name: 'hs', agents: [] },
    )
    let mcp: McpHandle | undefined
    try {
      // before: never listed (the list was lost), and 'could not record tool approvals' in the log
      await waitForToolStatus(serve, 'hs:plain', 'callable')
      mcp = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
      expect(await readOk(mcp, 'hs:plain')).toBe('PLAIN')
      const hs = (await serve.api<{ servers: Array<ServerInfo & { warnings?: string[] }> }>('GET', '/api/v1/servers')).json.servers.find((s) => s.name === 'hs')
      expect(JSON.stringify(hs)).toMatch(/"deep\\": nests deeper than 128 levels/)
      expect(serve.stderr()).not.toContain('Maximum call stack size exceeded')
    } finally {
      await mcp?.close()
      await stopServe(serve)
    }
  }, 90_000)
})
