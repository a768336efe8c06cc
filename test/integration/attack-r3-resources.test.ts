// Round three attacks on resources, from outside: a real `toolgate serve`,
// agents of both eras on /mcp, the passthrough fixture. Is a resource read gated by the server's
// approval? A server the user approved whose launch then changes in the config (what runs is no
// longer what was reviewed) must not serve resources until reviewed again; a tool of an approved
// server that changed (rug pull) locks that tool, and a resource link in a tool result that
// names another server's Toolgate URI reads back to the server that answered, never the other.
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { assertBuilt, ROOT, startServe, stopProcess, tempDir, waitFor, waitForServerState, writeJson } from '../helpers/cli'
import { useCleanup } from '../helpers/cleanup'
import { getServer } from '../helpers/config-edit'
import { connectHttpV2, type Era, type V2Handle } from '../helpers/mcp-v2-client'

const SERVER = path.join(ROOT, 'test/fixtures/servers/passthrough-server.mjs')
const NOTE = { uri: 'file:///notes/a.txt', name: 'note-a', mimeType: 'text/plain', text: 'PT-NOTE' }
const URI = 'file://pt.toolgate.invalid/~/notes/a.txt'

useCleanup()

async function read(a: V2Handle, uri: string): Promise<string> {
  try {
    return JSON.stringify(await a.client.readResource({ uri }))
  } catch (e) {
    return `refused: ${(e as Error).message}`
  }
}

