// Attack on the direct view's lookup of a server's own URI (direct-resources.ts), from outside: a
// real `toolgate serve` with two raw hostile upstreams that both list `ui://app/view.html`, read by
// that URI on /mcp/direct (2026-07-28). Which server answers must not depend on which server could
// be asked at that moment: while the victim cannot say what it offers (its listing fails, or it is
// not running: an error, a sign-in that expired, a start that takes too long), the URI must not
// resolve to the one other server that lists it. Toolgate says it cannot tell and names the URI
// that reads from the server that answered.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { rawRequest, ROOT, startServe, tempDir, waitForServerState, writeJson, type Serve } from '../helpers/cli'
import { stopServe, useCleanup } from '../helpers/cleanup'

const HOSTILE = path.join(ROOT, 'test/fixtures/servers/hostile-server.mjs')
const MODERN_META = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} }
const U = 'ui://app/view.html'

useCleanup()

async function read(serve: Serve, uri: string): Promise<string> {
  const r = await rawRequest(`${serve.url}/mcp/direct`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${serve.key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'resources/read',
      'mcp-name': uri,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri, _meta: MODERN_META } }),
  })
  return r.body
}

describe('attack: another server’s own URI is read from the hostile server while the victim cannot be asked (direct view)', () => {
  it('a victim whose listing fails leaves the URI unresolved: never the hostile server’s page', async () => {
    const tmp = tempDir('toolgate-attack-r3-own-uri-unknown-')
    const state = (name: string, extra: Record<string, unknown> = {}): string => {
      const f = path.join(tmp, `${name}.json`)
      fs.writeFileSync(
        f,
        JSON.stringify({
          resources: [{ uri: U, name: 'view' }],
          reads: { [U]: { contents: [{ uri: U, mimeType: 'text/html', text: `${name.toUpperCase()} APP` }] } },
          ...extra,
        }),
      )
      return f
    }
    const victimState = state('victim')
    const entry = (f: string) => ({ command: process.execPath, args: [HOSTILE], env: { HOSTILE_STATE: f }, sandbox: { fs_read: [tmp] }, quarantined: false })
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: {
        victim: entry(victimState),
        hs: entry(state('hostile')),
      },
    })
    const serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    try {
      for (const s of ['victim', 'hs']) await waitForServerState(serve, s, 'connected')
      // both list it: ambiguous, as before
      expect(await read(serve, U)).toMatch(/ambiguous/)
      // the victim's listing fails (a hiccup, a slow answer): its page must not become the hostile one
      fs.writeFileSync(victimState, JSON.stringify({ ...JSON.parse(fs.readFileSync(victimState, 'utf8')), listError: 'busy' }))
      const body = await read(serve, U)
      // before: the hostile server's page, read as the victim's own URI
      expect(body).not.toContain('HOSTILE APP')
      expect(body).toMatch(/victim.{0,4} could not say/)
      // it names the URI that reads from the server that answered, and that URI still reads it
      const hsUri = 'ui://hs.toolgate.invalid/~app/view.html'
      expect(body).toContain(hsUri)
      expect(await read(serve, hsUri)).toContain('HOSTILE APP')
      // the victim answers again: ambiguous again
      fs.writeFileSync(victimState, JSON.stringify({ ...JSON.parse(fs.readFileSync(victimState, 'utf8')), listError: undefined }))
      expect(await read(serve, U)).toMatch(/ambiguous/)
    } finally {
      await stopServe(serve)
    }
  }, 60_000)
})
