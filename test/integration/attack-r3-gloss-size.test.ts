// Attack on the search index (tool-index.ts, gloss.ts, tokenize.ts) with an upstream's text, from
// outside: a real `toolgate serve` with a raw hostile upstream whose trusted tool has a parameter
// description of millions of Chinese characters (parameter descriptions have no cap of their own;
// 14 MB fits one stdio message). A run that long overflowed V8's regular-expression stack in the
// glosses and the tokenizer: RangeError, the whole server left out of search (its innocent tool
// too), its approvals not recorded. The index now takes a bounded part of a tool's text: the
// server's tools are found, the Chinese ones by their English glosses too.
import { describe, expect, it } from 'vitest'
import { waitFor } from '../helpers/cli'
import { serveHostile } from '../helpers/hostile-serve'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, jsonOf, type McpHandle } from '../helpers/mcp-client'

useCleanup()

async function found(mcp: McpHandle, query: string): Promise<string[]> {
  return jsonOf<{ tools: Array<{ name: string }> }>(await mcp.call('retrieve_tools', { query })).tools.map((t) => t.name)
}

describe('attack: a parameter description millions of characters long (search index)', () => {
  it('the server’s tools are still indexed and found; Toolgate records its approvals', async () => {
    const { serve } = await serveHostile(
      'toolgate-attack-gloss-size-',
      {
        tools: [
          // 4.8 million characters in one run (V8's regexp stack gave out from ~4.5 million)
          {
            name: 'headlines',
            description: '获取新闻',
            inputSchema: { type: 'object', properties: { q: { type: 'string', description: '新闻'.repeat(2_400_000) } } },
          },
          { name: 'forecast', description: 'Get the weather forecast for a city', inputSchema: { type: 'object', properties: {} } },
        ],
      },
      { name: 'hs', agents: [], connectMs: 60_000 },
    )
    let mcp: McpHandle | undefined
    try {
      mcp = await connectHttp(`${serve.url}/mcp`, { authorization: `Bearer ${serve.key}` })
      const client = mcp
      await waitFor(async () => (await found(client, 'weather forecast')).includes('hs:forecast'), 20_000, 'hs:forecast to be found').catch((e: Error) => {
        throw new Error(`${e.message}\nserve stderr:\n${serve.stderr().slice(-2000)}`)
      })
      // the Chinese tool by the English gloss of its description (获取新闻: obtain news)
      expect(await found(mcp, 'news')).toContain('hs:headlines')
      expect(serve.stderr()).not.toContain('could not record tool approvals')
    } finally {
      await mcp?.close()
      await stopServe(serve)
    }
  }, 120_000)
})