describe.each<Era>(['legacy', 'modern'])('attack: resources and server approval (%s era)', (era) => {
  it('a server whose launch changed after the user approved it serves no resource until reviewed again', async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-attack-r3-res-')
    const state = path.join(tmp, 'pt.json')
    const otherState = path.join(tmp, 'other.json')
    // pt's first resource names other's Toolgate URI: the links tool hands it out
    fs.writeFileSync(state, JSON.stringify({ resources: [{ ...NOTE, uri: 'file://other.toolgate.invalid/~/notes/a.txt' }, NOTE] }))
    fs.writeFileSync(otherState, JSON.stringify({ resources: [{ ...NOTE, text: 'OTHER-SECRET' }] }))
    const entry = (s: string, extra: Record<string, unknown> = {}) => ({
      command: process.execPath,
      args: [SERVER],
      env: { PASSTHROUGH_STATE: s, ...extra },
      sandbox: { fs_read: [tmp] },
    })
    const config = (ptExtra: Record<string, unknown> = {}) => ({
      mcpServers: { pt: entry(state, ptExtra), other: { ...entry(otherState), quarantined: false } },
      agents: [{ name: 'reader', servers: ['pt'], permissions: ['read'] }],
    })
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), config())
    const serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    const token = (await serve.api<{ token: string }>('POST', '/api/v1/agents/reader/token')).json.token
    const reader = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${token}` }, era)
    try {
      // new: in quarantine, nothing read
      await waitFor(async () => (await getServer<{ launch_hash?: string }>(serve, 'pt')).launch_hash, 20_000, 'pt’s launch hash')
      expect(await read(reader, URI)).toMatch(/^refused: .*RESOURCE_BLOCKED \(server_quarantined\)/)
      const reviewed = await getServer<{ launch_hash: string }>(serve, 'pt')
      const ok = await serve.api('POST', '/api/v1/servers/pt/approve', { hash: reviewed.launch_hash })
      expect(ok.status, ok.text).toBe(200)
      await waitForServerState(serve, 'pt', 'connected')
      await waitFor(async () => (await read(reader, URI)).includes('PT-NOTE'), 20_000, 'the approved server’s resource')

      // a resource link handed out by pt that names other reads back to pt (its own URI of that name), never to other
      const r = await reader.call('call_tool_read', { name: 'pt:links', args: {} })
      const link = (r.content.find((b) => b.type === 'resource_link') as unknown as { uri: string } | undefined)?.uri ?? ''
      expect(link.startsWith('file://pt.toolgate.invalid/')).toBe(true)
      expect(await read(reader, link)).not.toContain('OTHER-SECRET')

      // the launch changes behind the user's back: what runs is no longer what was approved
      writeJson(configPath, config({ EXTRA: 'changed' }))
      await waitFor(async () => (await getServer<{ launch_hash: string }>(serve, 'pt')).launch_hash !== reviewed.launch_hash, 20_000, 'the changed launch')
      const after = await read(reader, URI)
      expect(after).not.toContain('PT-NOTE')
      expect(after).toMatch(/^refused/)
      expect((await reader.client.listResources()).resources.map((x) => x.uri)).not.toContain(URI)
    } finally {
      await reader.close().catch(() => {})
      await stopProcess(serve.child)
    }
  }, 90_000)
})

describe.each<Era>(['legacy', 'modern'])('attack: URIs crafted to reach another server (%s era)', (era) => {
  it('unicode look-alikes, case, trailing dots, punycode, huge URIs, completion and subscription: nothing of "other" for a reader of pt', async () => {
    assertBuilt()
    const tmp = tempDir('toolgate-attack-r3-uris-')
    const state = path.join(tmp, 'pt.json')
    const otherState = path.join(tmp, 'other.json')
    fs.writeFileSync(state, JSON.stringify({ resources: [NOTE], templates: [{ uriTemplate: 'file:///notes/{id}.md', name: 'note' }] }))
    fs.writeFileSync(
      otherState,
      JSON.stringify({ resources: [{ ...NOTE, text: 'OTHER-SECRET' }], templates: [{ uriTemplate: 'file:///notes/{id}.md', name: 'OTHER-SECRET' }] }),
    )
    const entry = (s: string) => ({ command: process.execPath, args: [SERVER], env: { PASSTHROUGH_STATE: s }, quarantined: false, sandbox: { fs_read: [tmp] } })
    const configPath = writeJson(path.join(tmp, 'mcp_config.json'), {
      mcpServers: { pt: entry(state), other: entry(otherState) },
      agents: [{ name: 'reader', servers: ['pt'], permissions: ['read'] }],
    })
    const serve = await startServe({ configPath, dataDir: path.join(tmp, 'data') })
    const token = (await serve.api<{ token: string }>('POST', '/api/v1/agents/reader/token')).json.token
    const reader = await connectHttpV2(`${serve.url}/mcp`, { authorization: `Bearer ${token}` }, era)
    const direct = await connectHttpV2(`${serve.url}/mcp/direct`, { authorization: `Bearer ${token}` }, era)
    try {
      for (const s of ['pt', 'other']) await waitForServerState(serve, s, 'connected')
      await waitFor(async () => (await read(reader, URI)).includes('PT-NOTE'), 20_000, 'pt’s resource')
      const crafted = [
        'file://other.toolgate.invalid/~/notes/a.txt',
        'file://OTHER.toolgate.invalid/~/notes/a.txt',
        'file://other.TOOLGATE.INVALID/~/notes/a.txt',
        'file://\u043everythingother.toolgate.invalid/~/notes/a.txt',
        'file://\u043ether.toolgate.invalid/~/notes/a.txt',
        'file://xn--ther-6we.toolgate.invalid/~/notes/a.txt',
        'file://other.toolgate.invalid./~/notes/a.txt',
        'file://pt.toolgate.invalid.other.toolgate.invalid/~/notes/a.txt',
        'file://other.toolgate.invalid%2f/~/notes/a.txt',
        'file://other.toolgate.invalid\\@pt.toolgate.invalid/~/notes/a.txt',
        'FILE://other.toolgate.invalid/~/notes/a.txt',
        'file://other.toolgate.invalid/~/notes/7.md',
        `file://pt.toolgate.invalid/~/notes/${'a'.repeat(300_000)}.md`,
        `file://other.toolgate.invalid/~/notes/${'a'.repeat(300_000)}.md`,
      ]
      for (const uri of crafted) {
        for (const a of [reader, direct]) expect(await read(a, uri), uri.slice(0, 60)).not.toContain('OTHER-SECRET')
      }
      // the server's own URI on the direct view: only pt's
      expect(await read(direct, 'file:///notes/a.txt')).not.toContain('OTHER-SECRET')
      // completion of other's template, and a subscription to other's resource: refused
      let completion: string
      try {
        completion = JSON.stringify(
          await reader.client.complete({
            ref: { type: 'ref/resource', uri: 'file://other.toolgate.invalid/~/notes/{id}.md' },
            argument: { name: 'id', value: '1' },
          }),
        )
      } catch (e) {
        completion = `refused: ${(e as Error).message}`
      }
      expect(completion).toMatch(/^refused/)
      if (era === 'legacy') {
        let sub: string
        try {
          sub = JSON.stringify(await reader.client.subscribeResource({ uri: 'file://other.toolgate.invalid/~/notes/a.txt' }))
        } catch (e) {
          sub = `refused: ${(e as Error).message}`
        }
        expect(sub).toMatch(/^refused/)
      }
      // serve still answers after the huge URIs
      expect(await read(reader, URI)).toContain('PT-NOTE')
    } finally {
      await reader.close().catch(() => {})
      await direct.close().catch(() => {})
      await stopProcess(serve.child)
    }
  }, 90_000)
})
