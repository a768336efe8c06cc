// Attack on the search index (tool-index.ts, gloss.ts, tokenize.ts) with an upstream's text, from
// outside: a real `toolgate serve` with a raw hostile upstream whose trusted tool has a parameter
// description of millions of Chinese characters (parameter descriptions have no cap of their own;
// 14 MB fits one stdio message). A run that long overflowed V8's regular-expression stack in the
// glosses and the tokenizer: RangeError, the whole server left out of search (its innocent tool
// too), its approvals not recorded. The index now takes a bounded part of a tool's text: the
// server's tools are found, the Chinese ones by their English glosses too.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT, startServe, tempDir, waitFor, waitForServerState, writeJson } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'
import { connectHttp, jsonOf, type McpHandle } from '../helpers/mcp-client'

const HOSTILE = path.join(ROOT, 'test/fixtures/servers/hostile-server.mjs')

useCleanup()

async function found(mcp: McpHandle, query: string): Promise<string[]> {
  return jsonOf<{ tools: Array<{ name: string }> }>(await mcp.call('retrieve_tools', { query })).tools.map((t) => t.name)
}

describe('attack: a parameter description millions of characters long (search index)', () => {
  it('the server’s tools are still indexed and found; Toolgate records its approvals', async () => {
    const tmp = tempDir('toolgate-attack-gloss-size-')
    const state = path.join(tmp, 'hs.json')
    fs.writeFileSync(
      state,
      JSON.stringify({
        tools: [
          // 4.8 million characters in one run (V8's regexp stack gave out from ~4.5 million)
          {
            name: 'headlines',
            description: '获取新闻',
            inputSchema: { type: 'object', properties: { q: { type: 'string', description: '新闻'.repeat(2_400_000) } } },
          },
          { name: 'forecast', description: 'Get the weather forecast for a city', inputSchema: { type: 'object', properties: {} } },
        ],
      }),
    )
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { hs: { command: process.execPath, args: [HOSTILE], env: { HOSTILE_STATE: state }, sandbox: { fs_read: [tmp] }, quarantined: false } },
    })
    const serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    let mcp: McpHandle | undefined
    try {
      await waitForServerState(serve, 'hs', 'connected', 60_000)
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
